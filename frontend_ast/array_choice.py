"""A name bound to one of two arrays by a condition: `x = a if flag else b`,
or `if flag: x = a` / `else: x = b[1:]`, where an array is also known by
another name (an argument, a name bound before the `if`), so that x aliases
it in Python.

The value is a new array selecting, element by element, the chosen array's
element (each side read at its index clamped into its own shape where the
two shapes may differ; the shape is the chosen array's, which is why a
condition deciding between different sizes must be known when the call
starts). Reads through x then see what Python's x holds. A write through x
would have to reach the chosen array: it is a located error
(Arr.writes_refused). Returning x returns what Python returns: the argument
itself where x is a whole argument (Arr.alternatives, specialize.py)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import ops
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr, k_order, same_size
from .limits import limit
from .result_order import chosen
from .values import Arr, with_type_range


def choose(b, name, cond, vt, ve, node):
    """The array `name` holds: vt where cond holds, else ve (b: the
    exprs.Expressions; cond a Val; vt, ve arrays or array values)."""
    cx, ac = b.cx, b.array_code
    if vt is ve:
        return vt
    if ac.state.loops:
        raise cx.err(node, f"binding {name!r} to one of two arrays by a condition inside a "
                           f"loop is not supported yet" if name else
                     "a conditional expression choosing between arrays inside a loop is not "
                     "supported yet", hint="choose before the loop, or choose elements: "
                                           "a[i] if flag else b[i]")
    x, y = ac.as_array(vt, node), ac.as_array(ve, node)
    what = f"{name!r}" if name else "this conditional expression"
    if x is None or y is None or x.ty != y.ty or x.ndim != y.ndim:
        raise cx.err(node, f"{what} is an array of one dtype and number of dimensions on one "
                           f"path and {'not an array' if x is None or y is None else 'another'} "
                           f"on the other: not supported",
                     hint="give it the same dtype and number of dimensions on both paths")
    truth = ops.truth(cx, cond)
    ragged = [k for k in range(x.ndim) if not same_size(cx, x.shape[k], y.shape[k])]
    if ragged and not truth.is_static:
        # decided by the data: the sizes must be equal when the call starts
        if any(p.is_const and q.is_const for p, q in
               ((x.shape[k], y.shape[k]) for k in ragged)):
            raise cx.err(node, f"{what} names arrays of different sizes by a condition known "
                               f"only while the function runs (its size would depend on the "
                               f"data)", hint="give both arrays the same shape")
        for k in ragged:
            cx.static_checks.append(SameSizeAtCall(
                x.shape[k], y.shape[k], f"{what} names one of two arrays by a condition on the "
                f"data, and their sizes differ in this call (the result's size would depend on "
                f"the data)", cx.smap.loc(node)))
        ragged = []
    shape = [ops.select(cx, truth, p, q, lazy=False) if k in ragged else p
             for k, (p, q) in enumerate(zip(x.shape, y.shape))]

    def elem(idx):
        a = x.elem(_clamped(cx, x, idx, ragged))
        c = y.elem(_clamped(cx, y, idx, ragged))
        cx.cur_node = node
        return with_type_range(ops.select(cx, truth, a, c, lazy=False))
    # NumPy's memory order: the chosen array's
    order = chosen(truth, k_order(x), k_order(y), f"{what} (chosen by a condition)",
                   cx.smap.loc(node))
    arr = ac.materialize(ArrayExpr(shape, x.ty, elem, node, order=order), name or "chosen", node)
    bases = [v.view[0] if isinstance(v, ArrayExpr) else v for v in (vt, ve)
             if isinstance(v, Arr) or (isinstance(v, ArrayExpr) and v.view is not None)]
    if not bases:
        return arr                  # two new arrays: x aliases nothing
    line = cx.smap.loc(node).line
    arr.writes_refused = (
        f"{what} names one of two arrays, chosen by a condition, one of them also known by "
        f"another name: writing through it is not supported yet",
        "bind it to a copy on each path (x = a.copy()), or write into the arrays by their "
        "own names")
    for base in bases:
        base.writes_refused = (
            f"{base.name!r} may be the array {what} names since line {line} (chosen by a "
            f"condition): writing into it after that is not supported yet",
            "choose between copies (x = a.copy() if flag else b.copy())")
    arr.alternatives = [(truth, whole(vt)), (None, whole(ve))]
    return arr


def whole(v):
    """The array a value is whole (an Arr), else None (the chosen array is
    returned as a new array)."""
    if isinstance(v, Arr):
        return v
    if isinstance(v, ArrayExpr) and v.view is not None and is_whole_view(v):
        return v.view[0]
    return None


def _clamped(cx, a, idx, ragged):
    out = list(idx)
    for k in ragged:
        n = cast(ir.INDEX, ops.node_of(cx, a.shape[k]))
        out[k] = ir.Max(ir.Min(out[k], ir.Sub(n, ir.index(1))), ir.index(0))
    return out


class SameSizeAtCall:
    """Call-time check that two sizes are equal: NotImplementedError with
    `message` otherwise (Python would run with the two sizes; the compiled
    code has one)."""

    def __init__(self, a, b, message, loc):
        self.a, self.b, self.message, self.loc = a, b, message, loc

    def __call__(self, env):
        p, q = self.a.static(env), self.b.static(env)
        if p != q:
            where = f"{self.loc.file}:{self.loc.line}: " if self.loc is not None else ""
            raise limit(NotImplementedError(f"{where}{self.message} ({p} and {q}): "
                                            f"not supported yet"))
