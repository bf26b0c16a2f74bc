"""How a name in compiled code resolves: in the closure and module globals
of the function it is written in (lookup_global), or as the attributes a
rewrite puts on Name nodes say (inline_calls: a free name of an inlined
function, a default argument, an imported name); which called functions are
the user's own (compiled into the caller) and the user's spelling of a
renamed local."""
from __future__ import annotations

import os
import re
import sysconfig
import types

SCOPE_ATTR = "_pyhalide_scope"    # on a Name: the function whose globals/closure resolve it
VALUE_ATTR = "_pyhalide_value"    # on a Name: (value,) it stands for (a default, an import)
RESOLVED_ATTR = "_pyhalide_inlined"   # on a tree: [(scope fn, name, function)] it inlined

PREFIX = "_ph_"                   # of the locals of inlined functions, renamed apart
_PREFIXED = re.compile(r"\b(?:_ph_\d+_)+")

MISSING = object()


def lookup_global(fn, name):
    """The value `name` has for fn: a closure cell, else a module global,
    else MISSING. `name` may be (function, name): the name as that
    function sees it (a free name of an inlined function)."""
    if isinstance(name, tuple):
        fn, name = name
    if fn.__code__.co_freevars and fn.__closure__:
        for n, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            if n == name:
                try:
                    return cell.cell_contents
                except ValueError:
                    return MISSING
    return fn.__globals__.get(name, MISSING)


def is_user_function(obj) -> bool:
    """Whether obj is the user's own Python function (inlined), not a
    library's (NumPy's Python functions are compiled as NumPy functions)."""
    obj = getattr(obj, "py_func", obj)
    if not isinstance(obj, types.FunctionType) or obj.__name__ == "<lambda>":
        return False
    return not obj.__code__.co_filename.startswith(_LIBRARY_DIRS) and \
        not (obj.__module__ or "").startswith("pyhalide.")


_LIBRARY_DIRS = tuple(sorted({os.path.realpath(sysconfig.get_path(k)) + os.sep
                              for k in ("stdlib", "platstdlib", "purelib", "platlib")} |
                             {sysconfig.get_path(k) + os.sep
                              for k in ("stdlib", "platstdlib", "purelib", "platlib")}))


def user_name(name: str) -> str:
    """The name a renamed local has in the user's source (also: a text
    with every renamed local spelled so)."""
    return _PREFIXED.sub("", name)
