"""Tuples as local values in @pipeline functions (frontend_ast/tuples.py and
the interpreter): pack, unpack, constant and computed indices, slices,
concatenation, repetition, iteration — compared with the plain function."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def pack_unpack(a, n):
    t = (n, a[0])
    x, y = t
    dx, dy = n, n + 1
    dx, dy = dy, dx
    return x + y + t[0] + t[-1] + len(t), (dx, dy)


@ph.pipeline
def concatenated(a):
    t = (a[0], a[1])
    t = t + (a[2],)
    u = (0,) * 2 + t[1:]
    return t, u, t[::-1], len(u * 3)


@ph.pipeline
def in_loop(a):
    s = 0.0
    for i in range(len(a)):
        p = (a[i], i)
        q = p + (2.0,)
        x, k, c = q
        s += x * k * c
    return s


@ph.pipeline
def computed_index(a, k):
    t = (1, 2.5, 3)
    u = (a[0], a[1], a[2])
    return t[k], u[k]


@ph.pipeline
def over_shape(a):
    s = 1
    for n in a.shape:
        s *= n
    return s


@ph.pipeline
def over_tuple(a):
    t = (2, 3, 5)
    s = 0
    for x in t:
        s = s * 10 + x
    for i, x in enumerate(t):
        s += i * x * len(a)
    return s


def test_tuples():
    a = np.arange(5.0) + 1
    check(pack_unpack, a, 3)
    check(concatenated, a)
    check(in_loop, a)
    check(over_tuple, a)


@pytest.mark.parametrize("k", [0, 1, 2, -1, -3, 3, -4])
def test_computed_index(k):
    check(computed_index, np.arange(3.0), k)      # IndexError outside [-3, 3)


@pytest.mark.parametrize("shape", [(2, 3, 4), (0, 3), (5,)])
def test_over_shape(shape):
    check(over_shape, np.zeros(shape))
