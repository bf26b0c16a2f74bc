"""A variable assigned both in a loop and in a loop nested in it
(frontend_ast/loop_merge.py: the outer body's statements and the inner
loops' iterations become the slots of one loop). Each program must return
what plain Python returns, for several sizes."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_array_fuzz import compare


def two_inner_loops(a, n):
    N = len(a)
    m = n
    s = 0
    for i in range(N):
        m = m * 3 % 10007 + i
        for j in range(N - 1, -1, -2):
            m = m * 3 % 10007 + a[j]
            s += m
        for j in range(1, N):
            m -= a[j]
    return m, s


def inner_loop_under_if(a, n):
    N = len(a)
    t = 0.5
    for i in range(0, N, 2):
        t = t * 0.5 + a[i]
        if a[i] > n:
            for j in range(3):
                t += a[j % N] * 0.25
        else:
            t -= 1.0
    return t


def outer_break_and_continue(a, n):
    N = len(a)
    k = 1
    for i in range(N):
        if a[i] == n:
            continue
        k = k * 2 % 10007 + a[i]
        if k > 1000:
            break
        for j in range(N - 1, 0, -1):
            k += a[j] % 5
    return k


def inner_while(a, n):
    N = len(a)
    s = 0
    for i in range(N):
        s += a[i]
        j = 0
        while j < N and s < 40:
            j += 1
            s += abs(a[j - 1]) + 1
        s = s % 97
    return s


def read_in_outer_body_only_from_inner(a, n):
    N = len(a)
    s = 0
    k = 0
    for i in range(N):
        for j in range(N):
            s += a[j] * i
        k = max(k, s % 13)
    return s, k


@pytest.mark.parametrize("fn", [two_inner_loops, inner_loop_under_if, outer_break_and_continue,
                                inner_while, read_in_outer_body_only_from_inner])
def test_variable_assigned_at_two_loop_depths(fn):
    p = ph.pipeline(fn)
    rng = np.random.default_rng(5)
    for size in (0, 1, 2, 5, 8):
        a = rng.integers(-9, 10, size).astype(np.int64)
        for n in (0, 3):
            assert compare(p, [a, n], fn.__name__)
