"""Element updates with checked indices run a fast path
(lowering/assert_fast_path.py): `if (likely(c))` the body without its
assertions and index clamps, else the checked body. Compared with plain
Python at the edges of the fast condition (the first and last valid index,
one past them, -0.0, NaN, infinity, values past int64 and past 2**51), with
the writes Python made before an error and the same exception type."""
import math

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.histogram_kernels import compare_with_python, hist_loop, weighted_loop


def _floored_py(x, hist):
    k = hist.shape[0]
    for i in range(x.shape[0]):
        hist[math.floor(x[i] * k)] += 1.0
    return hist


hist = ph.pipeline(hist_loop)
weighted = ph.pipeline(weighted_loop)
floored = ph.pipeline(_floored_py)


def _fast_loop(p):
    """The final Stmt's update loop: its fast branch and its checked branch."""
    text = p.lower("final")
    fast, _, slow = text.partition("} else {")
    return fast[fast.index("if (likely("):], slow


def test_the_fast_branch_has_no_assertion_or_clamp():
    hist(np.arange(-4, 4), np.zeros(4, np.int64))
    fast, slow = _fast_loop(hist)
    assert "assert" not in fast and "max(min(" not in fast
    assert "assert" in slow and "max(min(" in slow


def test_int_of_a_float_is_one_range_test_and_an_exact_conversion():
    weighted(np.linspace(-0.99, 0.99, 50), np.ones(50), np.zeros(4))
    fast, _ = _fast_loop(weighted)
    condition = fast[:fast.index("{")]
    assert condition.count("trunc(") == 2 and "!=" not in condition  # no NaN guard
    assert "reinterpret(" in fast and "int64(cse" not in fast


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.int8])
def test_integer_histogram_edges(dtype):
    info = np.iinfo(dtype)
    for size in (1, 7, 128):
        edges = [0, size - 1, size, -1, -size, -size - 1, info.min, info.max]
        for bad in edges:
            data = np.array([0, 1 % size, bad, 0], np.int64)
            if info.min <= bad <= info.max:
                compare_with_python(hist, lambda: np.zeros(size, np.int64), data.astype(dtype))


def test_large_integer_indices():
    for bad in (1 << 31, -(1 << 31) - 1, 1 << 52, (1 << 62), -(1 << 63)):
        compare_with_python(hist, lambda: np.zeros(8, np.int64), np.array([3, bad, 1]))


def _near(v):
    return [v, np.nextafter(v, -np.inf), np.nextafter(v, np.inf)]


@pytest.mark.parametrize("k", [1, 8, 1000])
def test_weighted_edges_of_the_range_test(k):
    w = np.array([1.0, 2.0, 4.0])
    products = [0.0, -0.0, k - 1, k, -k, -k - 1, 2.0 ** 51, 2.0 ** 53, 2.0 ** 63,
                -2.0 ** 63, 1e300, np.inf, -np.inf, np.nan, -0.5, 0.5]
    for prod in products:
        for v in _near(float(prod)):
            x = np.array([0.25, v / k if np.isfinite(v) else v, 0.75])
            compare_with_python(weighted, lambda: np.zeros(k), x, w)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_random_with_negative_wrap(seed):
    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 33, 2000):
        x, w = rng.random(n) * 2 - 1, rng.random(n)
        compare_with_python(weighted, lambda: np.zeros(16), x, w)


def test_floor_index_edges():
    k = 4
    for prod in (0.0, -0.0, -0.5, -4.0, -4.5, -5.0, 3.5, 4.0, np.nan, np.inf, -np.inf, 1e20):
        for v in _near(float(prod)):
            x = np.array([0.1, v / k if np.isfinite(v) else v, 0.6])
            compare_with_python(floored, lambda: np.zeros(k), x)


def _self_indexed_py(a):
    for i in range(a.shape[0]):
        a[a[i]] += 1
    return a


self_indexed = ph.pipeline(_self_indexed_py)


@pytest.mark.parametrize("seed", range(3))
def test_an_update_indexed_by_the_array_it_writes(seed):
    # the index read at element i may be one an earlier element incremented
    rng = np.random.default_rng(seed)
    for n in (1, 2, 9, 64):
        a = rng.integers(-n, n, n)
        want, got = a.copy(), a.copy()
        try:
            _self_indexed_py(want)
        except IndexError:
            with pytest.raises(IndexError):
                self_indexed(got)
            assert np.array_equal(got, want)
            continue
        assert np.array_equal(self_indexed(got), want)
