"""Scalar arguments named like the pure Vars of array Funcs (x, y, z, w)
are read as the arguments, not as the array's index."""
import numpy as np

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def scaled(x, a):
    return a * x


@ph.pipeline
def shifted(y, x, a):
    return a + y - x


def test_argument_named_like_an_axis_var():
    check(scaled, np.int32(3), np.ones(4, np.int32))        # was [0 1 2 3]
    check(scaled, 3, np.arange(4))                         # was a TypeError (int64 vs int32)
    check(shifted, np.int32(5), np.int32(2), np.ones((2, 3), np.int32))
