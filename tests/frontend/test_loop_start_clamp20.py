"""range() with a literal step (or none) whose start may exceed 32 bits
where the loop does not run (issue 17): `range(i * i, n)`; make_loop clamps
the start towards the stop (frontend_ast/loop_start.py). Compared with
plain Python, including sizes 0 and 1, a stop below the start, and sizes
where i * i passes 2**31 (the loop is then empty)."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def sieve_unit_step(n):
    is_p = np.ones(n, dtype=np.bool_)
    for i in range(2, n):
        if is_p[i]:
            for j in range(i * i, n):
                if j % i == 0:
                    is_p[j] = False
    return is_p[2:]


@ph.pipeline
def squares_from(m, n):
    # start i * i against an independent stop n (possibly below it, or negative)
    s = 0
    for i in range(m):
        for j in range(i * i, n):
            s += j - i
    return s


@ph.pipeline
def squares_step2(m, n):
    s = 0
    for i in range(m):
        for j in range(i * i, n, 2):
            s += j
    return s


@ph.pipeline
def squares_down(a):
    # a negative literal step: the start -(i * i) clamped towards the stop -n
    s = 0
    n = a.shape[0]
    for i in range(n):
        for j in range(-(i * i), -n, -1):
            s += j * (i + 1)
    return s


def _sieve_in_place(a):
    n = a.shape[0]
    for i in range(2, n):
        if a[i]:
            for j in range(i * i, n):
                if j % i == 0:
                    a[j] = False
    return a


sieve_in_place = ph.pipeline(_sieve_in_place)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 50_000])
def test_sieve_unit_step(n):
    got = check(sieve_unit_step, n)
    assert got.sum() == sum(1 for k in range(2, min(n, 200)) if all(k % d for d in range(2, k))) \
        or n > 200


@pytest.mark.parametrize("m,n", [(0, 0), (1, 0), (1, 1), (3, 2), (5, 30), (10, 7), (4, -3),
                                 (0, 5), (50_000, 100), (47_000, 2_000)])
def test_squares(m, n):
    check(squares_from, m, n)
    check(squares_step2, m, n)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 50_000])
def test_squares_down(n):
    check(squares_down, np.zeros(n))


@pytest.mark.parametrize("n", [0, 1, 2, 5, 64, 50_000])
def test_sieve_in_place_writes_the_argument(n):
    a = np.ones(n, dtype=np.bool_)
    b = a.copy()
    exp = _sieve_in_place(a)
    got = sieve_in_place(b)
    assert np.array_equal(got, exp) and np.array_equal(b, a)
