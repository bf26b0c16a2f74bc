"""A loop whose bound is max/min of two operands whose hulls over the
enclosing loops do not compare (`range(i + lo, max(i + lo, hi - i))`): the
loop's hull is the max of the operands' hulls (emit.hull_node), checked to
fit 32 bits per operand, not the type's range (a false OverflowError on
session 21's main). Compared with plain Python."""
import numpy as np
import pytest

from pyhalide import pipeline


def tri_max(a, lo, hi):
    k = 1
    for i in range(a.shape[0]):
        for j in range(i + lo, max(i + lo, hi - i)):
            k = k * 3 % 10007 + j
    return k


_KERNEL = pipeline(tri_max)


@pytest.mark.parametrize("n,lo,hi", [(1, 0, 0), (1, 3, 20), (3, 0, 20), (4, 2, 5), (0, 0, 7)])
def test_max_bound_hull_is_the_operands_hulls(n, lo, hi):
    a = np.arange(n)
    assert _KERNEL(a, lo, hi) == tri_max(a, lo, hi)
