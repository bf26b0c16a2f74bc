"""The calls a `for p in np.ndindex(shape)` loop is rewritten into
(loop_forms.py, loop_seqs.NdIndex): the number of positions and the
position k as a tuple of Python ints, in C order, as np.ndindex yields;
and `np.unravel_index(k, shape)` of one integer k anywhere else (the tuple
of NumPy intp coordinates, C order; ValueError where k is outside [0,
the shape's size), as NumPy raises)."""
from __future__ import annotations

import numpy as np

from . import complex_values as C
from . import ops
from .loop_seqs import NDINDEX_ATTR
from .types import NP, Ty
from .values import TupleVal, Val, const_val


def handles(f, node) -> bool:
    return f in (np.ndindex, np.unravel_index)


def call(b, f, node):
    made = getattr(node, NDINDEX_ATTR, None)
    if made is None and f is np.unravel_index:
        return _unravel(b, node)
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


def _unravel(b, node) -> TupleVal:
    """np.unravel_index(k, shape) of one integer k: k's coordinates as intp."""
    cx = b.cx
    if len(node.args) != 2 or node.keywords:
        raise cx.err(node, "np.unravel_index() takes an index and a shape here (no order=)",
                     hint="write np.unravel_index(k, a.shape)")
    k = b.ev(node.args[0])
    if not isinstance(k, Val) or k.union or not (k.ty.is_int() or k.ty.is_bool()) \
            or C.is_complex(k):
        raise cx.err(node.args[0], "np.unravel_index() takes one integer index here "
                                   "(an array of indices is not supported)",
                     hint="unravel each index: np.unravel_index(int(k), a.shape)")
    sizes = _sizes(b, node.args[1])
    cx.cur_node = node
    intp = Ty(NP, np.intp)
    n = _count(cx, sizes)
    k = ops.cast_to(cx, k, intp)
    inside = ops.truth(cx, ops.binary(cx, "&", cx.compare(">=", k, const_val(0)),
                                      cx.compare("<", k, n)))
    if not (inside.is_const and inside.const):
        k = cx.guard(k, ops.node_of(cx, inside), "ValueError",
                     "index is out of bounds for array with the size of the shape given "
                     "to np.unravel_index")
    return _position(cx, k, [ops.cast_to(cx, s, intp) for s in sizes])


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
