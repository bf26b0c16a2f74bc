"""NumPy functions of session 12 (frontend_ast/array_math.py, array_atleast.py,
array_ufunc_reduce.py, array_nanstats.py, array_datasize.py), each compiled
result compared with plain NumPy (values, dtypes, shapes; frontend_check)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check, run_plain
from tests.frontend.located_errors import expect_error

RNG = np.random.default_rng(1212)
SPECIAL = np.array([1.5, -2.5, 0.0, -0.0, np.nan, np.inf, -np.inf, 7.0, -7.25, 3.0, -np.nan,
                    1e-310, 5e300, -1e-5])


def elementwise(x, y, i, j):
    return (np.fmod(x, y), np.fmod(i, j), np.fmod(i, 3), np.fmod(x, 2), np.signbit(x),
            np.signbit(i), np.signbit(-0.0), np.heaviside(x, 0.5), np.heaviside(x, y),
            np.logaddexp(x, y), np.logaddexp2(x, y), np.heaviside(i, j))


def test_elementwise_functions_equal_numpy_bit_for_bit():
    x = SPECIAL
    y = np.array([0.5, 2.0, 0.0, 1.0, 1.0, 2.0, -np.inf, -3.0, 0.0, 3.0, 2.0, 1.0, -5e300, 7.0])
    i = np.array([7, -7, 7, -7, 0, np.iinfo(np.int64).min, 5, -5, 9, 3, 1, 100, -1, 0])
    j = np.array([3, 3, -3, -3, 5, -1, 0, 0, 9, -2, 1, 7, 7, np.iinfo(np.int64).min])
    p = ph.pipeline(elementwise)
    got = check(p, x, y, i, j)
    # bit for bit: the sign of zeros too (not the sign of a NaN an invalid
    # operation makes: fmod(inf, 2) is -nan in NumPy, +nan when LLVM folds it)
    exp = run_plain(p, x, y, i, j)
    for g, e in zip(got, exp):
        g, e = np.asarray(g), np.asarray(e)
        if g.dtype.kind == "f":
            num = ~np.isnan(e)
            assert np.array_equal(g[num].view(np.uint64), e[num].view(np.uint64)), (g, e)
    # float32 and small integers (the result types of NumPy's promotion)
    with np.errstate(over="ignore"):
        x32, y32 = x.astype(np.float32), y.astype(np.float32)
    check(p, x32, y32, i.astype(np.int16), j.astype(np.uint8))


def logaddexps(x, y):
    return np.logaddexp(x, y), np.logaddexp2(x, y)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_logaddexp_within_four_ulp_of_numpy(dt):
    """log1p and exp are calls.py's (within 1 ulp of the C library's)."""
    x = (RNG.standard_normal(500) * 30).astype(dt)
    y = (RNG.standard_normal(500) * 30).astype(dt)
    got = ph.pipeline(logaddexps)(x, y)
    exp = logaddexps(x, y)
    for g, e in zip(got, exp):
        assert g.dtype == e.dtype
        ulp = np.spacing(np.abs(e).astype(dt))
        assert np.all(np.abs(g - e) <= 4 * ulp), np.max(np.abs(g - e) / ulp)


def closeness(a, b, c):
    return (np.isclose(a, b), np.isclose(a, b, equal_nan=True), np.isclose(a, 1),
            np.isclose(c, 2), np.isclose(a.astype(np.float32), b, rtol=1e-3),
            np.allclose(a, a), np.allclose(a, b, atol=0.5), np.allclose(c, c),
            np.isclose(c, c + 1, atol=1), np.isclose(2.0, 2.0 + 1e-9),
            np.nan_to_num(a), np.nan_to_num(a.astype(np.float32), nan=-1.0, posinf=1e300),
            np.nan_to_num(c), np.nan_to_num(a, neginf=-5))


def test_isclose_allclose_nan_to_num_equal_numpy():
    a = np.array([1.0, 1.00001, np.nan, np.inf, -np.inf, 2.0, 1e-9, 0.0])
    b = np.array([1.0, 1.0, np.nan, np.inf, np.inf, 2.1, 0.0, -0.0])
    check(ph.pipeline(closeness), a, b, np.arange(8))


def assembled(a, m, s):
    x, y = np.atleast_1d(a, s)
    return (np.atleast_1d(a), np.atleast_2d(a), np.atleast_3d(a), np.atleast_3d(m),
            np.atleast_2d(m), x, y, np.atleast_3d(s), np.column_stack((a, a * 2)),
            np.column_stack([a, m]), np.column_stack((m, a.astype(np.int32))))


def test_atleast_and_column_stack_equal_numpy():
    check(ph.pipeline(assembled), np.arange(4.0), np.arange(8).reshape(4, 2), 3.5)


def reduces(a, m, u):
    return (np.add.reduce(a), np.add.reduce(m), np.add.reduce(m, 1),
            np.add.reduce(m, axis=None), np.multiply.reduce(u), np.add.reduce(u),
            np.maximum.reduce(m, axis=1, keepdims=True), np.minimum.reduce(a),
            np.fmax.reduce(a), np.fmin.reduce(m, axis=0), np.logical_and.reduce(m),
            np.logical_or.reduce(u, axis=0), np.add.reduce(u, dtype=np.uint8))


def test_ufunc_reduce_equals_numpy():
    check(ph.pipeline(reduces), np.array([1.0, np.nan, 3.0]), np.arange(12.0).reshape(3, 4),
          np.arange(1, 9, dtype=np.uint8))


def nan_scans(a, m, i):
    return (np.nancumsum(a), np.nancumprod(a), np.nancumsum(m, axis=1), np.nancumsum(i),
            np.nanvar(i))


def nan_variances(a, m):
    return (np.nanvar(a), np.nanstd(m, axis=1, ddof=1, keepdims=True),
            np.nanvar(m.astype(np.float32), axis=1), np.nanvar(m, ddof=40))


def nan_medians(a, m, i):
    return (np.nanmedian(a), np.nanmedian(m, axis=0), np.nanmedian(m, axis=1, keepdims=True),
            np.nanmedian(m), np.nanmedian(i), np.nanmedian(m.astype(np.float32), axis=1))


def _nan_data():
    rng = np.random.default_rng(23)
    a = rng.standard_normal(37)
    a[::5] = np.nan
    m = rng.standard_normal((6, 7))
    m[1, :] = np.nan            # an all-NaN row: NaN results (NumPy warns)
    m[::2, 3] = np.nan
    m[4, ::2] = np.nan
    return a, m, rng.integers(0, 9, 11)


def test_nan_statistics_equal_numpy():
    """Separate pipelines: one kernel of all of them compiles for ~18 s (the
    variances and medians, ~5 s CPU, are test_nan_variances_and_medians_equal_numpy's,
    in the slow run; the default run's nanvar/nanstd: test_sum_order_functions19)."""
    a, m, i = _nan_data()
    check(ph.pipeline(nan_scans), a, m, i)


@pytest.mark.slow
def test_nan_variances_and_medians_equal_numpy():
    a, m, i = _nan_data()
    check(ph.pipeline(nan_variances), a, m)
    check(ph.pipeline(nan_medians), a, m, i)
    # empty slices: NaN (nothing is read along an empty axis)
    check(ph.pipeline(nan_medians), np.zeros(0), np.zeros((3, 0)), i[:0])


def nonzero_call(a):
    return np.nonzero(a)


def nonzero_method(a):
    return a.nonzero()


def argwhere_call(a):
    return np.argwhere(a > 0)


def unique_call(a):
    return np.unique(a, return_counts=True)


def bincount_call(a):
    return np.bincount(a, minlength=10)


def flatnonzero_call(a):
    return np.flatnonzero(a)


@pytest.mark.parametrize("fn,snippet", [
    (nonzero_call, "np.nonzero(a)"), (nonzero_method, "a.nonzero()"),
    (argwhere_call, "np.argwhere"), (unique_call, "np.unique"),
    (bincount_call, "np.bincount"), (flatnonzero_call, "np.flatnonzero")])
def test_results_sized_by_data_are_located_errors(fn, snippet):
    expect_error(fn, (np.arange(5),), snippet, "depends on the array's values")


def convolutions(a, v):
    return (np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(a, v, mode="valid"),
            np.correlate(a, v), np.correlate(a, v, "same"), np.correlate(a, v, "full"))


def test_convolve_correlate_modes_equal_numpy_for_integers():
    """Every mode, both orders of lengths (np.correlate reverses when a is
    shorter), mixed integer dtypes: exact."""
    p = ph.pipeline(convolutions)
    for n1, n2 in [(1, 1), (2, 4), (5, 3), (8, 9), (4, 4)]:
        check(p, RNG.integers(-9, 9, n1), RNG.integers(-9, 9, n2))
    check(p, RNG.integers(-9, 9, 6).astype(np.int8), RNG.integers(-9, 9, 3).astype(np.int16))


def test_convolve_correlate_floats_within_the_stated_bound():
    """NumPy adds a float output's terms by BLAS's dot (its own order)."""
    a, v = RNG.standard_normal(50), RNG.standard_normal(7).astype(np.float32)
    got = ph.pipeline(convolutions)(a, v)
    for g, e in zip(got, convolutions(a, v)):
        assert g.dtype == e.dtype and g.shape == e.shape
        bound = 6 * np.finfo(np.float64).eps * np.convolve(np.abs(a), np.abs(v), "full").max()
        assert np.max(np.abs(g - e)) <= bound


def convolve_empty(a, v):
    return np.convolve(a, v)


def test_convolve_of_an_empty_array_raises_numpys_error():
    with pytest.raises(ValueError, match="v cannot be empty"):
        ph.pipeline(convolve_empty)(np.arange(3.0), np.zeros(0))


def histograms(a, e):
    return (np.histogram(a), np.histogram(a, bins=7, range=(-1, 2)), np.histogram(a, e),
            np.histogram(a, 3))


def histogram4(a):
    return np.histogram(a, 4)


def test_histogram_equals_numpy():
    """Uniform bins (autodetected and given range, float32 and integer data,
    equal min and max), edges given; NaN data and decreasing edges raise
    NumPy's ValueError; empty data bins over [0, 1]."""
    p = ph.pipeline(histograms)
    e = np.array([-1.0, 0.0, 0.5, 2.0, 3.0])
    check(p, RNG.standard_normal(1000), e)
    check(p, np.full(5, 3.0), e)
    check(p, np.array([1.0, np.nan]), e)
    check(p, RNG.standard_normal(9), e[::-1].copy())
    q = ph.pipeline(histogram4)
    check(q, np.zeros(0))
    check(q, np.array([5, 5, 5], np.uint8))


@pytest.mark.slow
def test_histogram_of_other_dtypes_equals_numpy():
    """test_histogram_equals_numpy's pipelines for int64, float32 data (kernels of their own)."""
    rng = np.random.default_rng(215)
    e = np.array([-1.0, 0.0, 0.5, 2.0, 3.0])
    p = ph.pipeline(histograms)
    check(p, rng.integers(0, 20, (10, 10)), e)
    check(p, rng.standard_normal(300).astype(np.float32), e)
    check(ph.pipeline(histogram4), np.zeros(0, np.float32))
