"""np.roll, np.repeat and np.diff of array values: index arithmetic over
their source (no copy), NumPy's shapes, dtypes and memory orders (roll's
and diff's results are laid out in their source's order, as NumPy's;
repeat's in C order)."""
from __future__ import annotations

import ast

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from .array_shape import clamp_index, size_node
from .arrayexpr import ArrayExpr, k_order
from .types import PY_INT
from .values import TupleVal, Val, const_val


def _args(b, fn, node, names, required):
    """The call's arguments by parameter name (positional, then keywords);
    a located error for unknown keywords or missing arguments."""
    if any(isinstance(a, ast.Starred) for a in node.args) or len(node.args) > len(names):
        raise b.cx.err(node, f"{fn.__name__}() takes at most {len(names)} positional arguments "
                             f"here")
    out = dict(zip(names, (b.ev(a) for a in node.args)))
    for k in node.keywords:
        if k.arg not in names or k.arg in out:
            raise b.cx.err(k, f"keyword {k.arg!r} of np.{fn.__name__} is not supported",
                           hint=f"supported: {', '.join(names)}")
        out[k.arg] = b.ev(k.value)
    for n in names[:required]:
        if n not in out:
            raise b.cx.err(node, f"np.{fn.__name__}() needs {n!r}")
    return out


def _source(b, v, node, fn) -> ArrayExpr:
    a = b.array_code.as_array(v, node)
    if a is None:
        raise b.cx.err(node, f"np.{fn.__name__}() of {b.describe_obj(v)} is not supported",
                       hint="pass an array")
    return a


def _static_int(b, v, node, what) -> Val:
    if not isinstance(v, Val) or not v.ty.is_int() or v.ty.is_bool() or not v.is_static:
        raise b.cx.err(node, f"{what} must be an integer known before the arrays are read "
                             f"(a constant, a scalar argument or a size)")
    return ops.to_python_int(b.cx, v) if v.ty.kind != "int" else v


def _axis(b, v, ndim, node, fn) -> int | None:
    if v is None or (isinstance(v, Val) and v.is_const and v.const is None):
        return None
    if not (isinstance(v, Val) and v.is_const and isinstance(v.const, int)):
        raise b.cx.err(node, f"the axis of np.{fn.__name__} must be a constant integer")
    k = v.const
    if not -ndim <= k < ndim:
        raise b.cx.err(node, f"axis {k} is out of bounds for array of dimension {ndim}")
    return k % ndim


def _flat_1d(b, a: ArrayExpr, node, fn) -> ArrayExpr:
    if a.ndim != 1:
        raise b.cx.err(node, f"np.{fn.__name__} without an axis flattens the array: supported "
                             f"for 1-D arrays", hint="give axis=")
    return a


def _along_axis(b, fn, node, count):
    """The arguments of np.roll / np.repeat (a, `count`, axis), the array,
    and the axis (0 of the array itself where none is given: 1-D only)."""
    args = _args(b, fn, node, ("a", count, "axis"), 2)
    src = _source(b, args["a"], node, fn)
    b.cx.cur_node = node
    axis = _axis(b, args.get("axis"), src.ndim, node, fn)
    if axis is None:
        src, axis = _flat_1d(b, src, node, fn), 0
    return args, src, axis


def _index64(n):
    return ops.cast(ir.Int(64), n)


@array_calls.function(np.roll)
def roll(b, fn, node):
    """np.roll(a, shift, axis): shift and axis integers or tuples of them
    (NumPy broadcasts them against each other and adds the shifts of an
    axis named twice); no axis rolls the array flattened in C order (its
    result C-ordered, as NumPy's reshape of the rolled ravel)."""
    args = _args(b, fn, node, ("a", "shift", "axis"), 2)
    src = _source(b, args["a"], node, fn)
    cx = b.cx
    cx.cur_node = node
    shifts = [_static_int(b, v, node, "the shift of np.roll") for v in _items(args["shift"])]
    axis_v = args.get("axis")
    if axis_v is None or (isinstance(axis_v, Val) and axis_v.is_const and axis_v.const is None):
        if src.ndim == 1:
            return ArrayExpr(src.shape, src.ty, _rolled(cx, src, {0: shifts}), node,
                             order=k_order(src))
        return ArrayExpr(src.shape, src.ty, _rolled_flat(cx, src, shifts), node)
    axes = [_axis(b, v, src.ndim, node, fn) for v in _items(axis_v)]
    if None in axes:
        raise b.cx.err(node, "the axes of np.roll must be constant integers")
    if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
        raise b.cx.err(node, f"np.roll: {len(shifts)} shifts and {len(axes)} axes (NumPy's "
                             f"ValueError: shape mismatch)")
    pairs = list(zip(shifts * len(axes) if len(shifts) == 1 else shifts,
                     axes * len(shifts) if len(axes) == 1 else axes))
    by_axis = {}
    for sh, ax in pairs:
        by_axis.setdefault(ax, []).append(sh)
    # NumPy fills np.empty_like(a): a's memory order (order='K')
    return ArrayExpr(src.shape, src.ty, _rolled(cx, src, by_axis), node, order=k_order(src))


def _items(v) -> list:
    return list(v.items) if isinstance(v, TupleVal) else [v]


