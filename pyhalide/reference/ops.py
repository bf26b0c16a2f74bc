"""The meaning of each IR operator on NumPy values.

Every value is a NumPy array or NumPy scalar whose dtype is exactly the IR
type's dtype, and every operation stays in that dtype: integers wrap at their
width, float32 is computed in float32. Callers run under
`np.errstate(all="ignore")` (overflow and invalid-operation warnings are the
defined wrap-around and IEEE behaviour here, not errors).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..ir import nodes as N
from ..ir.requirements import message_of
from ..ir.types import Type


def _unsigned(t: Type) -> np.dtype:
    return np.dtype(f"u{t.bits // 8}")


# ---- integer division: Euclidean, and x / 0 == x % 0 == 0 -----------------
def _div_mod(t: Type, a, b):
    one = t.to_numpy().type(1)
    zero = b == 0
    safe = np.where(zero, one, b)
    q = np.floor_divide(a, safe)
    r = np.remainder(a, safe)          # floor modulo: takes the divisor's sign
    if t.is_int():
        neg = r < 0                    # only when the divisor is negative
        q = np.where(neg, q + one, q)
        r = np.where(neg, r - safe, r)
    nil = t.to_numpy().type(0)
    return np.where(zero, nil, q), np.where(zero, nil, r)


def div(t: Type, a, b):
    if t.is_float():
        return np.divide(a, b)
    return _div_mod(t, a, b)[0]


def mod(t: Type, a, b):
    if t.is_float():
        return np.subtract(a, np.multiply(b, np.floor(np.divide(a, b))))
    return _div_mod(t, a, b)[1]


# ---- shifts: the amount is read as unsigned, so a negative one is huge -----
def shl(t: Type, a, b):
    u = _unsigned(t)
    n = b.astype(u)
    ok = n < t.bits
    r = np.left_shift(a.astype(u), np.where(ok, n, u.type(0)))
    return np.where(ok, r, u.type(0)).astype(t.to_numpy())


def shr(t: Type, a, b):
    u = _unsigned(t)
    n = b.astype(u)
    ok = n < t.bits
    if t.is_int():                      # arithmetic shift; >= bits is the sign fill
        amount = np.where(ok, n, u.type(t.bits - 1)).astype(t.to_numpy())
        return np.right_shift(a, amount)
    r = np.right_shift(a, np.where(ok, n, u.type(0)))
    return np.where(ok, r, u.type(0))


BINARY = {
    N.Add: lambda t, a, b: np.add(a, b),
    N.Sub: lambda t, a, b: np.subtract(a, b),
    N.Mul: lambda t, a, b: np.multiply(a, b),
    N.Div: div,
    N.Mod: mod,
    N.Min: lambda t, a, b: np.where(a < b, a, b),
    N.Max: lambda t, a, b: np.where(a > b, a, b),
    N.BitAnd: lambda t, a, b: np.bitwise_and(a, b),
    N.BitOr: lambda t, a, b: np.bitwise_or(a, b),
    N.BitXor: lambda t, a, b: np.bitwise_xor(a, b),
    N.Shl: shl,
    N.Shr: shr,
    N.EQ: lambda t, a, b: np.equal(a, b),
    N.NE: lambda t, a, b: np.not_equal(a, b),
    N.LT: lambda t, a, b: np.less(a, b),
    N.LE: lambda t, a, b: np.less_equal(a, b),
    N.GT: lambda t, a, b: np.greater(a, b),
    N.GE: lambda t, a, b: np.greater_equal(a, b),
    N.And: lambda t, a, b: np.logical_and(a, b),
    N.Or: lambda t, a, b: np.logical_or(a, b),
}


# ---- casts -------------------------------------------------------------------
def cast(to: Type, frm: Type, v):
    """NumPy conversion, except: anything -> bool is `!= 0`, and float -> int
    rounds toward zero and saturates to the target range, NaN giving 0."""
    dt = to.to_numpy()
    if to.is_bool():
        return np.not_equal(v, frm.to_numpy().type(0))
    if frm.is_float() and to.is_integer():
        x = np.trunc(v.astype(np.float64))          # exact for float32 and float64
        lo, hi = to.min_value(), to.max_value()
        above = x >= float(hi + 1)                   # 2**k: exact in float64
        below = x <= float(lo)
        inside = ~(above | below | np.isnan(x))
        r = np.where(inside, x, 0.0).astype(dt)
        r = np.where(above, dt.type(hi), r)
        return np.where(below, dt.type(lo), r)
    return v.astype(dt)


# ---- intrinsics --------------------------------------------------------------
_FLOAT_UNARY = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log,
    "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "floor": np.floor, "ceil": np.ceil, "round": np.rint, "trunc": np.trunc,
    "exp2": np.exp2, "cbrt": np.cbrt, "expm1": np.expm1, "log1p": np.log1p,
    "log2": np.log2, "log10": np.log10,
}
_FLOAT_BINARY = {"atan2": np.arctan2, "pow": np.power, "copysign": np.copysign,
                 "fmod": np.fmod}
_CLASSIFY = {"is_nan": np.isnan, "is_inf": np.isinf, "is_finite": np.isfinite}


def _c_math(fn, outside):
    """C's float64 function `fn` (Python's math module calls it) per element;
    where math raises ValueError, C's value `outside(x)` (a pole or NaN)."""
    def one(x):
        try:
            return fn(float(x))
        except ValueError:
            return outside(float(x))
    return lambda v: np.asarray(np.frompyfunc(one, 1, 1)(v), dtype=np.float64)


