"""Dynamic-programming loop kernels (LCS, edit distance, Needleman-Wunsch, DTW,
knapsack, LIS, coin change, Floyd-Warshall as loops), written from their
textbook form (session 28's probe): each compiles and equals plain Python.
Slow run: eight kernels of about 1 s of compile each."""
import numpy as np
import pytest

import pyhalide as ph

pytestmark = pytest.mark.slow


def lcs(a, b):
    n, m = a.shape[0], b.shape[0]
    L = np.zeros((n + 1, m + 1), np.int64)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                L[i, j] = L[i - 1, j - 1] + 1
            else:
                L[i, j] = max(L[i - 1, j], L[i, j - 1])
    return L[n, m]

def edit(a, b):
    n, m = a.shape[0], b.shape[0]
    D = np.zeros((n + 1, m + 1), np.int64)
    for i in range(n + 1):
        D[i, 0] = i
    for j in range(m + 1):
        D[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i, j] = min(D[i - 1, j] + 1, D[i, j - 1] + 1, D[i - 1, j - 1] + cost)
    return D[n, m]

def nw(a, b, gap):
    n, m = a.shape[0], b.shape[0]
    F = np.zeros((n + 1, m + 1))
    for i in range(n + 1):
        F[i, 0] = gap * i
    for j in range(m + 1):
        F[0, j] = gap * j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            match = F[i - 1, j - 1] + (1.0 if a[i - 1] == b[j - 1] else -1.0)
            delete = F[i - 1, j] + gap
            insert = F[i, j - 1] + gap
            F[i, j] = max(match, delete, insert)
    return F

def dtw(s, t):
    n, m = s.shape[0], t.shape[0]
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = abs(s[i - 1] - t[j - 1])
            D[i, j] = cost + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    return D[n, m]

def knapsack(w, v, W):
    n = w.shape[0]
    K = np.zeros((n + 1, W + 1), np.int64)
    for i in range(1, n + 1):
        for c in range(W + 1):
            if w[i - 1] <= c:
                K[i, c] = max(v[i - 1] + K[i - 1, c - w[i - 1]], K[i - 1, c])
            else:
                K[i, c] = K[i - 1, c]
    return K[n, W]

def lis(a):
    n = a.shape[0]
    d = np.ones(n, np.int64)
    for i in range(1, n):
        for j in range(i):
            if a[j] < a[i] and d[j] + 1 > d[i]:
                d[i] = d[j] + 1
    return d.max()

def coin(coins, amount):
    dp = np.full(amount + 1, amount + 1, np.int64)
    dp[0] = 0
    for a in range(1, amount + 1):
        for c in coins:
            if c <= a:
                dp[a] = min(dp[a], dp[a - c] + 1)
    return dp[amount] if dp[amount] <= amount else -1

def floyd_loops(d):
    n = d.shape[0]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if d[i, k] + d[k, j] < d[i, j]:
                    d[i, j] = d[i, k] + d[k, j]
    return d


R = np.random.default_rng(5)


def _ints(n):
    return R.integers(0, 4, n)


CASES = [
    (lcs, lambda: (_ints(9), _ints(7))),
    (edit, lambda: (_ints(9), _ints(7))),
    (nw, lambda: (_ints(8), _ints(6), -1.0)),
    (dtw, lambda: (R.random(8), R.random(6))),
    (knapsack, lambda: (R.integers(1, 6, 6), R.integers(1, 10, 6), 12)),
    (lis, lambda: (R.integers(0, 20, 12),)),
    (coin, lambda: (np.array([1, 3, 4]), 10)),
    (floyd_loops, lambda: (R.integers(1, 20, (6, 6)).astype(np.float64),)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_dp_kernel_equals_python(fn, make):
    args = make()
    want_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    want = fn(*want_args)
    got = ph.pipeline(fn)(*args)
    assert type(got) is type(want) and np.array_equal(got, want)
    for a, b in zip(args, want_args):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b)
