"""Element-wise NumPy functions built from the others, added to
calls.ELEMENTWISE (so they take arrays with broadcasting, array_ufuncs.py,
and scalars), as numpy/_core/src/npymath computes them:

- np.fmod(x, y): C's fmod for floats (the sign of x); for integers the
  remainder of truncated division (the sign of x), 0 for y == 0 (NumPy
  warns) and for INT_MIN % -1.
- np.signbit(x): the sign bit (copysign(1, x) < 0, so also of -0.0 and of a
  NaN with the bit set); integers x < 0; bool and unsigned False.
- np.heaviside(x, h0): NaN for a NaN x, h0 where x == 0, 0 below, 1 above
  (npy_heaviside), in the float result type.
- np.logaddexp(x, y) (npy_logaddexp): x + log(2) where x == y, else
  max + log1p(exp(-|x - y|)), x - y for NaNs. Its log1p and exp are
  calls.py's (within 1 ulp of the C library's), so the result may differ from
  NumPy's in the last bit (tests allow 4 ulp).
- np.logaddexp2(x, y) likewise in base 2 (npy_logaddexp2: log2(1 + 2**-d)
  as log1p(exp2(-d)) / log(2))."""
from __future__ import annotations

import math

import numpy as np

from pyhalide import ir

from . import array_calls, calls, ops
from . import types as T
from .array_args import flag_of, parse_args
from .array_reduce import anyall, finish
from .arrayexpr import ArrayExpr, lift
from .convert import fabs
from .values import Val, const_val

BOOL = T.np_ty(np.bool_)


def _c(rt, v):
    return ir.Const(rt.ir(), v)


def _floats(cx, f, *vals):
    """The arguments converted to the function's (float) result type."""
    rt = calls.res_type(cx, f, *(v.ty for v in vals))
    return rt, [ops.node_of(cx, calls.as_res(cx, v, rt)) for v in vals]


def np_fmod(cx, f, x: Val, y: Val) -> Val:
    rt = calls.res_type(cx, f, x.ty, y.ty)
    a = ops.node_of(cx, calls.as_res(cx, x, rt))
    b = ops.node_of(cx, calls.as_res(cx, y, rt))
    if rt.is_float():
        return Val(ir.Call(rt.ir(), "fmod", (a, b), ir.INTRINSIC), rt)
    t = rt.ir()
    zero = ir.Const(t, 0)
    m = ir.Mod(a, b)             # Euclidean: 0 <= m < |b| (0 for b == 0)
    if t.is_uint():
        return Val(ir.Select(ir.EQ(b, zero), zero, m), rt)
    mag = ir.Select(ir.LT(b, zero), ir.Sub(zero, b), b)
    node = ir.Select(ir.And(ir.LT(a, zero), ir.NE(m, zero)), ir.Sub(m, mag), m)
    return Val(ir.Select(ir.EQ(b, zero), zero, node), rt)


def np_signbit(cx, f, x: Val) -> Val:
    if x.ty.is_complex():
        raise cx.error("np.signbit of complex values is not supported (NumPy has no loop)")
    if x.ty.is_float():
        n = ops.node_of(cx, calls.as_res(cx, x, T.np_ty(np.float64)) if x.ty.weak else x)
        t = n.type
        one = ir.Const(t, 1.0)
        return Val(ir.LT(ir.Call(t, "copysign", (one, n), ir.INTRINSIC), ir.Const(t, 0.0)),
                   BOOL)
    if x.ty.is_bool() or x.ty.ir().is_uint():
        return Val(ir.Const(ir.Bool(), False), BOOL)
    n = ops.node_of(cx, x)
    return Val(ir.LT(n, ir.Const(n.type, 0)), BOOL)


def np_heaviside(cx, f, x: Val, h0: Val) -> Val:
    rt, (a, h) = _floats(cx, f, x, h0)
    zero = _c(rt, 0.0)
    node = ir.Select(ops.is_nan(a), _c(rt, float("nan")), ir.Select(
        ir.EQ(a, zero), h, ir.Select(ir.LT(a, zero), zero, _c(rt, 1.0))))
    return Val(node, rt)


def _unary(cx, fn, node, rt):
    return ops.node_of(cx, calls.ELEMENTWISE[fn][1](cx, fn, Val(node, rt)))


def np_logaddexp(cx, f, x: Val, y: Val) -> Val:
    rt, (a, b) = _floats(cx, f, x, y)
    base2 = f is np.logaddexp2
    d = ir.Sub(a, b)
    # log(1 + e**-|d|) (base 2: log2(1 + 2**-|d|))
    neg = ir.Sub(_c(rt, 0.0), fabs(d))
    if base2:
        p = _unary(cx, np.exp2, neg, rt)
        tail = ir.Mul(_unary(cx, np.log1p, p, rt), _c(rt, 1.0 / math.log(2)))
        same = _c(rt, 1.0)
    else:
        tail = _unary(cx, np.log1p, _unary(cx, np.exp, neg, rt), rt)
        same = _c(rt, math.log(2))
    node = ir.Select(ir.EQ(a, b), ir.Add(a, same), ir.Select(
        ir.GT(d, _c(rt, 0.0)), ir.Add(a, tail), ir.Select(
            ir.LE(d, _c(rt, 0.0)), ir.Add(b, tail), d)))
    return Val(node, rt)


calls.ELEMENTWISE.update({np.fmod: (2, np_fmod), np.signbit: (1, np_signbit),
                          np.heaviside: (2, np_heaviside), np.logaddexp: (2, np_logaddexp),
                          np.logaddexp2: (2, np_logaddexp)})


