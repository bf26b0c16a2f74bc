"""False errors (pyhalide raising where plain Python returns) fixed in
session 30 (h2; docs/false_errors30b.md): a check of lifted array code under
an `if` on a scalar the loop carries, concatenations written part by part
under an `if`. Compared with plain Python, including the inputs where
Python raises (a lost error would be a wrong result)."""
import numpy as np

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same


def carried_if_check(a, b, n):
    s = 0.0
    for k in range(n):
        if s > 2.5:
            t = a * b[k + 1]
            s += t.sum()
        s += 1.0
    return s


def test_check_under_carried_if():
    # main: IndexError where the `if` on the carried s never holds (the
    # check of b[k + 1] stayed in the lifted Func, computed for every k)
    p = pipeline(carried_if_check)
    for n in (0, 3, 4, 6):
        for b in (np.ones(2), np.ones(5), np.arange(7.0)):
            _same(p, carried_if_check, np.arange(3.0), b, n)


def written_concatenate(x, A, B):
    s = 0.0
    if x[0] > 5.0:
        s = np.concatenate([A, B]).sum()
    return s


def test_written_concatenate_under_if():
    # main: ValueError (the column check made at call time) where the `if`
    # does not hold; the parts may be empty, so they are written one by one
    p = pipeline(written_concatenate)
    mats = (np.ones((0, 3)), np.ones((2, 3)), np.arange(8.0).reshape(2, 4), np.ones((0, 4)))
    for x0 in (0.0, 9.0):
        for A in mats:
            for B in mats:
                _same(p, written_concatenate, np.full(1, x0), A, B)
