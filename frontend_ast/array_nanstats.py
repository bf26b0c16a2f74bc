"""np.nancumsum, np.nancumprod, np.nanvar, np.nanstd and np.nanmedian of
NumPy-style array code, as numpy/lib/_nanfunctions_impl.py computes them
for ndarrays (arrays that are not float have no NaN: the plain function).

- nancumsum/nancumprod: NaN replaced by 0 (1), then np.cumsum (np.cumprod).
- nanvar(a, axis, ddof, keepdims): arr = a with NaN as 0; cnt the number of
  non-NaN elements (intp); avg = sum(arr) / cnt (divided in NumPy's
  promotion, cast back: _divide_by_count); the deviations arr - avg, 0 at the
  NaNs, squared and summed (np.sum's order); divided by dof = cnt - ddof; NaN
  where dof <= 0. nanstd is its square root in the result's dtype.
- nanmedian(a, axis, keepdims): the median of the non-NaN elements of each
  slice: the slice sorted (array_sort.py: NaNs last), k its non-NaN count,
  the element at (k - 1) // 2 when k is odd, else (s[k/2 - 1] + s[k/2]) / 2
  in the dtype (np.median's mean of two), NaN for k == 0 (also for an empty
  axis: the two elements are picked by reductions over the axis). Integer and
  bool arrays: np.median.
dtype=, out=, where= are located errors."""
from __future__ import annotations

import ast

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from .array_args import axes_of, axis_order, flag_of, operand_of, parse_args
from .array_reduce import INTP, divide, finish, fold, reduce_call, reduction, total
from .array_scan import cumulative
from .array_sort import sort_value
from .arrayexpr import ArrayExpr, k_order
from .values import Val, const_val

_SIG_VAR = ("axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction")


def _rest(node):
    """The call without its first argument (as a method call on it)."""
    return ast.copy_location(ast.Call(node.func, list(node.args[1:]), list(node.keywords)),
                             node)


def _nan_as(cx, a: ArrayExpr, fill, node) -> ArrayExpr:
    t = a.ty.ir()

    def elem(i):
        cx.cur_node = node
        n = ops.node_of(cx, a.elem(i))
        return Val(ir.Select(ops.is_nan(n), ir.Const(t, fill), n), a.ty)
    # NumPy's _replace_nan copies a (np.array(a, copy=True)): a's memory order
    return ArrayExpr(list(a.shape), a.ty, elem, node, order=k_order(a))


def _operand(b, node, what):
    if not node.args:
        raise b.cx.err(node, f"np.{what}() needs an array")
    a = operand_of(b, b.ev(node.args[0]), node.args[0])
    if a.ty.is_complex():
        raise b.cx.err(node, f"np.{what} of complex arrays is not supported yet")
    return a


@array_calls.function(np.nancumsum, np.nancumprod)
def _nancum(b, fn, node):
    what = fn.__name__
    a = _operand(b, node, what)
    plain = what[3:]
    if a.ty.is_float():
        a = _nan_as(b.cx, a, 0.0 if plain == "cumsum" else 1.0, node)
    return cumulative(b, plain, a, _rest(node))


def _no_dtype(b, got, what):
    for k in ("dtype", "mean", "correction"):
        if k in got and got[k][0] is not None and not (
                isinstance(got[k][0], Val) and got[k][0].is_const and got[k][0].const is None):
            raise b.cx.err(got[k][1], f"{k}= of np.{what} is not supported in compiled code",
                           hint="cast the array first (a.astype(np.float64))" if k == "dtype"
                           else "use ddof=")


