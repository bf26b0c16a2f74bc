"""A variable whose type depends on the data (a Python int that becomes a
NumPy int64 when an element is added) is one value per type; the value of
a type that an `if` branch does not give must not run the other branch's
index checks where Python does not run that branch."""
import numpy as np

import pyhalide as ph
from tests.frontend.test_array_fuzz import compare


def elif_read(a):
    s = 0
    for i in range(3):
        if i == 0:
            s += 1
        elif i < 2:
            s += a[2 - 2 * i]
    return s


def else_assign(a):
    s = 0
    for i in range(3):
        if i == 0:
            s += 1
        else:
            if i < 2:
                s = a[2 - 2 * i]
    return s


def test_check_of_an_untaken_branch_does_not_fire():
    for fn in (elif_read, else_assign):
        p = ph.pipeline(fn)
        for n in (1, 2, 3):
            assert compare(p, [np.arange(n, dtype=np.int64) * 7 - 3], fn.__name__)


def triangular_max_bound(a):
    N = len(a)
    k = 1
    for i in range(N):
        for j in range(max(1, N - i)):
            k = k * 2 % 10007 + j
    return k


def test_bounds_of_max_are_not_those_of_one_operand():
    # max(1, N - i) was bounded above by 1 (the bounds of two operands that
    # differ by a non-constant were taken as comparable): the triangular
    # loop ran one iteration per row
    p = ph.pipeline(triangular_max_bound)
    for n in (0, 1, 2, 5):
        try:
            assert compare(p, [np.arange(n, dtype=np.int64)], "triangular_max_bound")
        except ph.CompileError as e:
            assert "loop bounds" in str(e)
