"""Float sums, means and variances of slices whose bounds are scalar
arguments (`a[:n].sum()`, `np.mean(a[k:])`): NumPy's pairwise order over a
row whose length is computed from a Python int (an int64 narrowed to the
index type) was refused by bounds inference ("cannot bound the region of
Func sum_leaf"); the length is now a call-time parameter. Medians and
quantiles of such slices read a sorted array that was not computed where its
length was 1: now an IndexError (tests/core/test_narrowed_rdom_extent.py). Each result is plain
NumPy's, bit for bit."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def head_sum(a, n):
    return a[:n].sum()


@ph.pipeline
def tail_sum(a, n):
    return np.sum(a[n:])


@ph.pipeline
def tail_mean(a, n):
    return np.mean(a[n:])


@ph.pipeline
def window_sum(a, n, m):
    return a[n:m].sum()


@ph.pipeline
def head_var(a, n):
    return np.var(a[:n])


@ph.pipeline
def columns_sum(a, n):
    return a[:, :n].sum(axis=1)


@ph.pipeline
def corner_sum(a, n):
    return np.sum(a[:n, :n])


@pytest.mark.parametrize("n", [0, 3, 150, 400, -7])
def test_one_dimensional(n):
    v = np.random.default_rng(2).random(300)
    check(head_sum, v, n)
    check(tail_sum, v, n)
    check(tail_mean, v, n)
    check(window_sum, v, n, 250)
    check(head_var, v, n)


@pytest.mark.parametrize("n", [0, 3, 20, -2])
def test_two_dimensional(n):
    a = np.random.default_rng(1).random((9, 130))
    check(columns_sum, a, n)
    check(corner_sum, a, n)


@ph.pipeline
def head_median(a, n):
    return np.median(a[:n])


@ph.pipeline
def head_quantile(a, n):
    return np.quantile(a[:n], 0.3), np.percentile(a[n:], 50)


@pytest.mark.parametrize("n", [2, 3, 10, -3])
def test_order_statistics(n):
    v = np.random.default_rng(5).random(20)
    check(head_median, v, n)
    check(head_quantile, v, n)


def test_order_statistics_of_one_element_never_wrong():
    # a slice of run-time length 1: IndexError (tests/core/test_narrowed_rdom_extent.py),
    # before this session uninitialized memory
    v = np.random.default_rng(5).random(20)
    for p in (head_median, head_quantile):
        for n in (1, 19, -1):
            try:
                got = p(v, n)
            except IndexError:
                continue
            assert got == p.py_func(v, n)