# np.isclose / np.allclose / np.nan_to_num ---------------------------------------------------
def _const_arg(b, got, name, default):
    """A scalar argument (a Val; Python numbers stay weak), or `default`."""
    if name not in got:
        return default
    v, where = got[name]
    if not isinstance(v, Val) or v.ty.is_complex():
        raise b.cx.err(where, f"{name}= must be a real scalar here",
                       hint="pass a number (arrays of tolerances are not supported)")
    return v


def _np(f):
    impl = calls.ELEMENTWISE[f][1]
    return lambda cx, *v: impl(cx, f, *v)


def isclose_value(b, node, what):
    """np.isclose(a, b, rtol, atol, equal_nan) as NumPy 2 computes it
    (numpy/_core/numeric.py): y in result_type(y, 1.0) (a Python int as a
    float), then (|x - y| <= atol + rtol * |y|) & isfinite(y) | (x == y),
    | isnan(x) & isnan(y) with equal_nan."""
    got = parse_args(b, what, None, node, ("b", "rtol", "atol", "equal_nan"))
    if "b" not in got:
        raise b.cx.err(node, f"{what}() needs two arrays")
    rtol = _const_arg(b, got, "rtol", const_val(1e-05))
    atol = _const_arg(b, got, "atol", const_val(1e-08))
    equal_nan = flag_of(b, got, "equal_nan")
    operands = []
    for k in ("a", "b"):
        v, where = got[k]
        if isinstance(v, Val):
            operands.append(v)
        else:
            operands.append(b.array_code.as_array(v, where))
    for v in operands:
        if v.ty.is_complex():
            raise b.cx.err(node, f"np.{what} of complex values is not supported yet")

    def close(cx, x: Val, y: Val) -> Val:
        if not y.ty.weak:
            y = ops.cast_to(cx, y, T.result_type(np.add, y.ty, T.PY_FLOAT))
        elif not y.ty.is_float():
            y = ops.convert(cx, y, T.PY_FLOAT)
        ay = _np(np.abs)(cx, y)
        near = _np(np.less_equal)(cx, _np(np.abs)(cx, _np(np.subtract)(cx, x, y)),
                                  _np(np.add)(cx, atol, _np(np.multiply)(cx, rtol, ay)))
        out = _np(np.bitwise_or)(cx, _np(np.bitwise_and)(cx, near, _np(np.isfinite)(cx, y)),
                                 _np(np.equal)(cx, x, y))
        if equal_nan:
            out = _np(np.bitwise_or)(cx, out, _np(np.bitwise_and)(
                cx, _np(np.isnan)(cx, x), _np(np.isnan)(cx, y)))
        return Val(ops.node_of(cx, out), BOOL)
    return lift(b.cx, close, operands, node, ufunc=True)


@array_calls.function(np.isclose)
def _isclose(b, fn, node):
    return isclose_value(b, node, "isclose")


@array_calls.function(np.allclose)
def _allclose(b, fn, node):
    """np.allclose: bool(np.all(np.isclose(...))), a Python bool."""
    close = isclose_value(b, node, "allclose")
    cx = b.cx
    if isinstance(close, Val):
        return Val(ops.node_of(cx, close), T.PY_BOOL)
    arr = b.array_code.as_array(close, node)
    axes = tuple(range(arr.ndim))
    every = finish(b.array_code, anyall(b.array_code, arr, axes, False, node), axes,
                   arr.ndim, False, node)
    return Val(ops.node_of(cx, every), T.PY_BOOL)


@array_calls.function(np.nan_to_num)
def _nan_to_num(b, fn, node):
    """np.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None): a new
    array (copy=False is refused: it writes x) with NaN, +inf and -inf of a
    float x replaced by nan, posinf (default the dtype's largest finite
    value) and neginf (its most negative), each cast to x's dtype as NumPy's
    copyto does; other dtypes are copied."""
    got = parse_args(b, "nan_to_num", None, node, ("copy", "nan", "posinf", "neginf"))
    cx = b.cx
    if "copy" in got and not flag_of(b, got, "copy"):
        raise cx.err(got["copy"][1], "nan_to_num(copy=False) writes its argument: not "
                                     "supported", hint="assign the result: x = np.nan_to_num(x)")
    x, where = got["a"]
    x = x if isinstance(x, Val) else b.array_code.as_array(x, where)
    if x.ty.is_complex():
        raise cx.err(node, "np.nan_to_num of complex values is not supported yet")
    if isinstance(x, Val) and x.ty.weak:
        x = ops.convert(cx, x, T.result_type(np.add, x.ty, x.ty) if not x.ty.is_bool()
                        else T.np_ty(np.bool_))
    if not x.ty.is_float():
        return _copy(b, x, node)
    info = np.finfo(x.ty.dtype)
    fills = {k: _const_arg(b, got, k, None) for k in ("nan", "posinf", "neginf")}
    t = x.ty.ir()

    def fill(cx, key, default):
        v = fills[key]
        if v is None or (v.is_const and v.const is None):
            return ir.Const(t, float(default))
        return ops.node_of(cx, ops.cast_to(cx, v, x.ty))

    def replaced(cx, v: Val) -> Val:
        n = ops.node_of(cx, v)
        node_ = ir.Select(ops.is_nan(n), fill(cx, "nan", 0.0), ir.Select(
            ir.EQ(n, ir.Const(t, float("inf"))), fill(cx, "posinf", info.max), ir.Select(
                ir.EQ(n, ir.Const(t, float("-inf"))), fill(cx, "neginf", info.min), n)))
        return Val(node_, x.ty)
    return lift(cx, replaced, [x], node)


def _copy(b, x, node):
    """A copy of a non-float array (or the scalar itself)."""
    if isinstance(x, Val):
        return x
    return ArrayExpr(list(x.shape), x.ty, x.elem, node)
