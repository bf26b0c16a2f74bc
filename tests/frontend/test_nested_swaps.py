"""Element swaps in a perfect nest of two loops (issue 17): bubble sort
(`for i: for j in range(n - 1 - i): if a[j] > a[j + 1]: swap`), an in-place
transpose, triangular and reversed inner ranges run in phase mode with one
RVar per loop (the inner one over its largest trip count, predicated by the
running outer iteration's). Compared with plain Python on copies (results
and arguments), NaN and integers included."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


@ph.pipeline
def bubble_sort(a):
    n = a.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return a


@ph.pipeline
def bubble_down(a, lo):
    n = a.shape[0]
    for i in range(lo, n - 1):
        for j in range(n - 1, i, -1):
            if a[j - 1] < a[j]:
                a[j - 1], a[j] = a[j], a[j - 1]
    return a


@ph.pipeline
def transpose_in_place(m):
    n = m.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            m[i, j], m[j, i] = m[j, i], m[i, j]
    return m


@ph.pipeline
def growing_inner(a, b):
    n = a.shape[0]
    for i in range(n):
        for j in range(i):
            a[j], a[i] = a[i] + b[j], a[j]
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 31])
def test_bubble_sorts(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    x[::5] = np.nan
    check_inplace(bubble_sort, x)
    check_inplace(bubble_sort, rng.integers(-5, 5, n).astype(np.int32))
    for lo in (0, 1, 3):
        check_inplace(bubble_down, rng.standard_normal(n), lo)


@pytest.mark.parametrize("n", [0, 1, 4, 7])
def test_transpose_and_growing(n):
    rng = np.random.default_rng(n + 7)
    check_inplace(transpose_in_place, rng.standard_normal((n, n)))
    check_inplace(growing_inner, rng.standard_normal(n), rng.standard_normal(n))


def test_transpose_of_non_square_raises_like_python():
    m = np.zeros((3, 2))
    with pytest.raises(IndexError):
        transpose_in_place.py_func(m.copy())
    with pytest.raises(IndexError):
        transpose_in_place(m.copy())
