"""Windows that move with a loop: `x[s:e]` (step 1) where the start s
depends on a loop variable and the length e - s does not and is known when
the function is called (`E[:, i*os : i*os + ntaps]`, `x[i - k : i]`,
`x[2*i + 1 : k + 1 + 2*i]`: window_length.py decides it on the simplified
IR).

The window is a view whose first index is Python's normalized start in the
iteration (slice.indices) and whose size is k clamped into [0, axis size],
a call-time value. Python gives another window where it is not wholly
inside the array (a start or stop past the end, or negative values that
wrap to a shorter one); there the number of elements Python selects differs
from that size, and every element read of the window raises ValueError (the
error NumPy raises when the shorter window meets an array of the full
size). Where Python's window has the size (a negative start whose stop is
negative too: the wrapped window), the view is Python's window."""
from __future__ import annotations

import ast
import itertools
import weakref

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import ops
from .ranges import Aff
from .types import PY_INT, np_ty
from .values import Arr, Val, const_val
from .window_length import invariant_length

_I64 = ir.Int(64)
_ids = itertools.count()
_SINKS = weakref.WeakKeyDictionary()     # Context -> {(statement id, node id): hidden Arr}


def window_bounds(b, it: ast.Slice, moves):
    """(start Val, length Val) when slice `it` has no step, its start moves
    with a loop (moves(start)) and its length stop - start does not
    (window_length.py); else None."""
    if it.step is not None or it.lower is None or it.upper is None:
        return None
    start = b.ev(it.lower)
    if not isinstance(start, Val) or not moves(start):
        return None
    start = b.scalar(start, it.lower, "an integer slice bound")
    stop = b.ev(it.upper)
    if not isinstance(stop, Val) or not stop.ty.is_int() or stop.ty.is_bool():
        return None
    stop = b.scalar(stop, it.upper, "an integer slice bound")
    length = invariant_length(b.cx, start, stop,
                              [lp.sym for lp in b.array_code.state.window_loops()])
    return None if length is None else (start, length)


def window_axis(cx, n: Val, start: Val, length: Val, name: str, axis: int):
    """(first index node, size Val, check) of the window [start, start +
    length) over an axis of size n: the check is (ok node, "ValueError",
    message) for array_index.guard."""
    nn = cast(_I64, ops.node_of(cx, n))
    s = cast(_I64, ops.node_of(cx, start))
    k = cast(_I64, ops.node_of(cx, length))
    zero = ir.Const(_I64, 0)

    def norm(x):
        return ir.Select(ir.LT(x, zero), ir.Max(ir.Add(x, nn), zero), ir.Min(x, nn))

    first = norm(s)
    count = ir.Max(ir.Sub(norm(ir.Add(s, k)), first), zero)
    size = _size(cx, n, length, ir.Max(ir.Min(k, nn), zero))
    ok = ir.EQ(count, cast(_I64, ops.node_of(cx, size)))
    msg = (f"array {name!r}: in this iteration the window along axis {axis} is not "
           f"wholly inside the array (NumPy would select a shorter or wrapped window; "
           f"compiled code handles windows of the length known at call time only)")
    return cast(ir.INDEX, first), size, (ok, "ValueError", msg)


def _size(cx, n: Val, length: Val, node) -> Val:
    """min(max(length, 0), n) as a Python-int Val with its call-time value."""
    if n.is_const and length.is_const:
        return const_val(min(max(int(length.const), 0), int(n.const)))
    fk, fn = length.static, n.static

    def size(env):
        return min(max(int(fk(env)), 0), int(fn(env)))

    sym = f"len(window#{next(_ids)})"
    hi = n.hi if n.hi is not None else 2**31 - 1
    cx.syms.add(sym, 0, hi)
    node = cast(ir.INDEX, node)
    cx.sym_nodes[sym] = node
    cx.sym_static[sym] = size
    return Val(node, PY_INT, 0, hi, [Aff.sym(sym)], [Aff.sym(sym)], static=size)


def check_where_made(b, check, node):
    """Inside a loop: the window's check, stored at each iteration into a
    hidden 0-d array of its own (it raises where Python makes the window)."""
    cx = b.cx
    if cx.typing or not b.array_code.state.loops:
        return
    key = (id(cx.stmt), id(node))
    sinks = _SINKS.setdefault(cx, {})
    arr = sinks.get(key)
    if arr is None:
        arr = sinks[key] = Arr("window_check", np_ty(np.dtype(bool)), [], "local",
                               cx.smap.loc(node))
    b.arrays.write(arr, [], cx.guard(const_val(True), *check), node)
