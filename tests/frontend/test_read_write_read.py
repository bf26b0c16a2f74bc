"""A read, a conditional write and a read of one array element in one loop
iteration (frontend_ast/arrays.py before_write): when every write of the
array in the nest is at exactly the index read, in the same loops, after
the read, Python's first read sees the value from before the nest; the
nest's writes then go to a new version of the array and that read to the
old one (other definitions than the write's own read it: a sum, another
array). Reads of other elements the nest writes keep their rules. Plain
Python is the oracle."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


def halve_large(a):
    out = a * 1.0
    s = 0.0
    for i in range(a.shape[0]):
        x = out[i]
        if x > 2:
            out[i] = x * 0.5
        s += out[i]
    return s, out


def clip_rows(a):
    out = a.copy()
    rows = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            v = out[i, j]
            if v > 1.5:
                out[i, j] = v - 1
            rows[i] += out[i, j] * v
    return rows, out


def running_max(a):
    # reads out[i - 1] (written by the previous iteration) before out[i]
    out = a.copy()
    for i in range(1, a.shape[0]):
        if out[i - 1] > out[i]:
            out[i] = out[i - 1]
        out[i] += 1
    return out


def two_arrays(a):
    b = a - 2
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        v = b[i]
        if v > 0:
            b[i] = v - 1
        out[i] = b[i] * 2 + v
    return out, b


def stops(a):
    out = a.copy()
    n = 0
    for i in range(a.shape[0]):
        x = out[i]
        if x < 0:
            break
        if x > 1:
            out[i] = x * x
        n += 1
        out[i] = out[i] + n
    return n, out


INPUTS = [np.array([1.0, 3.0, 5.0, 0.5, 2.5]), np.array([-1.0, 2.0]), np.zeros(0),
          np.array([4.0, 1.0, 3.0, 2.0, 5.0, 0.0, 2.5])]


@pytest.mark.parametrize("fn", [halve_large, running_max, two_arrays, stops],
                         ids=lambda f: f.__name__)
def test_read_conditional_write_read(fn):
    p = ph.pipeline(fn)
    for a in INPUTS:
        check(p, a)


def test_two_dimensional():
    p = ph.pipeline(clip_rows)
    for a in (np.arange(12.0).reshape(3, 4) % 5, np.ones((1, 3)) * 2, np.zeros((2, 0))):
        check(p, a)


def written_argument(b):
    out = np.zeros(b.shape[0])
    for i in range(b.shape[0]):
        v = b[i]
        if v > 0:
            b[i] = v - 1
        out[i] = b[i] * 2 + v
    return out


def test_written_argument():
    # the caller sees the argument's writes, as in Python
    for a in INPUTS:
        got_arg, exp_arg = a.copy(), a.copy()
        got = ph.pipeline(written_argument)(got_arg)
        exp = written_argument(exp_arg)
        np.testing.assert_array_equal(got, exp)
        np.testing.assert_array_equal(got_arg, exp_arg)
