"""Two element writes of one array in different loops of one nest
(frontend_ast/deps.py check_write_order): each becomes a definition that runs
for every iteration before the next one does, which keeps Python's order only
where the earlier statement never writes an element at a later iteration than
the later statement. Loop-fuzz seed 174 returned [24, 0, 24] where Python
returns [8, 0, 24]: `iout[i3] = 8` inside an inner loop and
`iout[N - 1 - i3 % N] = ...` after it both wrote element 0, in the opposite
order at different iterations."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check
from .test_frontend_errors import expect


def inner_then_mirrored(a):
    n = len(a)
    out = np.zeros(n, np.int64)
    for i in range(n - 1, -1, -2):
        for j in range(n):
            out[i] = 8
        out[n - 1 - i % n] = a[1]
    return out


def inner_everywhere_then_diagonal(a):
    n = len(a)
    out = np.zeros(n, np.int64)
    for i in range(n):
        for j in range(n):
            out[j] = a[i]
        out[i] = -a[i]
    return out


def fuzz_seed_174(a, b, n):
    N = len(a)
    s = 0
    k = 1
    t = 0.5
    u = 0.0
    iout = np.zeros(N, np.int64)
    fout = np.zeros(N, np.float64)
    iout[2] = ((4 - a[0]) - n)
    for i3 in range(N - 1, -1, -2):
        for i4 in range(N):
            iout[i3] = 8
            s = s * 3 % 10007 + k
        if (i3 > i3) or (float(i3) == t):
            break
        t -= (max(0.25, u) + fout[2])
        iout[N - 1 - i3 % N] = ((a[(i3 * 3 + 1) % N] * 2 % 10007) & (a[1] * a[0] % 10007))
    return s, t, iout


@pytest.mark.parametrize("fn, snippet", [
    (inner_then_mirrored, "out[n - 1 - i % n] = a[1]"),
    (inner_everywhere_then_diagonal, "out[i] = -a[i]"),
])
def test_writes_whose_order_the_loops_cannot_keep_run_in_pythons_order(fn, snippet):
    # (refused until session 27; now built again in phase mode, whose order
    # is Python's: specialize._build_with_blocks)
    a = np.array([17, 13, 3])
    assert not np.array_equal(fn(a.copy()), _definition_order(fn, a))
    p = ph.pipeline(fn)
    for x in (a, np.arange(7), np.array([5]), np.array([], np.int64)):
        check(p, x)         # (len 1 inner_then_mirrored: IndexError as in Python)


def test_fuzz_seed_174_is_refused_not_wrong():
    expect(fuzz_seed_174, "iout[N - 1 - i3 % N] =", "Python's order",
           args=(np.array([17, 13, 3]), np.array([-4.34, 6.54, -4.54]), 0))


def inner_row_then_same_element(a):
    n, m = a.shape
    out = np.zeros(n, np.int64)
    for i in range(n):
        for j in range(m):
            out[i] = a[i, j] * j
        out[i] *= 2
    return out


def sibling_inner_loops(a):
    n, m = a.shape
    out = np.zeros((n, m), np.int64)
    for i in range(n):
        for j in range(m):
            out[i, j] = a[i, j]
        for j in range(m):
            out[i, j] += 1
    return out


def earlier_rows_only(a):
    n, m = a.shape
    out = np.zeros(n + 1, np.int64)
    for i in range(n):
        for j in range(m):
            out[i + 1] = a[i, j]
        out[i] -= 1
    return out


@pytest.mark.parametrize("fn", [inner_row_then_same_element, sibling_inner_loops,
                                earlier_rows_only])
def test_writes_in_an_order_the_loops_keep_compile(fn):
    a = np.arange(12, dtype=np.int64).reshape(3, 4) - 5
    check(ph.pipeline(fn), a)


def _definition_order(fn, a):
    """What running each write statement for every iteration in turn gives
    (the order the refused program would have compiled to)."""
    n = len(a)
    out = np.zeros(n, np.int64)
    if fn is inner_then_mirrored:
        for i in range(n - 1, -1, -2):
            out[i] = 8
        for i in range(n - 1, -1, -2):
            out[n - 1 - i % n] = a[1]
    else:
        for i in range(n):
            out[:] = a[i]
        for i in range(n):
            out[i] = -a[i]
    return out
