"""A float32 constant holds a float32 value: a Python float given a float32
type (Halide's `Expr(0.1)`, NumPy's `np.float32(0.1)`, a weak Python float
meeting a float32 array) is rounded to nearest float32 when the constant is
made. It was kept as the double, so casting it to float64, or folding it,
used the double: `cast(Float(64), Expr(0.1))` gave 0.1 (Halide:
0.10000000149011612) and `np.float32(0.1) + a` for a float64 `a` added 0.1."""
import math
import random
import warnings

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir import nodes
from pyhalide.ir.printer import expr_to_str
from tests.core.jitcheck import check

F32 = ph.Float(32)


def _numpy_float32(v):
    with np.errstate(over="ignore"):
        return float(np.float32(v))


def test_rounding_equals_numpy_on_random_values_ties_and_edges():
    rng = random.Random(19)
    values = [rng.uniform(-1, 1) * 10.0 ** rng.randint(-50, 45) for _ in range(20000)]
    for _ in range(5000):
        f = np.float32(rng.uniform(-1, 1) * 10.0 ** rng.randint(-45, 38))
        values.append((float(f) + float(np.nextafter(f, np.float32(np.inf)))) / 2)  # a tie
    values += [1e300, -1e300, 3.4028235677973366e38, 3.4028234663852886e38, 1e-46, -7e-46,
               5e-324, -0.0, 0.0, 1.401298464324817e-45, 2.1e-45, math.inf, -math.inf,
               1.7976931348623157e308, -1.7e308, 2.0 ** 1000]   # near float64's max: inf
    for v in values:
        got, want = nodes.round_to_float(F32, v), _numpy_float32(v)
        assert got == want and math.copysign(1, got) == math.copysign(1, want), v
    assert math.isnan(nodes.round_to_float(F32, math.nan))


@pytest.mark.parametrize("value", [0.1, 1e-40, 1e30, -2.5e-45, 16777217.0, 1.7e308])
def test_func_float32_literal_cast_to_float64(value):
    x = ph.Var("x")
    f = ph.Func("f")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        f[x] = ph.cast(ph.Float(64), ph.Expr(value)) + ph.cast(ph.Float(64), x)
    got = check(f, [3])[0]
    want = np.float64(_numpy_float32(value)) + np.arange(3, dtype=np.float64)
    np.testing.assert_array_equal(got, want)


def test_float32_param_and_const_agree():
    p = ph.Param(ph.Float(32), "p", 0.1)
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.cast(ph.Float(64), p) - ph.cast(ph.Float(64), ph.f32(0.1)) + ph.cast(ph.Float(64), x)
    np.testing.assert_array_equal(check(f, [2])[0], np.arange(2, dtype=np.float64))


def test_printer_shows_the_shortest_float32_text():
    assert expr_to_str(nodes.Const(F32, 0.1)) == "0.1f"
    assert expr_to_str(nodes.Const(F32, 1 / 3)) == "0.33333334f"
    assert expr_to_str(nodes.Const(ph.Float(64), 0.1)) == "0.1"


def _k_scalar_plus(a):
    return np.float32(0.1) + a


def _k_named_scalar(a):
    c = np.float32(0.1)
    return a * c


def _k_subnormal(a):
    return a + np.float64(np.float32(1e-40))


def _k_full_then_widen(a):
    return np.full(a.shape, 0.1, dtype=np.float32).astype(np.float64) + a


def _k_float_of_float32(a):
    return a + float(np.float32(0.1))


def _k_float32_loop(a):
    s = np.float32(0.0)
    for _ in range(3):
        s = s + np.float32(0.1)
    return a + s


@pytest.mark.parametrize("kernel", [_k_scalar_plus, _k_named_scalar, _k_subnormal,
                                    _k_full_then_widen, _k_float_of_float32, _k_float32_loop])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_pipeline_float32_scalars_as_numpy(kernel, dtype):
    a = np.linspace(0, 1, 8).astype(dtype)
    want = kernel(a)
    got = ph.pipeline(kernel)(a)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


INT_TO_FLOAT32 = [2 ** 60 + 2 ** 36 + 1, -(2 ** 60 + 2 ** 36 + 1), 2 ** 62 + 2 ** 38,
                  2 ** 53 + 1, 2 ** 63 - 1, 16777217]


def test_int_to_float_folds_with_one_rounding_as_numpy():
    rng = random.Random(1019)
    values = INT_TO_FLOAT32 + [rng.getrandbits(rng.randint(1, 63)) * rng.choice([1, -1])
                               for _ in range(20000)]
    for v in values:
        assert ph.ir.int_to_float(F32, v) == float(np.float32(np.int64(v))), v
        assert ph.ir.int_to_float(ph.Float(64), v) == float(np.float64(np.int64(v))), v
    for v in [2 ** 64 - 1, 2 ** 63 + 2 ** 39 + 1, rng.getrandbits(64)]:
        assert ph.ir.int_to_float(F32, v) == float(np.float32(np.uint64(v))), v


@pytest.mark.parametrize("value", INT_TO_FLOAT32)
def test_func_int64_constant_cast_to_float32(value):
    x = ph.Var("x")
    f = ph.Func("f")
    f[x] = ph.cast(ph.Float(32), ph.i64(value)) + ph.cast(ph.Float(32), x)
    want = np.float32(np.int64(value)) + np.arange(2, dtype=np.float32)
    np.testing.assert_array_equal(check(f, [2])[0], want)


def _k_float32_of_int64(a):
    return a + np.float32(np.int64(2 ** 60 + 2 ** 36 + 1))


def _k_astype_float32_of_int64(a):
    c = np.int64(2 ** 60 + 2 ** 36 + 1)
    return a + c.astype(np.float32)


@pytest.mark.parametrize("kernel", [_k_float32_of_int64, _k_astype_float32_of_int64])
def test_pipeline_int64_scalar_to_float32_as_numpy(kernel):
    a = np.zeros(3, np.float32)
    np.testing.assert_array_equal(ph.pipeline(kernel)(a), kernel(a))
