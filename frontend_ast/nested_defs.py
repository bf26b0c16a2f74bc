"""Helper functions defined inside the decorated function (a rewrite of
rewrites.py, order 8, before the calls of user functions are inlined):

    def f(a):
        def sq(x):                      (removed)
            return x * x
        s = 0.0
        for v in a:
            s += sq(v)                  inlined by inline_calls.py as a call of a
                                        module-level function would be

The `def` statement is removed and every call of its name is marked with a
stand-in function object (NESTED_ATTR holds the def's tree and the
enclosing function's SourceMap), which inline_calls.py inlines like a
module-level helper, except that the helper's free names are left to the
enclosing function: Python reads a nested function's free variables when it
is called, so its body means at the call site what it means in the helper
(late binding; assignments inside it make its own locals, renamed apart).

The def must be a statement of the function's top level, its name bound by
nothing else, and the name only called, by statements after the def (a call
before it raises in Python); its parameters are positional, with constant
defaults, and it has no decorators. Anything else is refused where it is."""
from __future__ import annotations

import ast
import types

from .analyze import names_assigned
from .names import VALUE_ATTR
from .rewrite_registry import register

NESTED_ATTR = "_pyhalide_nested_def"   # on a stand-in function: (ast.FunctionDef, SourceMap)


@register(8)
def nested_defs(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    found = {i: s for i, s in enumerate(tree.body) if isinstance(s, ast.FunctionDef)}
    if not found:
        return tree
    fn = getattr(py_fn, "py_func", py_fn)
    stand_ins = {}
    for i, d in found.items():
        _check(tree, smap, i, d, stand_ins)
        stand_ins[d.name] = (i, _stand_in(d, smap, fn))
    _mark_calls(tree, smap, stand_ins)
    tree.body = [s for j, s in enumerate(tree.body) if j not in found]
    return tree


def _check(tree, smap, i, d, earlier):
    a = d.args
    if d.decorator_list:
        raise smap.error(d, f"the nested function {d.name!r} has decorators, which are not "
                            f"supported", hint="define it at module level")
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise smap.error(d, f"the nested function {d.name!r} has `*`/`**`/keyword-only "
                            f"parameters, which are not supported",
                         hint="use plain positional parameters")
    for v in a.defaults:
        if not isinstance(v, ast.Constant):
            raise smap.error(v, f"a default of the nested function {d.name!r} must be a "
                                f"constant here (it is evaluated when the def runs)",
                             hint="pass the value as an argument")
    params = {p.arg for p in tree.args.args + tree.args.kwonlyargs}
    rest = tree.body[:i] + tree.body[i + 1:]
    if d.name in params or d.name in earlier or d.name in names_assigned(
            [s for s in rest if not isinstance(s, ast.FunctionDef)]):
        raise smap.error(d, f"{d.name!r} names this nested function and is bound elsewhere in "
                            f"the function too, which is not supported",
                         hint="give the nested function a name of its own")


def _stand_in(d, smap, fn):
    """A function object standing for the nested def: its name, its
    defaults, the enclosing function's file and module (a user function),
    and NESTED_ATTR."""
    params = ", ".join(p.arg for p in d.args.args)
    code = compile(f"def {d.name}({params}):\n    pass\n", fn.__code__.co_filename, "exec")
    fcode = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    defaults = tuple(v.value for v in d.args.defaults) or None
    stub = types.FunctionType(fcode, fn.__globals__, d.name, defaults)
    stub.__module__ = fn.__module__
    stub.__qualname__ = f"{fn.__qualname__}.<locals>.{d.name}"
    setattr(stub, NESTED_ATTR, (d, smap))
    return stub


def _mark_calls(tree, smap, stand_ins):
    """Mark every call of a nested def's name with its stand-in (stand_ins:
    name -> (index of the def, stand-in)); refuse other uses and calls in
    statements before the def."""
    calls = {id(c.func) for c in ast.walk(tree)
             if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
    for j, s in enumerate(tree.body):
        for n in ast.walk(s):
            if not isinstance(n, ast.Name) or n.id not in stand_ins:
                continue
            name = n.id
            i, stub = stand_ins[name]
            if id(n) not in calls or not isinstance(n.ctx, ast.Load):
                raise smap.error(n, f"the nested function {name!r} is used here other than by "
                                    f"calling it, which is not supported",
                                 hint="call it; pass values, not functions")
            if j < i:
                where = "in a nested function defined before it" \
                    if isinstance(s, ast.FunctionDef) else "before its `def` runs (Python " \
                                                           "raises UnboundLocalError)"
                raise smap.error(n, f"{name!r} is called {where}, which is not supported",
                                 hint="define the function first")
            setattr(n, VALUE_ATTR, (stub,))
