"""Element-wise NumPy functions on arrays: the same values, dtypes and
shapes as plain Python (bit-exact for + - * / sqrt, comparisons, casts and
the other exact functions; within 2 ulp of NumPy for the transcendental
ones), NumPy's broadcasting, NaN and inf, and the located errors."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check, near

RNG = np.random.default_rng(16)
INTS = [np.uint8, np.int16, np.int32, np.int64]
FLOATS = [np.float32, np.float64]
SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5, 3.5, 1e-30, -7e20]


def sample(dt, shape, lo=-50, hi=50):
    """Values of dtype dt: for ints the dtype's extremes among small values;
    for floats the special values (signed zeros, infinities, NaN) among
    random ones."""
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return RNG.integers(0, 2, shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        v = RNG.integers(max(lo, info.min), min(hi, info.max), n, endpoint=True).astype(dt)
        v[: min(n, 2)] = [info.min, info.max][: min(n, 2)]
        return RNG.permutation(v).reshape(shape)
    v = (RNG.standard_normal(n) * 10).astype(dt)
    k = min(n, len(SPECIAL))
    v[:k] = np.array(SPECIAL[:k], dtype=dt)
    return RNG.permutation(v).reshape(shape)


def unary(fn):
    @ph.pipeline
    def p(a):
        return fn(a)
    p.__name__ = f"unary_{fn.__name__}"
    return p


def binary(fn):
    @ph.pipeline
    def p(a, b):
        return fn(a, b)
    p.__name__ = f"binary_{fn.__name__}"
    return p


# exact one-argument functions ----------------------------------------------------------
@ph.pipeline
def signs_and_rounding(a):
    return (np.abs(a), np.absolute(a), np.negative(a), np.positive(a), np.sign(a),
            np.square(a), np.floor(a), np.ceil(a), np.trunc(a), abs(a))


@ph.pipeline
def float_exact(a):
    return (np.sqrt(a), np.fabs(a), np.rint(a), np.reciprocal(a), np.isnan(a), np.isinf(a),
            np.isfinite(a), np.round(a), np.logical_not(a))


@ph.pipeline
def int_exact(a):
    return np.invert(a), np.isnan(a), np.isfinite(a), np.logical_not(a), ~a


def _split(values, quick):
    """pytest params of one argument, a list of dtypes: `quick` in the
    default run, the rest of `values` in the slow run (each dtype compiles
    the test's pipelines again: the same code for another element type)."""
    rest = [v for v in values if v not in quick]
    return [quick, pytest.param(rest, marks=pytest.mark.slow)]


def _slow_unless(values, default):
    """pytest params: the first of each value in `default` in the default run,
    the others -m slow (np.true_divide is np.divide: its second test)."""
    out = []
    for k, v in enumerate(values):
        first = all(w is not v for w in values[:k])
        out.append(v if v in default and first else pytest.param(v, marks=pytest.mark.slow))
    return out


@pytest.mark.parametrize("dt", _slow_unless(INTS + FLOATS + [np.int8],
                                            {np.uint8, np.int64, np.float64, np.int8}))
def test_signs_and_rounding(dt):
    check(signs_and_rounding, sample(dt, (3, 5)))


@pytest.mark.parametrize("dt", FLOATS)
def test_float_exact_functions(dt):
    a = sample(dt, (2, 3, 5))
    a.flat[:4] = [2.5, -3.5, 0.5, 1e300 if dt == np.float64 else 3e38]
    check(float_exact, a)
    check(float_exact, np.abs(a))


@pytest.mark.parametrize("dt", INTS + [np.bool_])
def test_int_exact_functions(dt):
    check(int_exact, sample(dt, (4, 6)))


def test_bool_arguments():
    m = sample(np.bool_, (3, 4))
    for fn in (np.abs, np.square, np.floor, np.logical_not):
        check(unary(fn), m)
    for fn in (np.add, np.multiply, np.maximum, np.logical_xor, np.bitwise_and, np.less):
        check(binary(fn), m, m.T[:1].T)


def test_sign_of_zero_and_nan():
    a = np.array([-0.0, 0.0, np.nan, -np.inf, np.inf, -3.0], dtype=np.float64)
    got = check(unary(np.sign), a)
    assert not np.signbit(got[0])


# transcendental functions (within 2 ulp of NumPy) --------------------------------------
TRANSCENDENTAL = [np.exp, np.log, np.log2, np.log10, np.expm1, np.log1p, np.sin, np.cos,
                  np.tan, np.arcsin, np.arccos, np.arctan, np.sinh, np.cosh, np.tanh]


@pytest.mark.parametrize("fn", TRANSCENDENTAL, ids=lambda f: f.__name__)
def test_transcendental_within_two_ulp(fn):
    p = unary(fn)
    for dt in FLOATS:
        a = sample(dt, (4, 64))
        a[0] = RNG.uniform(-1, 1, 64).astype(dt)          # the domain of arcsin/arccos
        a[1] = np.geomspace(1e-12, 1e3, 64).astype(dt)      # small arguments of expm1/log1p
        a[2] = -a[1] / 2e3
        near(p, a)
    near(p, np.arange(-20, 20, dtype=np.int16).reshape(5, 8))     # float32 result
    near(p, np.arange(-20, 20, dtype=np.int64))                   # float64 result


@pytest.mark.parametrize("fn", [np.arctan2, np.hypot, np.power], ids=lambda f: f.__name__)
def test_two_argument_float_functions(fn):
    p = binary(fn)
    for dt in FLOATS:
        a, b = sample(dt, (5, 16)), sample(dt, (5, 16))
        near(p, a, b)
        near(p, a, sample(dt, (16,)))
        near(p, a, dt(0.75))
        near(p, np.abs(a), 2.5)


def test_hypot_extreme_magnitudes():
    big = np.array([1e308, 3e307, 1.7e308, 1e-320, 2e-310, 5e-324, 1e200, 3.0, np.inf, np.nan])
    other = np.array([1e308, 4e307, 1e10, 1e-320, 3e-310, 5e-324, 1e-200, 4.0, np.nan, np.inf])
    p = binary(np.hypot)
    near(p, big, other, ulps=1)
    with np.errstate(over="ignore"):
        near(p, big.astype(np.float32), other.astype(np.float32), ulps=1)
    near(p, RNG.standard_normal(200) * 1e150, RNG.standard_normal(200) * 1e150, ulps=1)
    got = p(np.array([np.inf, -np.inf]), np.array([np.nan, np.nan]))
    assert np.array_equal(got, [np.inf, np.inf])


# two-argument functions: dtypes and broadcasting -------------------------------------
OPERATORS = [np.add, np.subtract, np.multiply, np.divide, np.true_divide, np.floor_divide,
             np.less, np.less_equal, np.greater, np.greater_equal,
             np.equal, np.not_equal, np.minimum, np.maximum, np.fmin, np.fmax,
             np.logical_and, np.logical_or, np.logical_xor]
BITWISE = [np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.left_shift, np.right_shift]


def operands(dt, shape, fn, lo=-50):
    """Arguments of fn: for float // ordinary values only (the operator's
    special cases are the foundation's; see test_integer_remainder)."""
    if fn is np.floor_divide and np.dtype(dt).kind == "f":
        v = RNG.uniform(1, 40, shape).astype(dt)
        return np.where(RNG.integers(0, 2, shape) == 1, v, -v).astype(dt)
    return sample(dt, shape, lo=lo)


# operators another one of the list mirrors (each compiles about ten kernels): -m slow
MIRRORED = {np.less_equal, np.greater_equal, np.not_equal, np.fmin,
            np.logical_or, np.logical_xor}


@pytest.mark.parametrize("fn", _slow_unless(OPERATORS, set(OPERATORS) - MIRRORED),
                         ids=lambda f: f.__name__)
def test_operator_functions(fn):
    p = binary(fn)
    for dt in [np.int16, np.float32]:
        a = operands(dt, (3, 4), fn)
        check(p, a, operands(dt, (3, 4), fn, lo=1))
        check(p, a, operands(dt, (4,), fn, lo=1))         # a row
        check(p, a, operands(dt, (3, 1), fn, lo=1))       # a column
        check(p, a, 3)                                    # a weak Python scalar
    check(p, sample(np.uint8, (2, 1, 4)), sample(np.int64, (3, 1), lo=1))   # 3-D result
    check(p, operands(np.float64, (6,), fn), sample(np.int32, (2, 6), lo=1))
    check(p, 2.5, operands(np.float64, (5,), fn, lo=1))


@pytest.mark.parametrize("fn", [np.mod, np.remainder], ids=lambda f: f.__name__)
def test_integer_remainder(fn):
    """Float % is the foundation's (its IR Mod a - b*floor(a/b) is not NumPy's exact
    fmod-based remainder), so integers only here."""
    p = binary(fn)
    for dt in INTS:
        a = sample(dt, (3, 4))
        check(p, a, sample(dt, (3, 4)))
        check(p, a, sample(dt, (4,), lo=-9, hi=9))
        check(p, a, -7)


@pytest.mark.parametrize("fn", _slow_unless(BITWISE, {np.bitwise_and, np.left_shift}),
                         ids=lambda f: f.__name__)
def test_bitwise_functions(fn):
    p = binary(fn)
    for dt in INTS:
        a = sample(dt, (3, 5))
        check(p, a, sample(dt, (3, 5), lo=0, hi=7))
        check(p, a, sample(dt, (5,), lo=0, hi=7))
        check(p, a, 2)
    check(p, sample(np.bool_, (4,)), sample(np.bool_, (2, 1))) if fn not in (
        np.left_shift, np.right_shift) else None


@pytest.mark.parametrize("dt", _slow_unless(INTS + FLOATS, {np.uint8, np.int64, np.float32}))
def test_mixed_dtype_promotion(dt):
    p = binary(np.add)
    q = binary(np.minimum)
    for other in [np.int8, np.uint16, np.float32, np.bool_]:
        a, b = sample(dt, (2, 3)), sample(other, (2, 3))
        check(p, a, b)
        check(q, a, b)


def test_nan_in_min_max():
    a = np.array([np.nan, 1.0, np.nan, -np.inf, 2.0, 5.0])
    b = np.array([1.0, np.nan, np.nan, 0.0, np.inf, -1.0])
    for fn in (np.minimum, np.maximum, np.fmin, np.fmax):
        check(binary(fn), a, b)
        check(binary(fn), a.astype(np.float32), np.float32(np.nan))
    got = check(binary(np.minimum), np.array([0.0, -0.0]), np.array([-0.0, 0.0]))
    assert list(np.signbit(got)) == [True, False]     # ties give the second operand


# np.clip and np.where ------------------------------------------------------------------
@ph.pipeline
def clip3(a, lo, hi):
    return np.clip(a, lo, hi)


@ph.pipeline
def clip_sides(a, k):
    return np.clip(a, None, k), np.clip(a, k, None), a.clip(k, 2 * k), np.clip(a, a_min=k,
                                                                              a_max=None)


@pytest.mark.parametrize("dts", _split(INTS + FLOATS, [np.uint8, np.float64]))
def test_clip_bounds(dts):
    for dt in dts:
        a = sample(dt, (3, 5))
        check(clip3, a, dt(2), dt(7))
        check(clip3, a, sample(dt, (5,), hi=0), sample(dt, (3, 1), lo=1))
        check(clip3, a, -5, 7)
        check(clip_sides, a, 3)
    if np.uint8 not in dts:
        return
    check(clip3, sample(np.uint8, (4,)), 2, 300)       # bounds beyond the dtype
    check(clip3, sample(np.uint8, (4,)), -5, 7)
    check(clip3, sample(np.int8, (6,)), -1000, 2 ** 40)
    check(clip3, sample(np.int16, (4,)), 2.5, 9)       # a float bound makes floats


def test_clip_nan_and_signed_zero():
    a = np.array([np.nan, -0.0, 0.0, 5.0, -5.0, np.inf])
    check(clip3, a, -1.0, 1.0)
    check(clip3, a, np.nan, 1.0)
    check(clip3, a, -1.0, np.full(6, np.nan))
    check(clip3, a, 0.0, 0.0)
    check(clip3, a, -0.0, -0.0)
    check(clip3, a, np.full(6, 0.0), np.full(6, -0.0))
    check(clip3, a, 3.0, 1.0)                          # lo > hi gives hi


@ph.pipeline
def where3(a, b):
    return np.where(a > b, a, b), np.where(a > 0, a, 0), np.where(b != 0, 1.5, b)


@pytest.mark.parametrize("dts", _split([np.uint8, np.int32, np.float32, np.float64],
                                       [np.int32, np.float64]))
def test_where(dts):
    for dt in dts:
        check(where3, sample(dt, (3, 4)), sample(dt, (4,)))
        check(where3, sample(dt, (2, 3, 4)), sample(dt, (3, 1)))
    if np.float64 in dts:
        check(where3, sample(np.int8, (5,)), sample(np.float32, (5,)))


# power ---------------------------------------------------------------------------------
@ph.pipeline
def powers(a):
    return a ** 2, a ** 3, np.power(a, 0), np.power(a, 5), a ** np.int8(4)


@pytest.mark.parametrize("dts", _split(INTS + [np.int8], [np.uint8, np.int64]))
def test_integer_powers(dts):
    for dt in dts:
        check(powers, sample(dt, (3, 4), lo=-5, hi=9))
        check(powers, sample(dt, (3, 4), lo=-300, hi=300))     # wrapping as NumPy


@ph.pipeline
def float_powers(a, b):
    return a ** 2, np.power(a, b), np.power(2.0, a), np.power(a, 0.5), np.power(a, 1.5)


@pytest.mark.parametrize("dts", _split(FLOATS, [np.float32]))
def test_float_powers(dts):
    for dt in dts:
        a = sample(dt, (3, 4))
        near(float_powers, a, dt(0.5))        # NumPy's sqrt for a scalar exponent 0.5
        near(float_powers, a, dt(-2.0))
        near(float_powers, a, sample(dt, (4,)))
        near(float_powers, a, sample(dt, (3, 1)))


@ph.pipeline
def neg_power(a):
    return a ** -1


@ph.pipeline
def int_power_arrays(a, b):
    return np.power(a, b)


def test_integer_array_to_negative_power_raises():
    with pytest.raises(ValueError):
        neg_power(np.arange(1, 5, dtype=np.int32))
    check(neg_power, np.arange(1, 5, dtype=np.float32))
    check(neg_power, np.arange(1, 5, dtype=np.int32))          # the same exception


def test_integer_array_exponent():
    check(int_power_arrays, np.arange(4), np.arange(4))         # (test_array_gaps: more)
    check(int_power_arrays, np.arange(4.0), np.arange(4))


# casts ---------------------------------------------------------------------------------
@ph.pipeline
def casts(a):
    return (a.astype(np.int32), a.astype(np.uint8), a.astype("float32"), a.astype(bool),
            np.float32(a), np.int16(a), np.float64(a * 2), a.astype(a.dtype))


@pytest.mark.parametrize("dt", INTS + FLOATS + [np.bool_])
def test_casts(dt):
    a = sample(dt, (3, 4), lo=-300, hi=300)
    if np.dtype(dt).kind == "f":     # NaN, inf and values beyond int32 to ints: see the report
        a = np.where(np.isfinite(a) & (np.abs(a) < 2.0 ** 31), a, 7).astype(dt)
    check(casts, a)


@ph.pipeline
def cast_is_a_copy(a):
    b = a.astype(a.dtype)
    b[0] = 100
    return a[0], b


def test_astype_same_dtype_copies():
    check(cast_is_a_copy, np.arange(4.0))


# arrays creation from array values --------------------------------------------------
@ph.pipeline
def like_values(a):
    return (np.zeros_like(a * 2), np.ones_like(np.sqrt(a)), np.full_like(a + 1, 7),
            np.zeros_like(a.astype(np.int8)))


def test_like_of_array_values():
    check(like_values, np.arange(12.0).reshape(3, 4))
    check(like_values, np.arange(6, dtype=np.int16))


# fusion --------------------------------------------------------------------------------
@ph.pipeline
def magnitude(a, b):
    return np.sqrt(a * a + b * b)


@ph.pipeline
def chain(a, b):
    return np.clip(np.where(a > b, np.abs(a - b), np.minimum(a, b)) * 2, 0, 10).astype(np.float32)


def test_chain_makes_one_func():
    a, b = sample(np.float64, (4, 5)), sample(np.float64, (5,))
    check(magnitude, a, b)
    assert len({id(f) for f in magnitude.funcs.values()}) == 1
    check(chain, a, b)
    assert len({id(f) for f in chain.funcs.values()}) == 1


# errors --------------------------------------------------------------------------------
@ph.pipeline
def with_out(a):
    return np.sqrt(a, out=a)


@ph.pipeline
def with_where(a):
    return np.add(a, 1, where=a > 0)


@ph.pipeline
def where_one(a):
    return np.where(a > 0)


@ph.pipeline
def with_dtype(a):
    return np.multiply(a, 2, dtype=np.float32)


@ph.pipeline
def round_bool_decimals(a):
    return np.round(a > 0, 2)       # decimals compile since session 10, not of booleans


@ph.pipeline
def float16_result(a):
    return np.sqrt(a)


@pytest.mark.parametrize("p,words", [(with_out, "out="), (with_where, "where="),
                                     (where_one, "np.where(condition)"),
                                     (with_dtype, "dtype="), (round_bool_decimals, "decimals")])
def test_errors_are_located(p, words):
    with pytest.raises(ph.CompileError) as e:
        p(np.arange(4.0))
    msg = str(e.value)
    assert words in msg and "test_array_ufuncs.py" in msg and "hint" in msg


def test_unsupported_result_dtype_is_an_error():
    with pytest.raises(ph.CompileError, match="float16"):
        float16_result(np.arange(4, dtype=np.uint8))


def test_scalar_calls_unchanged():
    @ph.pipeline
    def scalars(x, y):
        return np.hypot(x, y), np.minimum(x, y), np.clip(x, 0.0, 1.0), np.add(2, 3), \
            np.where(x > y, x, y) + 1, np.sign(-0.0), np.floor_divide(1.0, 0.0), np.power(x, 0.5)
    check(scalars, 0.25, 3.0)
    check(scalars, np.float32(2.5), np.float32(-1.0))

    @ph.pipeline
    def in_loop(a):
        s = 0.0
        for i in range(len(a)):
            s += np.where(a[i] > 0, np.sqrt(a[i]), np.minimum(a[i], -1.0))
        return s
    check(in_loop, np.arange(-3.0, 4.0))
    check(in_loop, np.arange(-3.0, 4.0, dtype=np.float32))
