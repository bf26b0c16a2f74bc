"""Plain Python / NumPy 2 semantics of @pipeline values: NEP 50 promotion with
weak Python scalars, Python ints in int64 with OverflowError, floor division
and modulo, builtin min/max order (of mixed types too), casts, return types;
a value's Python-vs-NumPy type follows the data (zero-trip accumulators stay
Python numbers); int(nan) is a ValueError; 0-d array arguments are NumPy
scalars and masked arrays are refused."""
import math

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

SEED = 99


@ph.pipeline
def promote(a, b):
    out = np.empty(len(a), np.float64)
    r = 0
    for i in range(len(a)):
        x = a[i] + b[i]
        y = a[i] * 2 + 1.5
        z = a[i] / b[i] if b[i] != 0 else 0.0
        r = x
        out[i] = y + z
    return r, out


@pytest.mark.parametrize("ta,tb", [(np.uint8, np.int8), (np.int16, np.uint16),
                                   (np.int32, np.float32), (np.uint8, np.float64),
                                   (np.int64, np.int32), (np.float32, np.float32)])
def test_numpy_promotion(ta, tb):
    rng = np.random.default_rng(SEED)
    check(promote, rng.integers(0, 100, 9).astype(ta), rng.integers(-3, 4, 9).astype(tb))


@ph.pipeline
def weak_scalars(a):
    s = np.float32(0)
    n = 0
    for i in range(len(a)):
        s += a[i]
        n += 1
    return s / n, s * 0.1, n * 0.5, n // 2


def test_weak_python_scalars_keep_float32():
    got = check(weak_scalars, np.arange(1, 8, dtype=np.float32))
    assert type(got[0]) is np.float32 and type(got[2]) is float and type(got[3]) is int


@ph.pipeline
def floor_ops(a, b):
    q = np.zeros(len(a), a.dtype)
    m = np.zeros(len(a), a.dtype)
    for i in range(len(a)):
        q[i] = a[i] // b[i]
        m[i] = a[i] % b[i]
    return q, m


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16])
def test_floor_division_and_modulo(dtype):
    a = np.array([7, -7, 7, -7, 0, 5, -128 if dtype == np.int8 else -100], dtype=np.int64)
    b = np.array([2, 2, -2, -2, 3, 0, -1], dtype=np.int64)
    if np.dtype(dtype).kind == "u":
        a, b = np.abs(a), np.abs(b)
    check(floor_ops, a.astype(dtype), b.astype(dtype))


@ph.pipeline
def py_int_div(n, d):
    return n // d, n % d, -n // d


def test_python_int_floor_division_and_zero():
    for n, d in ((7, 2), (-7, 2), (7, -2), (-7, -2), (0, 5)):
        check(py_int_div, n, d)
    with pytest.raises(ZeroDivisionError):
        py_int_div(3, 0)


@ph.pipeline
def float_div(a):
    s = 0.0
    for i in range(len(a)):
        s += 1.0 / a[i]
    return s


def test_numpy_float_division_by_zero_is_inf():
    check(float_div, np.array([1.0, 0.0, 2.0]))


@ph.pipeline
def py_float_div(x, y):
    return x / y


def test_python_float_division_by_zero_raises():
    check(py_float_div, 1.0, 4.0)
    with pytest.raises(ZeroDivisionError):
        py_float_div(1.0, 0.0)


@ph.pipeline
def builtin_order(a):
    lo = a[0]
    hi = a[0]
    for i in range(len(a)):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    return lo, hi


def test_builtin_min_max_order_with_nan_and_zeros():
    check(builtin_order, np.array([0.0, -0.0, 1.0]))
    check(builtin_order, np.array([-0.0, 0.0]))
    check(builtin_order, np.array([np.nan, 1.0, -1.0]))
    check(builtin_order, np.array([1.0, np.nan, -1.0]))


@ph.pipeline
def fmin_fmax(a, b):
    out = np.empty((4, len(a)))
    for i in range(len(a)):
        out[0, i] = np.minimum(a[i], b[i])
        out[1, i] = np.maximum(a[i], b[i])
        out[2, i] = np.fmin(a[i], b[i])
        out[3, i] = np.fmax(a[i], b[i])
    return out


def test_nan_propagation_of_numpy_min_max():
    a = np.array([1.0, np.nan, 0.0, -0.0, np.nan])
    b = np.array([np.nan, 2.0, -0.0, 0.0, np.nan])
    check(fmin_fmax, a, b)


@ph.pipeline
def casts(a):
    out = np.empty((5, len(a)), np.int64)
    for i in range(len(a)):
        out[0, i] = np.int8(a[i])
        out[1, i] = int(a[i])
        out[2, i] = np.uint8(np.int32(a[i]))
        out[3, i] = round(a[i])
        out[4, i] = math.floor(a[i])
    return out


