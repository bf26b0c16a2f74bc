"""Builtin sum/min/max of arrays and generator expressions (issue 17):
Python's left-to-right order (float sums bit-exact), min/max keeping the
first of equal items and NaN only as the first item, `start=`, `default=`,
ValueError on an empty iterable. Compared with plain Python at sizes 0, 1,
5 and 1003, int and float arrays."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check

SIZES = (0, 1, 5, 1003)
DTYPES = (np.float64, pytest.param(np.int64, marks=pytest.mark.slow),
          pytest.param(np.float32, marks=pytest.mark.slow))


def _data(n, dtype, seed=0):
    rng = np.random.default_rng(seed + n)
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(n) * 1e3).astype(dtype)
    return rng.integers(-1000, 1000, n).astype(dtype)


@ph.pipeline
def sum_array(a):
    return sum(a)


@ph.pipeline
def sum_generator(a, n):
    return sum(a[i] * a[n - 1 - i] for i in range(n))


@ph.pipeline
def sum_filtered_start(a):
    return sum((x for x in a if x > 0), 0.25)


@ph.pipeline
def sum_keyword_start(a):
    return sum(a, start=1)


@ph.pipeline
def min_max_array(a):
    return min(a), max(a)


@ph.pipeline
def max_generator_default(a):
    return max((abs(a[i] - a[i - 1]) for i in range(1, len(a))), default=-1.0)


@ph.pipeline
def min_in_expression(a):
    return min(a) * 2 + max(a[i] for i in range(len(a))) - sum(a)


@ph.pipeline
def generator_variable_does_not_leak(a):
    i = 7
    s = sum(a[i] for i in range(len(a)))
    return s, i


@ph.pipeline
def sum_of_sums(m):
    return sum(sum(m[i, j] for j in range(m.shape[1])) for i in range(m.shape[0]))


@ph.pipeline
def row_sums_and_mins(m):
    out = np.zeros(m.shape[0])
    low = np.zeros(m.shape[0])
    for r in range(m.shape[0]):
        out[r] = sum(m[r, j] for j in range(m.shape[1]))
        low[r] = min((m[r, j] for j in range(m.shape[1])), default=0.0)
    return out, low


@ph.pipeline
def sum_if_test(a, t):
    if sum(a) > t:
        return 1
    return 0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_builtin_reductions(n, dtype):
    a = _data(n, dtype)
    check(sum_array, a)
    check(sum_generator, a, n)
    check(sum_filtered_start, a)
    check(sum_keyword_start, a)
    check(min_max_array, a)
    check(max_generator_default, a)
    check(min_in_expression, a)
    check(generator_variable_does_not_leak, a)
    check(sum_if_test, a, dtype(3))


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (5, 5), (3, 1003)])
def test_nested_reductions(shape):
    m = _data(shape[0] * shape[1], np.float64).reshape(shape)
    check(sum_of_sums, m)
    check(row_sums_and_mins, m)


def test_nan_positions():
    """min/max compare with `<`/`>` as Python does: a NaN first is kept, a
    NaN later never replaces the running value."""
    for a in (np.array([np.nan, 1.0, -2.0]), np.array([1.0, np.nan, -2.0]),
              np.array([3.0, 1.0, np.nan]), np.array([-0.0, 0.0]), np.array([0.0, -0.0])):
        check(min_max_array, a)
        check(sum_array, a)


def test_empty_raises_value_error():
    with pytest.raises(ValueError, match="empty"):
        min_max_array(np.zeros(0))


def test_sum_is_sequential():
    """A float sum in Python's order, not NumPy's pairwise one."""
    a = np.array([1e16, 1.0, -1e16, 1.0] * 40)
    got = check(sum_array, a)
    assert got == sum(a.tolist()) and got != np.sum(a)


def test_key_refused():
    @ph.pipeline
    def with_key(a):
        return min(a, key=abs)

    with pytest.raises(ph.CompileError, match=r"min\(key=...\)"):
        with_key(np.ones(3))