@array_calls.function(np.nanvar, np.nanstd)
def _nanvar(b, fn, node):
    what = fn.__name__
    a = _operand(b, node, what)
    if not a.ty.is_float():
        return reduce_call(b, what[3:], None, node)
    got = parse_args(b, what, None, node, _SIG_VAR)
    _no_dtype(b, got, what)
    cx, ac = b.cx, b.array_code
    axes = axes_of(b, got, a.ndim)
    ddof, where = got.get("ddof", (const_val(0), node))
    if not isinstance(ddof, Val) or ddof.ty.is_complex():
        raise cx.err(where, "ddof must be a number")
    kept = [k for k in range(a.ndim) if k not in axes]
    notnan = ArrayExpr(a.shape, INTP, lambda i: Val(ir.Cast(ir.Int(64), ir.Not(
        ops.is_nan(ops.node_of(cx, a.elem(i))))), INTP), node)
    cnt = fold(ac, notnan, axes, INTP, "+", 0, node, what + "_count")
    arr = _nan_as(cx, a, 0.0, node)
    sums = total(ac, arr, axes, a.ty, node, what + "_mean")

    def dev(i):
        cx.cur_node = node
        k = [i[j] for j in kept]
        avg = divide(cx, sums.elem(k), cnt.elem(k))
        x = a.elem(i)
        d = ops.binary(cx, "-", arr.elem(i), avg)
        d = Val(ir.Select(ops.is_nan(ops.node_of(cx, x)), ir.Const(a.ty.ir(), 0.0),
                          ops.node_of(cx, d)), a.ty)
        return ops.binary(cx, "*", d, d)
    # (computed in place in NumPy's copy of a: its memory order)
    sq = total(ac, ArrayExpr(a.shape, a.ty, dev, node, order=arr.order), axes, a.ty, node, what)

    def result(k):
        cx.cur_node = node
        dof = ops.binary(cx, "-", cnt.elem(k), ddof)
        v = divide(cx, sq.elem(k), dof)
        n = ops.node_of(cx, v)
        if what == "nanstd":
            n = ir.Call(n.type, "sqrt", (n,), ir.INTRINSIC)
        bad = ir.LE(ops.node_of(cx, dof), ir.Const(ops.node_of(cx, dof).type, 0))
        return Val(ir.Select(bad, ir.Const(n.type, float("nan")), n), a.ty)
    out = ArrayExpr(sq.shape, a.ty, result, node)
    return finish(ac, out, axes, a.ndim, flag_of(b, got, "keepdims"), node)


@array_calls.function(np.nanmedian)
def _nanmedian(b, fn, node):
    a = _operand(b, node, "nanmedian")
    if not a.ty.is_float():
        return array_calls.handler_of(np.median)(b, np.median, node)
    got = parse_args(b, "nanmedian", None, node, ("axis", "out", "overwrite_input",
                                                  "keepdims"))
    cx, ac = b.cx, b.array_code
    for k in ("out", "overwrite_input"):
        if k in got and not (got[k][0] is None or (isinstance(got[k][0], Val) and
                                                   got[k][0].is_const and not got[k][0].const)):
            raise cx.err(got[k][1], f"{k}= of np.nanmedian is not supported in compiled code")
    if a.ndim == 0:
        raise cx.err(node, "np.nanmedian of a 0-d value is not supported",
                     hint="pass an array of at least one dimension")
    order = axis_order(b, got, a.ndim, single=True)
    axis = None if order is None else order[0]
    s = sort_value(b, a, axis, node)
    ax = 0 if axis is None else axis
    axes = tuple(range(a.ndim)) if axis is None else (axis,)
    notnan = ArrayExpr(s.shape, INTP, lambda i: Val(ir.Cast(ir.Int(64), ir.Not(
        ops.is_nan(ops.node_of(cx, s.elem(i))))), INTP), node)
    cnt = fold(ac, notnan, (ax,), INTP, "+", 0, node, "nanmedian_count")
    t = a.ty.ir()
    nan = ir.Const(t, float("nan"))

    def picked(which):
        """The sorted element at the position which(count) of each slice,
        NaN where the count is 0, by a reduction over the axis (nothing is
        read along an empty axis): the elements there are numbers, NaN marks
        the others."""
        def elem(i):
            cx.cur_node = node
            k = i[:ax] + i[ax + 1:]
            c = ops.cast(ir.INDEX, ops.node_of(cx, cnt.elem(k)))
            v = ops.node_of(cx, s.elem(i))
            return Val(ir.Select(ir.EQ(i[ax], which(c)), v, nan), a.ty)

        def step(cx, state, x, r):
            xn = ops.node_of(cx, x)
            return [Val(ir.Select(ops.is_nan(xn), state[0].node, xn), a.ty)]
        return reduction(ac, ArrayExpr(s.shape, a.ty, elem, node), (ax,), [a.ty], [nan], step,
                         "nanmedian_pick", node)
    lows = picked(lambda c: ir.Div(ir.Sub(c, ir.index(1)), ir.index(2)))
    highs = picked(lambda c: ir.Div(c, ir.index(2)))

    def result(k):
        cx.cur_node = node
        c = ops.cast(ir.INDEX, ops.node_of(cx, cnt.elem(k)))
        lo, hi = lows.elem(k), highs.elem(k)
        one = divide(cx, lo, ops.convert(cx, const_val(1), INTP))
        two = divide(cx, ops.binary(cx, "+", lo, hi), ops.convert(cx, const_val(2), INTP))
        odd = ir.EQ(ir.Mod(c, ir.index(2)), ir.index(1))
        v = ir.Select(odd, ops.node_of(cx, one), ops.node_of(cx, two))
        return Val(ir.Select(ir.EQ(c, ir.index(0)), nan, v), a.ty)
    out = ArrayExpr(cnt.shape, a.ty, result, node)
    return finish(ac, out, axes, a.ndim, flag_of(b, got, "keepdims"), node)