def test_casts():
    check(casts, np.array([1.5, -1.5, 2.5, 300.7, -0.5, 127.9]))


@ph.pipeline
def int_to_uint8_store(a):
    out = np.zeros(len(a), np.uint8)
    for i in range(len(a)):
        out[i] = i
    return out


def test_python_int_store_out_of_range_raises():
    check(int_to_uint8_store, np.zeros(200))
    with pytest.raises(OverflowError):
        int_to_uint8_store(np.zeros(300))


@ph.pipeline
def weak_out_of_range(a, k):
    s = np.uint8(0)
    for i in range(len(a)):
        s = a[i] + k
    return s


def test_weak_int_out_of_range_for_dtype():
    check(weak_out_of_range, np.arange(3, dtype=np.uint8), 7)
    with pytest.raises(OverflowError):
        weak_out_of_range(np.arange(3, dtype=np.uint8), 300)


@ph.pipeline
def python_int_math(a):
    s = 0
    for i in range(len(a)):
        s += i * i - 3 * i
    return s, s * len(a)


def test_python_ints_exact():
    check(python_int_math, np.zeros(1000))


@ph.pipeline
def returns(a, f):
    n = a.shape[0]
    m = len(a) * 2
    x = np.float32(f)
    return n, m, f, x, a.ndim, None


def test_return_types():
    got = check(returns, np.zeros((3, 2)), 2.5)
    assert type(got[0]) is int and type(got[3]) is np.float32 and got[5] is None


@ph.pipeline
def cond_type(a):
    s = 0.0
    n = 0
    for i in range(len(a)):
        if a[i] > 0:
            s += a[i]
            n += 1
    return (s / n if n > 0 else 0.0), s


def test_data_dependent_python_types():
    got = check(cond_type, np.array([-1.0, -2.0]))
    assert type(got[0]) is float and type(got[1]) is float
    got = check(cond_type, np.array([1.0, -2.0]))
    assert type(got[0]) is np.float64


@ph.pipeline
def math_funcs(a):
    out = np.empty((6, len(a)), np.float32)
    for i in range(len(a)):
        x = a[i]
        out[0, i] = np.sqrt(x)
        out[1, i] = np.exp(x)
        out[2, i] = np.log(x + 1)
        out[3, i] = np.sin(x)
        out[4, i] = np.floor(x * 3)
        out[5, i] = abs(x - 1)
    return out


def test_math_functions():
    rng = np.random.default_rng(SEED)
    a = rng.random(50).astype(np.float32) * 4
    got = math_funcs(a)
    exp = math_funcs.py_func(a)
    for k in (0, 4, 5):          # correctly rounded: bit-exact
        assert np.array_equal(got[k], exp[k])
    for k in (1, 2, 3):          # transcendental: within 2 ulp
        ulp = np.spacing(np.abs(exp[k]))
        assert np.all(np.abs(got[k] - exp[k]) <= 2 * ulp)


@ph.pipeline
def math_domain(x):
    return math.sqrt(x)


def test_math_domain_error():
    assert math_domain(4.0) == 2.0
    with pytest.raises(ValueError):
        math_domain(-1.0)


@ph.pipeline
def bools(a):
    c = 0
    for i in range(len(a)):
        if a[i] and not (a[i] > 5):
            c += True
    return c, bool(c)


def test_truthiness():
    check(bools, np.array([0, 1, 7, 3, 0], np.int32))
    check(bools, np.array([0.0, np.nan, 2.0]))


@ph.pipeline
def shapes_and_params(a, n):
    H, W = a.shape
    total = 0
    for y in range(min(H, n)):
        for x in range(W):
            total += int(a[y, x])
    return total, H * W


def test_scalar_arguments_and_shapes():
    a = np.arange(12, dtype=np.int16).reshape(3, 4)
    check(shapes_and_params, a, 2)
    check(shapes_and_params, a, 10)
    check(shapes_and_params, a, -1)
    check(shapes_and_params, a, np.int32(2))


# a value's Python-vs-NumPy type follows the data ----------------------------------------------
@ph.pipeline
def sum_minus_one(a):
    s = 0
    for i in range(len(a)):
        s += a[i]
    return s - 1


@ph.pipeline
def float_sum_twice(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i]
    return s * 2


@ph.pipeline
def mean_var(a):
    n = len(a)
    s = 0.0
    for i in range(n):
        s += a[i]
    mean = s / n
    v = 0.0
    for i in range(n):
        d = a[i] - mean
        v += d * d
    return mean, v / n


def test_zero_trip_accumulator_stays_a_python_number():
    with np.errstate(all="ignore"):
        for n in (0, 1, 3):
            check(sum_minus_one, np.arange(n, dtype=np.uint8))
            check(float_sum_twice, np.arange(n, dtype=np.float32))
    assert check(sum_minus_one, np.zeros(0, np.uint8)) == -1
    assert type(check(float_sum_twice, np.zeros(0, np.float32))) is float


