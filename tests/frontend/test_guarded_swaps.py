"""Element swaps under `if`s in a single loop (issue 17): one pass of bubble
sort (`if a[i] > a[i + 1]: a[i], a[i + 1] = a[i + 1], a[i]`) runs in phase
mode (carried_phases.py), each write made only where the tests hold, as in
Python: a read or an index that would be out of range where a test fails
raises nothing, one where it holds raises IndexError. Compared with plain
Python on copies (results and arguments), NaN included."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


@ph.pipeline
def one_pass(a):
    for i in range(a.shape[0] - 1):
        if a[i] > a[i + 1]:
            a[i], a[i + 1] = a[i + 1], a[i]
    return a


@ph.pipeline
def pass_k(a, k):
    for i in range(k):
        if a[i] > a[i + 1]:
            a[i], a[i + 1] = a[i + 1], a[i]
    return a


@ph.pipeline
def nested_ifs(a, b):
    n = a.shape[0]
    for i in range(n // 2):
        if a[i] < a[n - 1 - i]:
            if b[i] > 0:
                a[i], a[n - 1 - i] = a[n - 1 - i] * b[i], a[i]
    return a


@ph.pipeline
def guarded_far(a, idx):
    for i in range(a.shape[0]):
        if idx[i] < a.shape[0]:
            a[i], a[idx[i]] = a[idx[i]], a[i]
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 9, 33])
def test_one_pass_and_nested_ifs(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    x[::4] = np.nan
    check_inplace(one_pass, x)
    check_inplace(nested_ifs, rng.standard_normal(n), rng.standard_normal(n))


@pytest.mark.parametrize("n", [0, 1, 5, 9])
def test_indices_checked_only_where_tests_hold(n):
    """idx holds indices out of range (past the end, or below -n) where the
    test fails, and negative ones that wrap where it holds."""
    rng = np.random.default_rng(n + 1)
    idx = rng.integers(-n, 2 * n + 1, n)
    check_inplace(guarded_far, rng.standard_normal(n), idx)


def test_repeated_passes_and_index_error():
    for k in (0, 3, 5):
        check_inplace(pass_k, np.array([5.0, 4, 3, 2, 1, 0]), k)
    with pytest.raises(IndexError):
        pass_k.py_func(np.arange(6.0), 6)
    with pytest.raises(IndexError, match="out of bounds"):
        pass_k(np.arange(6.0), 6)
