"""Scans of NumPy-style array code: np.cumsum, np.cumprod (and the methods),
np.maximum.accumulate, np.minimum.accumulate, np.add.accumulate,
np.multiply.accumulate.

A scan is a serial scan Func over the result's shape: its pure definition
is the element (cast to the result dtype), then one update over an RDom of
the scanned axis from 1 that combines the previous element of the result
with it (`f(r) = f(r - 1) op x(r)`, NumPy's sequential order, so float
scans equal NumPy's bit for bit). The update's RVar is
`p.vars[func, "axis<k>"]`. `axis=None` (cumsum, cumprod) scans the array
flattened in C order; result dtypes are NumPy's."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.simplify import simplify
from pyhalide.var import RDom

from . import array_calls, ops
from .array_args import axes_of, dtype_of, numpy_ty, operand_of, parse_args
from .array_reduce import element_val, extent
from .array_shape import derived
from .arrayexpr import ArrayExpr, element_node, k_order
from .lifted import LiftedFunc
from .values import Arr, Val, const_val


def scan(ac, operand: ArrayExpr, axis, ty, op, name, node) -> ArrayExpr:
    """The scan of operand along `axis` by op (step(cx, previous, element)
    -> Val), in type ty. An operand that is a view running backwards along
    the axis (`x[::-1]`) is scanned in the order of its base: the Func holds
    element i of the result at position n - 1 - i (the same additions in
    the same order), so that the reads go forwards and a reversal of the
    result (`np.cumsum(x[::-1])[::-1]`) is the Func itself (with the default
    or an automatic schedule, which then keeps it serial: a user schedule's
    parallel_scan needs the scan written at its RVar)."""
    cx = ac.cx
    cx.cur_node = node
    arr = Arr(name, ty, list(operand.shape), "local", cx.smap.loc(node))
    arr.memory_order = k_order(operand)    # NumPy's order='K'
    f = ac.new_func(name, arr)
    vars_ = [ac.defs.axis_var(arr, k) for k in range(arr.ndim)]
    key = tuple(reversed(vars_))
    n = extent(cx, operand.shape[axis])
    back = _runs_backwards(operand, axis) and cx.scheduled in (False, "auto")

    def pos(i):
        """The Func's position along the axis of result index i."""
        return ir.Sub(ir.Sub(n, ir.index(1)), i) if back else i

    def at(idx, i):
        return [i if k == axis else v for k, v in enumerate(idx)]

    # pure: position j holds the element of result index pos(j) (pos is its own inverse)
    pure_idx = [v.node for v in vars_]
    first = element_node(cx, ops.cast_to(cx, operand.elem(at(pure_idx, pos(pure_idx[axis]))),
                                         ty), ty)
    ac.defs.mark_emitted([first], f)
    ac.emitter.define(f, key, (first,), [], None, arr.loc, pure=True, label=name)
    rdom = RDom([(Expr.wrap(ir.index(1)), Expr.wrap(ir.Max(ir.Sub(n, ir.index(1)),
                                                           ir.index(0))))], "r_" + f.name())
    r = rdom[0]
    idx = [r.node if k == axis else v.node for k, v in enumerate(vars_)]
    prev = at(idx, pos(ir.Sub(r.node, ir.index(1))))
    ref = f[tuple(Expr.wrap(i) for i in reversed(prev))]
    x = ops.cast_to(cx, operand.elem(idx), ty)
    cx.cur_node = node
    val = element_node(cx, op(cx, element_val(ref.node, ty), x), ty)
    ac.defs.mark_emitted([val], f)
    upd_key = tuple(Expr.wrap(pos(r.node)) if k == axis else v
                    for k, v in reversed(list(enumerate(vars_))))
    ac.emitter.define(f, upd_key, (val,), [], rdom, arr.loc, label=name,
                      loops=[(SimpleNamespace(name=f"axis{axis}"), r)])
    if not isinstance(f, LiftedFunc):
        _skip_scanned(f.function(), vars_[axis].node, n, back)
    arr.func = f
    arr.defined = True
    arr.versions.append(f)
    whole = ac.view_of(arr, node)
    if not back:
        return whole
    return derived(whole, whole.shape, lambda idx: at(idx, pos(idx[axis])), node)


def _skip_scanned(fn, v, n, back):
    """fn's pure definition skips the positions its scan update writes
    (lowering/skip_range.py: two loops around them, here the one before the
    first position): the update reads only the position before the one it
    writes, which is the first position (the pure value) or one it wrote, so
    the pure values there are never read, and the scan is one pass over the
    operand instead of a copy and a pass."""
    first, last = (ir.index(0), ir.Sub(n, ir.index(2))) if back else \
        (ir.index(1), ir.Sub(n, ir.index(1)))
    fn.pure.predicates = list(fn.pure.predicates) + [ir.Or(ir.LT(v, first), ir.LT(last, v))]


