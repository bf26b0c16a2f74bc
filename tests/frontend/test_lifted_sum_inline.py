"""A NumPy-order sum inside loops (numpy-benchmarks' wdist: a row of
`((A[:, i] - B[:, j]) / W[:, i]) ** 2` summed per (i, j)) has its lanes and
tree Funcs lifted over the loops; their operand is inlined into both, as
outside loops (sum_order marks the Funcs themselves, not the lifted
wrappers: wdist 0.57 -> 0.36 ms CPU, no 70x70x70 array stored). Results
equal plain Python bit for bit (the pairwise order is unchanged) for row
lengths below 8, of 8 + a rest, and past one block of 128."""
import re

import numpy as np
import pytest

import pyhalide as ph

from .test_array_in_loops import wdist


@pytest.mark.parametrize("k", [0, 1, 5, 19, 131])
def test_bit_exact(k):
    rng = np.random.default_rng(k)
    A, B, W = rng.random((k, 4)), rng.random((k, 3)), rng.random((k, 4)) + 0.5
    got, exp = ph.pipeline(wdist)(A, B, W), wdist(A, B, W)
    assert got.dtype == exp.dtype and got.shape == exp.shape
    np.testing.assert_array_equal(got, exp)


def test_the_operand_is_not_stored():
    p = ph.pipeline(wdist)
    A = np.ones((9, 3))
    p(A, A, A)
    assert not re.search(r"produce wdiff", p.lower("final"))
