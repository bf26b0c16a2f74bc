"""Histogram loops (issue 17): an element update `hist[v] += 1` checks its
index once (frontend_ast/context.py: the write's check repeats the read's,
which raises first, where Python raises), and a check image's read is gone
past its assertion (lowering/check_image_reads.py). Compared with plain
Python: negative indices wrap, out-of-range ones raise IndexError with the
writes Python made before, int() of NaN / infinity raise as Python does."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.histogram_kernels import compare_with_python, hist_loop, weighted_loop


def _two_d_py(rows, cols, hist):
    for i in range(rows.shape[0]):
        hist[rows[i], cols[i]] += 1
    return hist


hist = ph.pipeline(hist_loop)
weighted = ph.pipeline(weighted_loop)
two_d = ph.pipeline(_two_d_py)


@pytest.mark.parametrize("seed", range(4))
def test_histogram_with_wrapping_and_failing_indices(seed):
    rng = np.random.default_rng(seed)
    for n in (0, 1, 2, 17, 1000):
        data = rng.integers(-16, 16, n)
        compare_with_python(hist, lambda: np.zeros(16, np.int64), data)
        if n:
            for bad in (16, -17, 1 << 40, -(1 << 40)):
                d = data.copy()
                d[rng.integers(n)] = bad
                compare_with_python(hist, lambda: np.zeros(16, np.int64), d)
    compare_with_python(hist, lambda: np.zeros(0, np.int64), np.zeros(0, np.int64))
    compare_with_python(hist, lambda: np.zeros(0, np.int64), np.array([0]))


def test_one_check_per_element_update():
    data = np.array([1, -1, 3])
    hist(data, np.zeros(4, np.int64))
    index_checks = [c for c in hist.last_specialization.builder.cx.check_images
                    if c.exc == "IndexError"]
    assert len(index_checks) == 1


@pytest.mark.parametrize("seed", range(3))
def test_weighted_histogram(seed):
    rng = np.random.default_rng(seed)
    for n in (0, 1, 5, 500):
        x, w = rng.random(n), rng.random(n)
        compare_with_python(weighted, lambda: np.zeros(8), x, w)
        if n:
            for bad in (1.0, -0.2, -1.01, 7.5, 1e30, np.inf, -np.inf, np.nan):
                xb = x.copy()
                xb[rng.integers(n)] = bad
                compare_with_python(weighted, lambda: np.zeros(8), xb, w)


def test_two_dimensional_histogram():
    rng = np.random.default_rng(9)
    for n in (0, 3, 300):
        r, c = rng.integers(-5, 5, n), rng.integers(-3, 3, n)
        compare_with_python(two_d, lambda: np.zeros((5, 3), np.int32), r, c)
        if n:
            r2 = r.copy()
            r2[n // 2] = 5
            compare_with_python(two_d, lambda: np.zeros((5, 3), np.int32), r2, c)
            c2 = c.copy()
            c2[n - 1] = -4
            compare_with_python(two_d, lambda: np.zeros((5, 3), np.int32), r, c2)


def _through_table_py(data, table, hist):
    for i in range(data.shape[0]):
        hist[table[data[i]]] += 1
    return hist


through_table = ph.pipeline(_through_table_py)


def test_nested_checked_indices():
    # the table's check sits inside the histogram's index check
    rng = np.random.default_rng(11)
    table = rng.integers(-6, 6, 10)
    for n in (0, 1, 40):
        data = rng.integers(-10, 10, n)
        compare_with_python(through_table, lambda: np.zeros(6, np.int64), data, table)
        if n:
            for bad_data, bad_table in ((10, None), (-11, None), (None, 6), (None, -7)):
                d, t = data.copy(), table.copy()
                if bad_data is not None:
                    d[n // 2] = bad_data
                else:
                    t[:] = bad_table
                compare_with_python(through_table, lambda: np.zeros(6, np.int64), d, t)


def _copy_plus_one_py(a, b, idx):
    for i in idx:
        b[i] = a[i] + 1
    return b


copy_plus_one = ph.pipeline(_copy_plus_one_py)


@pytest.mark.parametrize("idx", [[1, 2], [1, 5], [-5, 0], [3], [-4], [0, 9]])
def test_the_values_check_fails_before_the_stores(idx):
    # b is shorter than a: an index past both raises a's error, as Python's
    # read of a[i] comes before the store into b
    a, idx = np.arange(4), np.array(idx)
    want_b, got_b = np.zeros(3, np.int64), np.zeros(3, np.int64)
    try:
        want = _copy_plus_one_py(a, want_b, idx)
    except IndexError as e:
        with pytest.raises(IndexError) as got:
            copy_plus_one(a, got_b, idx)
        assert str(got.value).startswith(str(e))
        assert np.array_equal(got_b, want_b)
        return
    assert np.array_equal(copy_plus_one(a, got_b, idx), want)
