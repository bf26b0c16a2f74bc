"""np.median, np.percentile and np.quantile of NumPy-style array code: the
sorted operand (array_sort.py) read at the positions NumPy's partition
brings into place, combined as numpy/lib/_function_base_impl.py does.

- median (_median): over the sorted axis of size n, mean(s[(n-1)//2 :
  n//2+1]) - one element (x / 1) or two ((x + y) / 2), in _mean's types
  (float64 for integers and bools, else the dtype); a NaN along the axis
  makes the result that NaN (_median_nancheck); n == 0 gives NaN (the mean
  of nothing).
- percentile / quantile with a constant Python-number q and the default
  method 'linear' (_quantile with weak q): v = (n - 1) * q in float64 (q /
  100 for percentile), prev = floor(v), next = prev + 1, both -1 where
  v >= n - 1; gamma = v - prev as a Python float t; then _lerp: d = next -
  prev in the array's dtype (integers wrap, as NumPy's subtraction does),
  prev + d * t, or next - d * (1 - t) where t >= 0.5 (NEP 50: a float32
  array stays float32, integers become float64). A NaN along the axis
  makes the result the last sorted element (a NaN); n == 0 raises NumPy's
  IndexError; q outside [0, 1] NumPy's ValueError (both at call time).
  np.quantile of an integer q (0 or 1) takes s[(n - 1) * q] in the array's
  dtype, as NumPy's integer path does."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from . import types as T
from .array_args import axis_order, flag_of, operand_of, parse_args
from .array_reduce import INTP, divide, finish, reduction
from .array_sort import sort_value
from .arrayexpr import ArrayExpr
from .values import Val, const_val

F64 = T.np_ty(np.float64)
_HINT = {"out": "assign the result instead", "overwrite_input": "leave overwrite_input False",
         "weights": "weights= is not supported: compute the weighted statistic yourself"}


def _sorted(b, what, node, got):
    """(a, the sorted value, its axis, the reduced axes of a, keepdims) of
    the parsed arguments `got`."""
    cx = b.cx
    for name in ("out", "overwrite_input", "weights"):
        if name in got and not _none_or_false(got[name][0]):
            raise cx.err(got[name][1], f"{name}= of np.{what} is not supported in compiled "
                                       f"code", hint=_HINT[name])
    if "method" in got and not (isinstance(got["method"][0], str) and
                                got["method"][0] == "linear"):
        raise cx.err(got["method"][1], f"np.{what} supports only method='linear' (the default)")
    a = operand_of(b, got["a"][0], got["a"][1])
    if a.ty.is_complex() or a.ty.is_bool() and what != "median":
        raise cx.err(node, f"np.{what} of {a.ty.describe()} arrays is not supported",
                     hint="convert the array first: a.astype(np.float64)")
    if a.ndim == 0:
        raise cx.err(node, f"np.{what} of a 0-d value is not supported",
                     hint="pass an array of at least one dimension")
    order = axis_order(b, got, a.ndim, single=True)
    axis = None if order is None else order[0]
    s = sort_value(b, a, axis, node)
    axes = tuple(range(a.ndim)) if axis is None else (axis,)
    return a, s, 0 if axis is None else axis, axes, flag_of(b, got, "keepdims")


def _none_or_false(v) -> bool:
    return v is None or (isinstance(v, Val) and v.is_const and not v.const)


def _picked(ac, s: ArrayExpr, axis, positions, ty, combine, name, node) -> ArrayExpr:
    """The array over s's axes without `axis` of combine(cx, vals, n): vals
    the sorted elements at positions(n) along the axis (index nodes, in
    [0, n) when n > 0), n its size. The elements are picked by one
    reduction over the axis (nothing is read along an empty axis)."""
    cx = ac.cx
    n = ops.cast(ir.INDEX, ops.node_of(cx, s.shape[axis]))
    ks = positions(n)
    t = s.ty.ir()

    def step(cx, state, x, r):
        v = ops.node_of(cx, x)
        return [Val(ir.Select(ir.EQ(r[axis], k), v, st.node), s.ty) for k, st in zip(ks, state)]
    return reduction(ac, s, (axis,), [s.ty] * len(ks), [ir.Const(t, 0)] * len(ks), step, name,
                     node, result=(ty, lambda cx, vals: combine(cx, vals, n)))


def _nan_last(cx, last: Val, v: Val, ty) -> Val:
    """v, or the last sorted element where it is a NaN (NumPy's NaN check)."""
    node = ops.node_of(cx, last)
    return Val(ir.Select(ops.is_nan(node), ops.node_of(cx, ops.cast_to(cx, last, ty)),
                         ops.node_of(cx, v)), ty)


def _last(n):
    return ir.Sub(n, ir.index(1))


@array_calls.function(np.median)
def _median(b, fn, node):
    got = parse_args(b, "median", None, node, ("axis", "out", "overwrite_input", "keepdims"))
    a, s, axis, axes, keepdims = _sorted(b, "median", node, got)
    floats = a.ty.is_float()
    acc = a.ty if floats else F64

    def positions(n):
        return [ir.Div(_last(n), ir.index(2)), ir.Div(n, ir.index(2)), _last(n)]

    def combine(cx, vals, n):
        cx.cur_node = node
        lo, hi = (ops.cast_to(cx, v, acc) for v in vals[:2])
        one = divide(cx, lo, ops.convert(cx, const_val(1), INTP))
        two = divide(cx, ops.binary(cx, "+", lo, hi), ops.convert(cx, const_val(2), INTP))
        odd = ir.EQ(ir.Mod(n, ir.index(2)), ir.index(1))
        v = Val(ir.Select(odd, ops.node_of(cx, one), ops.node_of(cx, two)), acc)
        empty = ir.EQ(n, ir.index(0))
        v = Val(ir.Select(empty, ir.Const(acc.ir(), float("nan")), v.node), acc)
        return _nan_last(cx, vals[2], v, acc) if floats else v
    out = _picked(b.array_code, s, axis, positions, acc, combine, "median", node)
    return finish(b.array_code, out, axes, a.ndim, keepdims, node)


@array_calls.function(np.percentile, np.quantile)
def _quantile(b, fn, node):
    what = fn.__name__
    sig = ("q", "axis", "out", "overwrite_input", "method", "keepdims")
    cx = b.cx
    got = parse_args(b, what, None, node, sig + ("weights",))
    if "q" not in got:
        raise cx.err(node, f"np.{what}() needs q")
    qv, qnode = got["q"]
    if not (isinstance(qv, Val) and qv.is_const and qv.ty.weak and
            isinstance(qv.const, (int, float)) and not isinstance(qv.const, bool)):
        raise cx.err(qnode, f"q of np.{what} must be a constant Python number here",
                     hint="write q as a literal (np.percentile(a, 95)); arrays of q and "
                          "run-time q are not supported")
    a, s, axis, axes, keepdims = _sorted(b, what, node, got)
    q = qv.const
    qf = float(np.true_divide(q, 100)) if what == "percentile" else float(q)
    _check_range(cx, qf, what, node)
    _check_nonempty(cx, s.shape[axis], node)
    floats = a.ty.is_float()
    if what == "quantile" and isinstance(q, int):       # NumPy's integer path: s[(n-1)*q]
        ty = a.ty

        def positions(n):
            return [ir.Mul(_last(n), ir.index(q)), _last(n)]

        def combine(cx, vals, n):
            return _nan_last(cx, vals[1], vals[0], ty) if floats else vals[0]
    else:
        ty = a.ty if floats else F64
        f64 = ir.Float(64)

        def virtual(n):
            return ir.Mul(ops.cast(f64, _last(n)), ir.Const(f64, qf))

        def indexes(n):
            """prev and next as _get_indexes makes them (int64; -1 the last)."""
            v, i64 = virtual(n), ir.Int(64)
            above = ir.GE(v, ops.cast(f64, _last(n)))
            below = ir.LT(v, ir.Const(f64, 0.0))
            prev = ops.cast(i64, ir.Call(f64, "floor", (v,), ir.INTRINSIC))
            pick = [ir.Select(above, ir.Const(i64, -1), ir.Select(below, ir.Const(i64, 0), e))
                    for e in (prev, ir.Add(prev, ir.Const(i64, 1)))]
            return v, pick

        def positions(n):
            _, pick = indexes(n)
            out = []
            for j in pick:
                j = ops.cast(ir.INDEX, j)
                out.append(ir.Select(ir.LT(j, ir.index(0)), ir.Add(j, n), j))
            return out + [_last(n)]

        def combine(cx, vals, n):
            cx.cur_node = node
            v, pick = indexes(n)
            gamma = ir.Sub(v, ops.cast(f64, pick[0]))
            r = _lerp(cx, vals[0], vals[1], Val(gamma, T.PY_FLOAT), gamma, ty)
            return _nan_last(cx, vals[2], r, ty) if floats else r
    out = _picked(b.array_code, s, axis, positions, ty, combine, what, node)
    return finish(b.array_code, out, axes, a.ndim, keepdims, node)


def _lerp(cx, lo: Val, hi: Val, t: Val, gamma, ty) -> Val:
    """NumPy's _lerp(lo, hi, t) with a weak (Python float) t."""
    d = ops.binary(cx, "-", hi, lo)
    low = ops.binary(cx, "+", lo, ops.binary(cx, "*", d, t))
    one_minus = ops.binary(cx, "-", const_val(1), t)
    high = ops.cast_to(cx, ops.binary(cx, "-", hi, ops.binary(cx, "*", d, one_minus)), low.ty)
    r = Val(ir.Select(ir.GE(gamma, ir.Const(ir.Float(64), 0.5)), ops.node_of(cx, high),
                      ops.node_of(cx, low)), low.ty)
    return ops.cast_to(cx, r, ty)


def _check_range(cx, q: float, what, node):
    if 0.0 <= q <= 1.0:
        return
    msg = ("Percentiles must be in the range [0, 100]" if what == "percentile" else
           "Quantiles must be in the range [0, 1]")
    loc = cx.smap.loc(node)

    def check(env):
        raise ValueError(msg + (f" ({loc.file}:{loc.line})" if loc is not None else ""))
    cx.static_checks.append(check)


def _check_nonempty(cx, size: Val, node):
    """NumPy's IndexError where the sorted axis is empty (it reads index -1)."""
    if size.is_const and size.const > 0:
        return
    loc = cx.smap.loc(node)

    def check(env):
        if size.static(env) == 0:
            raise IndexError("index -1 is out of bounds for axis 0 with size 0" +
                             (f" ({loc.file}:{loc.line})" if loc is not None else ""))
    cx.static_checks.append(check)
