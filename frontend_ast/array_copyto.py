"""np.copyto(dst, src, casting='same_kind') as a statement, rewritten to
`dst[...] = np.copyto(dst, src, ...)` (copyto_statements.py): the marked call
is src's value after NumPy's casting rule, and the assignment stores it
(broadcasting src to dst's shape, NumPy's checks of a stored value, src read
before anything is written). Whether NumPy
allows the cast depends only on the types (src's dtype, or for a Python
scalar its kind) and the rule, so it is asked of NumPy when compiling; a
cast NumPy refuses is a located error naming NumPy's TypeError. `where=`
other than True is refused (write `dst[mask] = src[mask]` or np.where)."""
from __future__ import annotations

import numpy as np

from . import array_calls
from .arrayexpr import ArrayExpr
from .copyto_statements import COPYTO_ATTR
from .values import Arr, Val

_RULES = ("no", "equiv", "safe", "same_kind", "unsafe")
_PARAMS = ("dst", "src", "casting", "where")


@array_calls.function(np.copyto)
def _copyto(b, fn, node):
    cx = b.cx
    if not getattr(node, COPYTO_ATTR, False):
        raise cx.err(node, "np.copyto() is compiled only as a statement of its own",
                     hint="write np.copyto(dst, src) on its own line (its value is None)")
    got = {}
    if len(node.args) > len(_PARAMS):
        raise cx.err(node, f"copyto() takes at most {len(_PARAMS)} arguments")
    for name, vnode in list(zip(_PARAMS, node.args)) + [(k.arg, k.value)
                                                        for k in node.keywords]:
        if name not in _PARAMS or name in got:
            raise cx.err(vnode, f"copyto() got an unexpected or repeated argument {name!r}")
        got[name] = vnode
    if "dst" not in got or "src" not in got:
        raise cx.err(node, "copyto() needs the arguments dst and src")
    if "where" in got and not _is_true(b.ev(got["where"])):
        raise cx.err(got["where"], "the where= argument of copyto() is not supported in "
                                   "compiled code",
                     hint="assign through the mask: dst[mask] = src[mask], or "
                          "dst[...] = np.where(mask, src, dst)")
    rule = "same_kind"
    if "casting" in got:
        v = b.ev(got["casting"])
        if not (isinstance(v, str) and v in _RULES):
            raise cx.err(got["casting"], "casting= of copyto() must be one of the constant "
                                         "strings 'no', 'equiv', 'safe', 'same_kind', 'unsafe'")
        rule = v
    dst = b.ev(got["dst"])
    if not isinstance(dst, (Arr, ArrayExpr)):
        raise cx.err(got["dst"], f"copyto() writes into an array, not into "
                                 f"{b.describe_obj(dst)}")
    src = b.ev(got["src"])
    _check_cast(b, src, b.array_code.as_array(dst, got["dst"]).ty.dtype, rule, node)
    return src


def _is_true(v) -> bool:
    return isinstance(v, Val) and v.is_const and v.const is True


def _check_cast(b, src, dst_dtype, rule, node):
    """NumPy's TypeError, as a located error, where it refuses the cast."""
    if isinstance(src, (Arr, ArrayExpr)):
        sample = np.zeros(1, b.array_code.as_array(src, node).ty.dtype)
    elif isinstance(src, Val) and not src.union:
        sample = src.ty.sample(0) if src.ty.weak else src.ty.dtype.type(0)
    else:
        return          # anything else: the assignment's own error
    try:
        np.copyto(np.zeros(1, dst_dtype), sample, casting=rule)
    except TypeError as e:
        raise b.cx.err(node, f"np.copyto raises TypeError here: {e}",
                       hint="convert the value first (src.astype(dst.dtype)) or pass "
                            "casting='unsafe'") from None
