"""False errors of checks under an `if` of data (session 29, h2;
docs/false_errors29.md): a loop-invariant index check of lifted array
code, a broadcast with an empty operand, a view's element read. Compared
with plain Python, including the inputs where Python raises (a lost
IndexError would be a wrong result)."""
import numpy as np

from pyhalide import pipeline
from tests.frontend.test_false_errors23 import _same
from tests.frontend.test_lost_errors28 import before_broadcast


def invariant_index_under_if(x, y, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (x * y[k]).sum()
    return s


def view_element_under_if(x, a, b, k):
    s = 0.0
    if x[0] > 5.0:
        t = b[k:k + 1]
        s = (a * t[0]).sum()
    return s


_NEVER, _ONCE = np.zeros(4), np.array([0.0, 0.0, 6.0, 0.0])


def test_invariant_index_under_if():
    # main: IndexError where no x[i] > 5 (the check sat in the lifted sum)
    p = pipeline(invariant_index_under_if)
    for x in (_NEVER, _ONCE, np.zeros(0)):
        for k in (5, 1, -2, -3):
            _same(p, invariant_index_under_if, x, np.ones(2), k)


def test_empty_operand_under_if():
    # main: ValueError (the IfEmpty call-time check) where the if does not hold
    # (`s = (c + a * b[k]).sum()` under `if x[0] > 5.0`)
    p = pipeline(before_broadcast)
    for x0 in (0.0, 9.0):
        for a, c in ((np.ones(0), np.ones(3)), (np.ones(3), np.ones(0)),
                     (np.ones(3), np.arange(3.0)), (np.ones(2), np.ones(3))):
            for k in (1, 5):
                _same(p, before_broadcast, np.full(1, x0), a, c, np.ones(2), k)


def test_view_element_under_if():
    # main: IndexError of the bounds query (b read at len(b)) where the if
    # does not hold
    p = pipeline(view_element_under_if)
    for x0 in (0.0, 9.0):
        for a in (np.ones(0), np.ones(3)):
            for b in (np.ones(0), np.arange(2.0) + 1.0):
                for k in (0, 1, 5, -1, -3):
                    _same(p, view_element_under_if, np.full(1, x0), a, b, k)


def invariant_index_in_else(x, y, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += 1.0
        else:
            s += (x * y[k]).sum() if x[i] > -1.0 else 2.0
            break
    return s


def test_invariant_index_in_else():
    # the moved check holds the else's and the lazy operand's conditions
    p = pipeline(invariant_index_in_else)
    for x in (np.full(3, 9.0), np.array([9.0, 0.0, 6.0]), np.array([9.0, -3.0, 0.0])):
        for k in (5, 1, -3):
            _same(p, invariant_index_in_else, x, np.arange(2.0) + 1.0, k)
