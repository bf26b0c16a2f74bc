"""Python ints carried by a loop with an exit (session 17 red team, a wrong
result): the ranges a loop's Python-int state keeps were inferred from a
constant bound that the last inference round had derived from its own
assumed range (the numeric bound of the select between a member and its
product that a `break` or a `while` test makes), so `k = k * 10` under a
`break` was held to [1, 1000]: the comparison `k < 0` was made in int32
(10**12 is negative there: the loop stopped 6 iterations early) and the
product's int64 overflow check was dropped (a `while` loop without a bound
wrapped 10**19 to -8446744073709551616). Compared with plain Python; where
Python's int leaves int64 the compiled call raises OverflowError."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def times_ten_until_negative(n):
    k = 1
    for i in range(n):
        k = k * 10
        if k < 0:
            break
    return k


@ph.pipeline
def while_times_ten(n):
    k = 1
    i = 0
    while i < n:
        k = k * 10
        i += 1
    return k, i


@ph.pipeline
def factorial_until(limit):
    f = 1
    i = 1
    for i in range(1, 30):
        f = f * i
        if f > limit:
            break
    return f, i


@ph.pipeline
def pow2_at_least(a):
    out = np.zeros(len(a), dtype=np.int64)
    for j in range(len(a)):
        p = 1
        for _ in range(62):
            if p >= a[j]:
                break
            p *= 2
        out[j] = p
    return out


@pytest.mark.parametrize("n", [0, 3, 12, 13, 18])
def test_product_under_break(n):
    check(times_ten_until_negative, n)


@pytest.mark.parametrize("n", [0, 5, 13, 18])
def test_while_product(n):
    check(while_times_ten, n)


@pytest.mark.parametrize("n", [19, 25])
def test_while_product_leaving_int64_raises(n):
    assert while_times_ten.py_func(n)[0] > np.iinfo(np.int64).max
    with pytest.raises(OverflowError):
        while_times_ten(n)
    with pytest.raises(OverflowError):
        times_ten_until_negative(n)


@pytest.mark.parametrize("limit", [10, 10**12, 10**15, 10**18])
def test_factorial_until(limit):
    check(factorial_until, limit)


def test_pow2_at_least():
    check(pow2_at_least, np.array([1, 5, 2**40, 2**61 + 1, 0, 3]))
