"""Loops whose bounds depend on an enclosing loop's variable and whose step
is not 1 or -1 (`range(i, n, 2)`, `range(i, -1, -3)`): session 20 refused
them ("must have step 1 or -1"); they now run relative to their start over
a bound of their trip counts taken over the enclosing loops' ranges
(frontend_ast/emit.py relative_rdom). Plain Python is the oracle: values
bit for bit, the arrays written in place."""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both


@ph.pipeline
def strided_suffix_sums(a):
    out = np.zeros(len(a))
    for i in range(len(a)):
        out[i] = sum(a[j] for j in range(i, len(a), 2))
    return out


@ph.pipeline
def down_by_three(a):
    n = a.shape[0]
    out = np.zeros(n)
    for i in range(n):
        for j in range(i, -1, -3):
            out[i] += a[j] * j
    return out


@ph.pipeline
def both_ends_move(a):
    n = a.shape[0]
    t = 0.0
    for i in range(1, n):
        for j in range(n - i, i, -2):
            t += a[j] - a[i]
    return t


@ph.pipeline
def in_place_stride(a):
    n = a.shape[0]
    for i in range(n):
        for j in range(i + 2, n, 2):
            a[j] += a[j - 2] * 0.5
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 10, 17])
def test_dependent_strided_loops(n):
    rng = np.random.default_rng(300 + n)
    for a in (rng.random(n), rng.standard_normal(n), np.arange(n, dtype=np.float64)):
        for p in (strided_suffix_sums, down_by_three, both_ends_move, in_place_stride):
            run_both(p, a)