# C's float64 functions, narrower results rounded once (codegen_ops._LIBM_WIDENED;
# NumPy's arcsinh etc. may be SIMD approximations, not C's)
_FLOAT_WIDENED = {
    "asinh": _c_math(math.asinh, lambda x: math.nan),
    "acosh": _c_math(math.acosh, lambda x: math.nan),
    "atanh": _c_math(math.atanh, lambda x: math.copysign(math.inf, x) if abs(x) == 1
                     else math.nan),
}
INTRINSICS = frozenset(_FLOAT_UNARY) | frozenset(_FLOAT_BINARY) | frozenset(_CLASSIFY) | \
    frozenset(_FLOAT_WIDENED) | {"abs", "fma", "int_true_divide", "int_power",
                                  "int_power_checked", "int_power_fits", "reinterpret"}


def _fma(a, b, c, dtype):
    """a * b + c rounded once (exactly, through Fractions; float32 results
    from the float64 rounding of the exact value)."""
    def one(x, y, z):
        if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
            return float(x) * float(y) + float(z)
        return float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
    out = np.frompyfunc(one, 3, 1)(a, b, c)
    return np.asarray(out, dtype=np.float64).astype(dtype)


def intrinsic(call: N.Call, args: list):
    """Evaluate intrinsic `call` on its evaluated arguments."""
    name, t = call.name, call.type
    if name in ("likely", "likely_if_innermost", "loop_invariant"):     # branch hints: the value itself
        return args[0]
    if name in _FLOAT_UNARY or name in _FLOAT_BINARY:
        if not t.is_float():
            raise TypeError(f"intrinsic {name} must return a float type, not {t}")
        # Integer arguments are converted to the (float) result type first.
        xs = [cast(t, a.type, v) if a.type != t else v for a, v in zip(call.args, args)]
        fn = _FLOAT_UNARY.get(name) or _FLOAT_BINARY[name]
        return fn(*xs)
    if name in _FLOAT_WIDENED and t.is_float():
        x = np.asarray(args[0]).astype(np.float64)
        return _FLOAT_WIDENED[name](x).reshape(x.shape).astype(t.to_numpy())
    if name.startswith("require:"):     # halide_require.py: value, or the failed check
        cond, value, *rest = (np.asarray(a) for a in args)
        if not cond.all():
            shape = np.broadcast(cond, value, *rest).shape
            first = tuple(np.argwhere(~np.broadcast_to(cond, shape))[0])   # the first failure
            raise RuntimeError(message_of(call).format(
                *(np.broadcast_to(r, shape)[first] for r in (value, *rest))))
        return value
    if name == "reinterpret":           # the same bits read as t
        src = call.args[0].type.to_numpy()
        return np.asarray(args[0], dtype=src).view(t.to_numpy())
    if name in _CLASSIFY:
        return _CLASSIFY[name](args[0])
    if name == "fma":
        return _fma(*args, t.to_numpy())
    if name == "int_true_divide":       # Python's int / int: the exact quotient rounded once
        def one(x, y):
            return int(x) / int(y) if y else float("nan")
        out = np.frompyfunc(one, 2, 1)(*args)
        return np.asarray(out, dtype=np.float64)
    if name == "int_power":             # NumPy's wrapping integer power, exponent read as unsigned
        bits, dtype = t.bits, t.to_numpy()

        def power(x, e):
            return pow(int(x), int(e) % 2 ** bits, 2 ** bits)
        out = np.frompyfunc(power, 2, 1)(*args)
        return np.asarray(out, dtype=object).astype(np.uint64).astype(dtype) \
            if bits == 64 else np.asarray(out, dtype=np.int64).astype(dtype)
    if name in ("int_power_checked", "int_power_fits"):    # Python's int power in int64
        def exact(x, e):            # (an exponent read as unsigned, as the code's loop)
            x, e = int(x), int(e) % 2 ** 64
            return x ** e if abs(x) <= 1 or e < 64 else None    # (else past int64)

        def value(x, e):
            r = pow(int(x), int(e) % 2 ** 64, 2 ** 64)
            return r - 2 ** 64 if r >= 2 ** 63 else r

        def fits(x, e):
            r = exact(x, e)
            return r is not None and -2 ** 63 <= r < 2 ** 63
        fn = value if name == "int_power_checked" else fits
        out = np.frompyfunc(fn, 2, 1)(*args)
        return np.asarray(out, dtype=np.int64 if fn is value else np.bool_)
    if name == "abs":
        at = call.args[0].type
        v = args[0]
        if at.is_int():                 # INT_MIN wraps to itself, read as unsigned
            v = np.where(v < 0, np.negative(v), v)
        elif at.is_float():
            v = np.abs(v)
        return cast(t, at, v) if at != t else v
    raise NotImplementedError(f"reference evaluator: unknown intrinsic {name!r}")
