"""Loop kernels Numba compiles that phase mode with Blocks runs (session 28,
h6 follow-up): npbench's nussinov (an `if`/`else` of loop variables whose
branches write the cell an inner `k` loop then updates, in a perfect
`i`/`j` nest; an inlined helper returning from both branches), and an
if/else writing the cell a statement after it updates. Plain Python is
the oracle."""
import numpy as np
import pytest

import pyhalide as ph


def match(b1, b2):
    if b1 + b2 == 3:
        return 1
    else:
        return 0


def nussinov(N, seq):
    table = np.zeros((N, N), np.int32)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1] + match(seq[i], seq[j]))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return table


def q1(N, seq):
    table = np.zeros((N, N), np.int32)
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if i < j - 1:
                table[i, j] = max(table[i, j], table[i + 1, j - 1] + 1)
            else:
                table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])
    return table


def flip(a):
    # the else must not see the then-branch's write (Python tests once)
    n = a.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if a[i, j] > a[i + 1, j - 1]:
                a[i, j] = -a[i, j]
            else:
                a[i, j] = a[i, j] + 10.0
            for k in range(i + 1, j):
                a[i, j] += a[k + 1, j] * 0.5


def after_else(t):
    n = t.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if i + 1 < n:
                t[i, j] = t[i + 1, j - 1] + 1.0
            else:
                t[i, j] = 7.0
            t[i, j] += 0.5


def both_bind(t):
    # `s` bound in both branches (under a test of the data), read after
    n = t.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            if t[i, j] > 0.5:
                s = t[i + 1, j] * 2.0
            else:
                s = t[i + 1, j - 1] - 1.0
            t[i, j] = s
            t[i, j] += 0.25


def _seqs(sizes):
    rng = np.random.default_rng(28)
    return [(n, rng.integers(0, 4, n).astype(np.int32)) for n in sizes]


def test_nussinov_equals_python():
    jit = ph.pipeline(nussinov)
    for n, seq in _seqs([0, 1, 2, 3, 8, 17]):
        got, want = jit(n, seq), nussinov(n, seq)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_if_else_then_k_loop_equals_python():
    jit = ph.pipeline(q1)
    for n, seq in _seqs([1, 2, 6]):
        np.testing.assert_array_equal(jit(n, seq), q1(n, seq))


def test_else_sees_the_test_python_made():
    jit = ph.pipeline(flip)
    rng = np.random.default_rng(5)
    for n in (1, 5):
        a = rng.standard_normal((n, n))
        got, want = a.copy(), a.copy()
        jit(got)
        flip(want)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("fn", [after_else, both_bind])
def test_if_else_then_update_equals_python(fn):
    jit = ph.pipeline(fn)
    a = np.random.default_rng(3).random((6, 6))
    got, want = a.copy(), a.copy()
    jit(got)
    fn(want)
    np.testing.assert_array_equal(got, want)