def _runs_backwards(operand: ArrayExpr, axis) -> bool:
    """Whether operand is a view whose base index along `axis` falls as the
    index rises (`x[::-1]`, `x[::-2]`, np.flip)."""
    if operand.view is None:
        return False
    probe = [ir.Variable(ir.INDEX, f"%scan{k}") for k in range(operand.ndim)]
    base = operand.view[1](probe)
    step = [simplify(ir.Sub(ir.substitute(b, {probe[axis].name: ir.index(1)}),
                            ir.substitute(b, {probe[axis].name: ir.index(0)}))) for b in base]
    return any(isinstance(d, ir.Const) and d.value < 0 for d in step) and \
        all(isinstance(d, ir.Const) and d.value <= 0 for d in step)


def flattened(cx, operand: ArrayExpr, node) -> ArrayExpr:
    """operand as a 1-D array in C order (a 0-d array has one element)."""
    if operand.ndim == 1:
        return operand
    size = const_val(1)
    for s in operand.shape:
        size = ops.binary(cx, "*", size, s)
    shape = list(operand.shape)

    def elem(i):
        f = i[0]
        idx = []
        stride = None
        for s in reversed(shape):
            e = extent(cx, s)
            q = f if stride is None else ir.Div(f, stride)
            idx.append(ir.Mod(q, e))
            stride = e if stride is None else ir.Mul(stride, e)
        return operand.elem(list(reversed(idx)))
    return ArrayExpr([size], operand.ty, elem, node)


def _arith(op):
    return lambda cx, p, x: ops.binary(cx, op, p, x)


def _extreme(is_max):
    def step(cx, p, x):          # np.maximum / np.minimum: NaN propagates, ties give x
        a, c = p.node, ops.node_of(cx, x)
        t = a.type
        if t.is_bool():
            return Val((ir.Or if is_max else ir.And)(a, c), p.ty)
        if not t.is_float():
            return Val((ir.Max if is_max else ir.Min)(a, c), p.ty)
        better = ir.GT(a, c) if is_max else ir.LT(a, c)
        return Val(ir.Select(ir.Or(better, ops.is_nan(a)), a, c), p.ty)
    return step


_CUM = {"cumsum": (np.cumsum, "+"), "cumprod": (np.cumprod, "*")}


def cumulative(b, what, obj, node):
    got = parse_args(b, what, obj, node, ("axis", "dtype", "out"))
    a = operand_of(b, got["a"][0], got["a"][1])
    ac = b.array_code
    cx = b.cx
    fn, op = _CUM[what]
    dt = dtype_of(b, got)
    ty = numpy_ty(b, lambda: fn(np.zeros((1,), a.ty.dtype), dtype=dt).dtype, node)
    if got.get("axis", (None,))[0] is None:
        a, axis = flattened(cx, a, node), 0
    else:
        (axis,) = axes_of(b, got, a.ndim, single=True)
    return scan(ac, a, axis, ty, _arith(op), what, node)


_UFUNCS = {np.maximum.accumulate: (np.maximum, _extreme(True)),
           np.minimum.accumulate: (np.minimum, _extreme(False)),
           np.add.accumulate: (np.add, _arith("+")),
           np.multiply.accumulate: (np.multiply, _arith("*"))}


def _accumulate(b, fn, node):
    uf, step = _UFUNCS[fn]
    what = f"np.{uf.__name__}.accumulate"
    got = parse_args(b, what, None, node, ("axis", "dtype", "out"))
    a = operand_of(b, got["a"][0], got["a"][1])
    if a.ndim == 0:
        raise b.cx.err(node, f"{what} of a 0-d value: NumPy cannot accumulate on a scalar")
    if "axis" not in got:
        got["axis"] = (const_val(0), node)
    elif got["axis"][0] is None:
        raise b.cx.err(got["axis"][1], f"{what} needs an integer axis (NumPy refuses None)")
    (axis,) = axes_of(b, got, a.ndim, single=True)
    dt = dtype_of(b, got)
    ty = numpy_ty(b, lambda: fn(np.zeros((1,), a.ty.dtype), dtype=dt).dtype, node)
    return scan(b.array_code, a, axis, ty, step, uf.__name__ + "_accumulate", node)


array_calls.function(*_UFUNCS)(_accumulate)


@array_calls.function(np.cumsum, np.cumprod)
def _function(b, fn, node):
    return cumulative(b, fn.__name__, None, node)


@array_calls.method("cumsum", "cumprod")
def _method(b, obj, name, node):
    return cumulative(b, name, obj, node)
