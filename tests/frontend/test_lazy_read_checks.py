"""Index checks of reads that happen only in a taken lazy branch (a while
loop's condition with `and`/`or`, loop-state flags) are nested IfThenElse
statements on the branches' conditions, each condition evaluated once for a
run of checks, not one `assert(if_then_else(path, check, true))` per read:
those re-emitted the whole path per check (a 25-line fuzzed loop program,
loop-fuzz seed 56, took 44 s to compile, now ~6 s)."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


def helper(x, y):
    if x > y:
        return x - y
    return y * 2 - x


def fuzzed(a, b, n):
    N = len(a)
    s = 0
    k = 1
    m = n
    t = 0.5
    u = -1.25
    iout = np.zeros(N, np.int64)
    fout = np.zeros(N, np.float64)
    iout[1] = m
    i1 = 0
    while i1 < N and (((u != fout[2]) or (b[0] == t)) and (a[1] >= s)):
        i1 += 1
        iout[i1 % N] = ((-5 - a[(i1 * 3 + 1) % N]) - (m + i1))
        if abs(4) < helper(a[N - 1 - i1 % N], k):
            continue
        u = ((u if 1.75 <= 1.25 else -1.5) + float(m))
    u -= (abs(b[2]) - max(fout[1], b[1]))
    u = u % 1000.0
    return s, k, m, t, u, iout, fout


@pytest.fixture(scope="module")
def compiled():
    return ph.pipeline(fuzzed)


@pytest.mark.parametrize("a, b, n", [
    (np.array([3, -1, 4], np.int64), np.array([0.5, 2.0, -1.0]), 1),
    (np.array([0, 7, 2], np.int64), np.array([0.5, -2.0, 1.0]), 2),
    (np.array([5, 1], np.int64), np.array([0.25, 2.0, 3.0]), 3),     # fout[2]: IndexError
])
def test_results_equal_python(compiled, a, b, n):
    check(compiled, a, b, n)


def test_checks_under_lazy_branches_are_nested_branches(compiled):
    check(compiled, np.array([3, -1, 4], np.int64), np.array([0.5, 2.0, -1.0]), 1)
    text = compiled.lower("final")
    assert "assert(if_then_else(" not in text
