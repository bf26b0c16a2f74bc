"""The calls a `for p in np.ndindex(shape)` loop is rewritten into
(loop_forms.py, loop_seqs.NdIndex): the number of positions and the
position k as a tuple of Python ints, in C order, as np.ndindex yields."""
from __future__ import annotations

import numpy as np

from . import ops
from .loop_seqs import NDINDEX_ATTR
from .values import TupleVal, Val, const_val


def handles(f, node) -> bool:
    return f in (np.ndindex, np.unravel_index)


def call(b, f, node):
    made = getattr(node, NDINDEX_ATTR, None)
    if made is None:
        what = "np.ndindex()" if f is np.ndindex else "np.unravel_index()"
        raise b.cx.err(node, f"{what} is supported only as the iterable of a `for` loop"
                             + (" (np.ndindex)" if f is np.unravel_index else ""),
                       hint="write `for p in np.ndindex(a.shape):`")
    sizes = _sizes(b, node.args[-1])
    b.cx.cur_node = node
    if made == "ndindex":
        return _count(b.cx, sizes)
    return _position(b.cx, b.ev_val(node.args[0]), sizes)


def _sizes(b, arg) -> list:
    v = b.ev(arg)
    items = list(v.items) if isinstance(v, TupleVal) else [v]
    for x in items:
        if not isinstance(x, Val) or not (x.ty.is_int() or x.ty.is_bool()) or x.union:
            raise b.cx.err(arg, "np.ndindex() takes integer sizes (a shape or integers)",
                           hint="write np.ndindex(a.shape)")
    return [ops.to_python_int(b.cx, x) for x in items]


def _count(cx, sizes) -> Val:
    """The product of the sizes; ValueError where one is negative."""
    out = const_val(1)
    for s in sizes:
        ok = ops.truth(cx, cx.compare(">=", s, const_val(0)))
        if not (ok.is_const and ok.const):
            s = cx.guard(s, ops.node_of(cx, ok), "ValueError", "negative dimensions are not "
                                                                "allowed")
        out = ops.binary(cx, "*", out, s)
    return out


def _position(cx, k: Val, sizes) -> TupleVal:
    """k as an index into the sizes, last axis fastest (0 <= k < product)."""
    out = []
    for j in range(len(sizes) - 1, -1, -1):
        if j == 0:
            out.append(k)
        else:
            out.append(ops.binary(cx, "%", k, sizes[j]))
            k = ops.binary(cx, "//", k, sizes[j])
    return TupleVal(out[::-1])
