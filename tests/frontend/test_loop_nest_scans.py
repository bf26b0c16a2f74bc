"""A running value read inside the loop nest it accumulates over (a scan
over a nest, frontend_ast/loop_scans.py): the group's Func has one
dimension per loop of the nest; reads in the innermost body, in an outer
body before or after the inner loop (loops that loop_merge.py turns into
slot loops), and by other groups see the value Python sees there. A nest
whose inner bounds depend on an outer loop variable is still refused.
Plain Python is the oracle."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error


def A(a):
    s = 0
    out = np.zeros(a.shape, np.int64)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
            out[i, j] = s
    return s, out

def B(a):
    s = 0
    out = np.zeros(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            s += a[i, j]
        out[i] = s
    return s, out

def C(a):
    s = 0
    out = np.zeros(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        out[i] = s
        for j in range(a.shape[1]):
            s += a[i, j]
    return s, out

def D(a):
    s = 0
    t = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if s > 10:
                t += 1
            s += a[i, j]
    return s, t

def E(a):
    s = 0.0
    out = np.zeros(a.shape, np.float64)
    for i in range(a.shape[0]):
        for j in range(i, a.shape[1]):
            s = s * 0.5 + a[i, j]
            out[i, j] = s
    return s, out

def F(a):
    s = 0
    out = np.zeros(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > 2:
                s += a[i, j]
        out[i] = s
    return s, out

def G(a):
    s = 0.0
    t = 1.0
    out = np.zeros(a.shape, np.float64)
    for i in range(a.shape[0]):
        for j in range(1, a.shape[1], 2):
            for k in range(2):
                s = s * 0.5 + a[i, j] * k
                if s > t:
                    t = s - t
                out[i, j - k] = s + t
    return s, t, out

def H(a):
    s = 0.0
    c = 0
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0] - 1, -1, -1):
        for j in range(a.shape[1]):
            if a[i, j] < 0.25 * s:
                continue
            s += a[i, j]
            c += 1
            if c > 7:
                break
        out[i] = s * c
    return s, c, out


_A = np.arange(12).reshape(3, 4) % 5
INPUTS = [_A, _A[:1, :1], _A[:0], _A[:, :1], _A.T.copy(), _A * 1.5 - 2]


# inputs of one specialization (no axis of size 1, int64, C order): the default
# run compiles each function once; the slow run also takes the other keys
ONE_KEY = [_A, _A[:0], _A.T.copy()]


@pytest.mark.parametrize("fn", [A, B, C, D, F, G, H], ids=lambda f: f.__name__)
def test_running_value_read_inside_the_nest(fn):
    p = ph.pipeline(fn)
    for x in ONE_KEY:
        check(p, x)


@pytest.mark.slow
@pytest.mark.parametrize("fn", [A, B, C, D, F, G, H], ids=lambda f: f.__name__)
def test_running_value_read_inside_the_nest_every_key(fn):
    p = ph.pipeline(fn)
    for x in INPUTS:
        check(p, x)


def test_dependent_inner_bounds_are_refused():
    expect_error(E, (_A * 1.0,), "for i in range", "the running value of 's' is read inside a "
                 "loop nest it accumulates over, whose bounds depend on each other")