def test_float_division_by_zero_after_an_empty_loop():
    check(mean_var, np.arange(4.0))
    with pytest.raises(ZeroDivisionError):
        mean_var(np.zeros(0))


@ph.pipeline
def signed_zero(a):
    m1 = 0.0
    m2 = 0.0
    for i in range(len(a)):
        m1 = min(m1, a[i])
        m2 = max(a[i], m2)
    return m1, m2


def test_min_keeps_the_python_float_when_no_element_wins():
    assert type(check(signed_zero, np.array([-0.0, 0.0, -0.0]))[0]) is float
    check(signed_zero, np.array([1.0, -2.0]))
    check(signed_zero, np.zeros(0))


@ph.pipeline
def guarded_and(a, k):
    ok = k < len(a) and a[k] > 0
    return ok


def test_and_at_top_level_keeps_each_operands_type():
    a = np.array([3, -1, 2], np.int32)
    assert check(guarded_and, a, 40) is False
    check(guarded_and, a, 0)
    check(guarded_and, a, 1)


# builtin min/max of mixed types ---------------------------------------------------------------
@ph.pipeline
def max_mixed(a, b):
    out = np.empty(len(a))
    for i in range(len(a)):
        out[i] = max(a[i], b[i]) + 0.1
    return out


@ph.pipeline
def from_big_python_int(a):
    m = 1000
    n = 1000
    for i in range(len(a)):
        m = max(m, a[i])
        n = min(n, a[i])
    return m, n


def test_builtin_max_of_mixed_dtypes_in_a_loop():
    check(max_mixed, np.array([5, -3], np.int8), np.array([1.5, 2.5], np.float32))


def test_min_max_from_a_python_int_out_of_the_dtype_range():
    for n in (0, 1, 7):
        assert check(from_big_python_int, np.arange(n, dtype=np.uint8))[0] == 1000


@ph.pipeline
def fibonacci_like(a):
    x, y = 0, 1
    for i in range(len(a)):
        x, y = y, x + y + a[i]
    return x, y


@ph.pipeline
def state_condition(a):
    s = 0
    for i in range(len(a)):
        if s < 100:
            s += a[i]
        else:
            s -= 1
    return s


def test_members_whose_type_depends_on_the_iteration():
    for n in (0, 1, 2, 6):
        check(fibonacci_like, np.arange(n, dtype=np.int32))
        check(state_condition, np.arange(n, dtype=np.int32) * 30)


@ph.pipeline
def first_iteration_in_python(a):
    t = 0.1
    for i in range(len(a)):
        t = t * 3 + a[i]
    return t


def test_first_iteration_computes_with_the_python_value():
    # 0.1 * 3 is computed in Python floats before meeting float32
    check(first_iteration_in_python, np.array([0.5, 0.25], np.float32))


# int(nan) -------------------------------------------------------------------------------------
@ph.pipeline
def int_sum(a):
    s = 0
    for i in range(len(a)):
        s += int(a[i])
    return s


def test_int_of_nan_is_a_value_error():
    with pytest.raises(ValueError):
        int_sum(np.array([1.0, np.nan]))
    with pytest.raises(OverflowError):
        int_sum(np.array([np.inf]))


HERE = __file__


@ph.pipeline
def _scaled(a, k):
    out = np.empty(a.shape[0], np.float64)
    for i in range(a.shape[0]):
        out[i] = a[i] * k + k.ndim + k.size + len(k.shape)
    return out


@ph.pipeline
def _times(a, k):
    return a[0] * k


@pytest.mark.parametrize("k", [np.array(2.5), np.float64(2.5), np.array(3, np.int16)])
def test_zero_d_arrays_are_numpy_scalars(k):
    a = np.arange(5.0)
    np.testing.assert_array_equal(_scaled(a, k), _scaled.py_func(a, k))
    assert _scaled(a, k)[1] == 1 * k + 1


@pytest.mark.parametrize("k", [np.float64(1.1), np.array(1.1), 1.1])
def test_numpy_float64_scalars_promote_as_numpy_does(k):
    a = np.arange(4, dtype=np.float32) + np.float32(0.1)
    got, want = _times(a, k), _times.py_func(a, k)
    assert type(got) is type(want) and got == want


def test_masked_arrays_are_refused():
    m = np.ma.masked_array(np.arange(4.0), mask=[0, 1, 0, 0])
    with pytest.raises(TypeError) as e:
        _scaled(m, 2.0)
    assert str(e.value).startswith("@pipeline was given a masked array (np.ma): compiled code "
                                   "reads every element and would ignore the mask; pass "
                                   "np.ma.filled(a, value) or a.compressed()")
    assert f"at {HERE}:" in str(e.value)
    with pytest.raises(TypeError, match=r"^Buffer was given a masked array \(np.ma\)"):
        ph.Buffer(m, "masked")
