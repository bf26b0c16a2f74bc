"""Phase mode (carried_phases.py) with members of different sizes, some of
them empty: a member's initial values are read only at its own points
(an empty argument is not read at all: it was a false IndexError), and an
empty written argument is not refused as overlapping itself. Compared with
plain Python on copies (results and arguments)."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


@ph.pipeline
def two_members(a, b):
    n = a.shape[0]
    for i in range(n // 2):
        a[i], a[n - 1 - i] = a[n - 1 - i], a[i]
        b[i % 3], b[-1] = b[-1] + a[i], b[i % 3] * 2.0
    return a, b


@ph.pipeline
def matrix_and_vector(m, v):
    for i in range(m.shape[0] // 2):
        m[i, 0], m[-1 - i, -1] = m[-1 - i, -1], m[i, 0] + v[i]
        v[i], v[-1 - i] = v[-1 - i], v[i]
    return m, v


@pytest.mark.parametrize("n,k", [(0, 3), (1, 4), (2, 12), (9, 3)])
def test_members_of_different_sizes(n, k):
    check_inplace(two_members, np.arange(float(n)), np.arange(float(k)) * 0.5)


@pytest.mark.parametrize("r,c,k", [(0, 3, 0), (0, 3, 2), (1, 1, 4), (6, 2, 6), (7, 1, 10)])
def test_matrix_members(r, c, k):
    check_inplace(matrix_and_vector, np.arange(float(r * c)).reshape(r, c),
                  np.arange(float(k)) + 0.25)