def _back(cx, i, shifts, size):
    """The index (int64) whose element a roll by the sum of `shifts` (as
    Python's ints: no wrap-around) places at index i along an axis of `size`
    elements (IR integer Mod is Euclidean); a shift not known to be small is
    reduced first, so i - s cannot wrap."""
    total = None
    for shift in shifts:
        s = _index64(ops.node_of(cx, shift))
        if not (shift.is_const and abs(shift.const) < 2 ** 31):
            s = ir.Mod(s, size)
        total = s if total is None else ir.Add(total, s)
    return ir.Mod(ir.Sub(i, total), size)


def _rolled(cx, src, amounts):
    """elem(idx) of src rolled by the sum of amounts[axis] along each axis given."""
    def elem(idx):
        out = list(idx)
        for axis, shifts in amounts.items():
            size = _index64(ops.node_of(cx, src.shape[axis]))
            out[axis] = ops.cast(ir.INDEX, _back(cx, _index64(idx[axis]), shifts, size))
        return src.elem(out)
    return elem


def _rolled_flat(cx, src, shifts):
    """elem(idx) of src rolled by the sum of `shifts` over its C-order flattening."""
    def elem(idx):
        sizes = [_index64(ops.node_of(cx, n)) for n in src.shape]
        flat, total = ir.Const(ir.Int(64), 0), ir.Const(ir.Int(64), 1)
        for i, n in zip(idx, sizes):
            flat = ir.Add(ir.Mul(flat, n), _index64(i))
            total = ir.Mul(total, n)
        g = _back(cx, flat, shifts, total)
        out, stride = [None] * len(idx), ir.Const(ir.Int(64), 1)
        for k in reversed(range(len(idx))):
            # (g // stride) % n: the value, its bounds known to the reads
            out[k] = ops.cast(ir.INDEX, ir.Mod(ir.Div(g, stride), sizes[k]))
            stride = ir.Mul(stride, sizes[k])
        return src.elem(out)
    return elem


@array_calls.function(np.repeat)
def repeat(b, fn, node):
    args, src, axis = _along_axis(b, fn, node, "repeats")
    reps = _static_int(b, args["repeats"], node, "repeats")
    if reps.is_const and reps.const < 0:
        raise b.cx.err(node, "negative dimensions are not allowed")
    cx = b.cx
    cx.static_checks.append(_NonNegative(reps))
    shape = list(src.shape)
    shape[axis] = ops.binary(cx, "*", src.shape[axis], reps)

    def elem(idx):
        r = ops.cast(ir.INDEX, ops.node_of(cx, reps))
        out = list(idx)
        # idx // reps < n wherever the result has elements: the clamp keeps
        # the value and bounds the read (no check per element)
        out[axis] = clamp_index(ir.Div(idx[axis], ir.Max(r, ir.index(1))),
                                size_node(cx, src.shape[axis]), idx)
        return src.elem(out)

    return ArrayExpr(shape, src.ty, elem, node)


class _NonNegative:
    def __init__(self, v):
        self.v = v

    def __call__(self, env):
        if self.v.static(env) < 0:
            raise ValueError("negative dimensions are not allowed")


@array_calls.function(np.diff)
def diff(b, fn, node):
    args = _args(b, fn, node, ("a", "n", "axis"), 1)
    src = _source(b, args["a"], node, fn)
    b.cx.cur_node = node
    n = args.get("n", const_val(1))
    if not (isinstance(n, Val) and n.is_const and isinstance(n.const, int) and n.const >= 0):
        raise b.cx.err(node, "n of np.diff must be a constant integer >= 0")
    axis_v = args.get("axis", const_val(-1))
    axis = _axis(b, axis_v, src.ndim, node, fn)
    if axis is None:
        raise b.cx.err(node, "np.diff needs an integer axis")
    out = src
    for _ in range(n.const):
        out = diff_once(b, out, axis, node)
    return out


def pairs(cx, size: Val) -> Val:
    """The number of adjacent pairs along an axis of `size` elements:
    max(size - 1, 0)."""
    shorter = ops.binary(cx, "-", size, const_val(1))
    zero = Val(ir.Const(ir.Int(64), 0), PY_INT, 0, 0, static=lambda env: 0, const=0)
    return ops.select(cx, cx.compare("<", shorter, zero), zero, shorter, lazy=False)


def diff_once(b, src: ArrayExpr, axis, node) -> ArrayExpr:
    cx = b.cx
    shape = list(src.shape)
    shape[axis] = pairs(cx, src.shape[axis])
    boolean = src.ty.is_bool()

    def elem(idx):
        nxt = list(idx)
        nxt[axis] = ir.Add(idx[axis], ir.index(1))
        hi, lo = src.elem(nxt), src.elem(list(idx))
        cx.cur_node = node
        # NumPy: not_equal for booleans, subtract otherwise
        return cx.compare("!=", hi, lo) if boolean else ops.binary(cx, "-", hi, lo)

    # NumPy's ufunc of the views a[1:] and a[:-1] along the axis: a's memory
    # order (order='K'; the views keep a's strides)
    return ArrayExpr(shape, src.ty, elem, node, order=k_order(src))
