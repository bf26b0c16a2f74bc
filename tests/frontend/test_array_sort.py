"""np.sort and a.sort() (frontend_ast/array_sort.py): a stable merge sort
along one axis with NumPy's order (NaN last), compared with NumPy (values,
dtypes, shapes); the in-place method writes named arrays, views and
arguments as NumPy does."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

RNG = np.random.default_rng(1616)


def sort_1d(a):
    return np.sort(a), np.sort(a, kind="stable")


def sort_axes(a):
    return np.sort(a), np.sort(a, axis=0), np.sort(a, axis=None), np.sort(a * 2, 0)[1:, ::2]


def sort_views(a):
    return np.sort(a[::2, 1:], axis=1), np.sort(a.T, axis=-1), np.sort(a[1])


def sort_3d(a):
    return np.sort(a, axis=1), np.sort(a, axis=0)


def with_nans(n):
    x = RNG.standard_normal(n)
    x[::7] = np.nan
    x[3::11] = np.inf
    x[5::13] = -np.inf
    return x


@pytest.mark.parametrize("a", [
    np.zeros(0), np.array([2.5]), with_nans(37), with_nans(130).astype(np.float32),
    RNG.integers(-9, 9, 64).astype(np.int8), RNG.integers(0, 256, 100).astype(np.uint8),
    RNG.integers(-5, 5, 33), np.array([np.iinfo(np.int64).max, 0, np.iinfo(np.int64).min, -1]),
    RNG.integers(0, 2, 21).astype(bool),
], ids=lambda a: f"{a.dtype}x{a.size}")
def test_sort_1d_equals_numpy(a):
    check(ph.pipeline(sort_1d), a)


def test_sort_along_axes_equals_numpy():
    x = RNG.standard_normal((6, 9))
    x[2, ::3] = np.nan
    check(ph.pipeline(sort_axes), x)
    check(ph.pipeline(sort_views), x)


@pytest.mark.slow
def test_sort_along_axes_of_integers_equals_numpy():
    """test_sort_along_axes_equals_numpy's pipelines for int16 and 3-D uint16
    arrays (kernels of their own)."""
    rng = np.random.default_rng(49)
    check(ph.pipeline(sort_axes), rng.integers(-20, 20, (5, 4)).astype(np.int16))
    check(ph.pipeline(sort_3d), rng.integers(0, 50, (3, 5, 4)).astype(np.uint16))


def sort_auto(a):
    return np.sort(a, axis=0) + 1


def test_sort_under_the_automatic_schedule():
    check(ph.pipeline(sort_auto, schedule="auto"), RNG.standard_normal((40, 3)))


def sorts_in_place(a):
    b = a.copy()
    b.sort()
    c = a * 2
    c[1:].sort(axis=0)
    r = b.sort()
    return b, c, r


def sort_argument(a):
    a.sort(axis=0)
    return a[0]


def test_sort_method_in_place():
    x = RNG.standard_normal((5, 7))
    check(ph.pipeline(sorts_in_place), x)
    y = x.copy()
    first = ph.pipeline(sort_argument)(y)
    assert np.array_equal(y, np.sort(x, axis=0)) and np.array_equal(first, y[0])


def sort_complex(a):
    return np.sort(a + 1j)


def sort_axis_none_method(a):
    a.sort(axis=None)
    return a


def sort_bad_axis(a):
    return np.sort(a, axis=2)


def test_sort_refusals_are_located():
    x = RNG.standard_normal((3, 4))
    expect_error(sort_complex, (x,), "np.sort(a + 1j)", "complex")
    expect_error(sort_axis_none_method, (x,), "None", "axis=None")
    expect_error(sort_bad_axis, (x,), "2)", "out of bounds")


def argsorts(a):
    return (np.argsort(a, kind="stable"), a.argsort(axis=None, kind="stable"),
            np.argsort(a, axis=0, kind="stable"), np.sort(a, axis=0))


@pytest.mark.parametrize("a", [
    RNG.integers(0, 5, (7, 9)), np.where(RNG.random((5, 6)) < .3, np.nan,
                                         RNG.integers(0, 3, (5, 6)).astype(float)),
    RNG.integers(0, 2, (3, 10)).astype(bool),
], ids=lambda a: f"{a.dtype}")
def test_argsort_is_numpys_stable_order(a):
    """Ties and NaNs: the positions of equal values in their original order."""
    check(ph.pipeline(argsorts), a)


def argsort_default(a):
    return np.argsort(a), a.argsort(axis=0), np.argsort(a, axis=None)


def test_argsort_default_kind_of_distinct_values():
    """NumPy's default kind orders ties its own way (a SIMD sort on this
    host); distinct values have one order."""
    check(ph.pipeline(argsort_default), RNG.permutation(60).reshape(6, 10) * 0.5)


def long_sort(a):
    return np.sort(a), np.argsort(a, kind="stable")


@pytest.mark.parametrize("n", [1, 2, 3, 1000, 4097])
def test_sort_lengths_around_powers_of_two(n):
    """Run pairs whose right run is short or missing, n = 1 (no pass)."""
    p = ph.pipeline(long_sort)
    check(p, RNG.integers(-50, 50, n).astype(np.float64))
