"""Kernels from Pythran's test cases (pythran/tests/cases, rewritten here):
each compiled result equals plain Python's, or the refusal is located."""
import numpy as np

import pyhalide as ph

from .frontend_check import check
from .located_errors import expect_error


def _window_floor(idx, radius):
    if radius > idx:
        return 0
    else:
        return idx - radius


def _window_ceil(idx, ceil, radius):
    if idx + radius > ceil:
        return ceil
    else:
        return idx + radius


@ph.pipeline
def window_sums(a, radius):
    """growcut's clamped windows: range(window_floor(j, r), window_ceil(j + 1, n, r)),
    a select that is max(j - r, 0) (the loop's bounds were unknown: an
    OverflowError for every call)."""
    out = np.zeros(a.shape[0])
    for j in range(a.shape[0]):
        for jj in range(_window_floor(j, radius), _window_ceil(j + 1, a.shape[0], radius)):
            out[j] += a[jj]
    return out


@ph.pipeline
def window_counts(a, radius):
    out = np.zeros(a.shape[0], np.int64)
    for j in range(a.shape[0]):
        lo = j - radius if j >= radius else 0
        for jj in range(lo, j + 1):
            if a[jj] > a[j]:
                out[j] += 1
    return out


@ph.pipeline
def box_filter(img, r):
    out = np.zeros(img.shape)
    for i in range(img.shape[0]):
        for j in range(img.shape[1]):
            s = 0.0
            for ii in range(max(i - r, 0), min(i + r + 1, img.shape[0])):
                for jj in range(max(j - r, 0), min(j + r + 1, img.shape[1])):
                    if img[ii, jj] > 0.25:
                        s += img[ii, jj]
            out[i, j] = s
    return out


def test_clamped_window_bounds():
    # a window wider than the array: its loops run over a hull whose
    # positions leave the array; the conditions' reads raised IndexError
    check(box_filter, np.random.default_rng(4).random((5, 7)), 9)
    check(box_filter, np.random.default_rng(4).random((5, 7)), 1)
    rng = np.random.default_rng(3)
    a = rng.random(12)
    for r in (0, 1, 2, 5, 40):
        check(window_sums, a, r)
        check(window_counts, a, r)
    check(window_sums, a[:0], 2)


def test_unbounded_dependent_range_is_a_located_error():
    def f(a, r):
        out = np.zeros(a.shape[0])
        for j in range(a.shape[0]):
            lo = 0 if r > j + 1 else j - r
            for jj in range(lo, j + 1):
                out[j] += a[jj]
        return out
    expect_error(f, (np.arange(5.0), 2), "range(lo, j + 1)", "cannot bound this loop's range")


def test_a_nested_function_definition_is_inlined():
    # sumarray3d: loops inside a nested def crashed a rewrite with a KeyError; nested
    # defs are inlined where called now (nested_defs.py)
    def summation(pos, weights, points):
        n_points = len(points)
        out = np.zeros((n_points, 3))

        def compute(i):
            total = 0.0
            for j in range(len(weights)):
                total += weights[j] * pos[j, 0]
                out[i, 0] += weights[j]
            return total

        t = compute(0)
        return t, out

    a = np.random.default_rng(3).random((4, 3))
    got = ph.pipeline(summation)(a, np.arange(4.0), a)
    want = summation(a, np.arange(4.0), a)
    assert got[0] == want[0] and np.array_equal(got[1], want[1])


def test_a_helper_writing_arrays_inside_a_tuple_is_a_located_error():
    def pair(a):
        out = np.zeros(2)

        def put(i):
            out[i] = a[i]
            return a[i]

        return put(0), out
    expect_error(pair, (np.ones(3),), "put(0)", "on its own line")
