"""`**` of a 0-d array argument is ndarray's power (NumPy's fast paths:
b ** 2 is np.square, int8 for booleans; x ** 0.5 is sqrt, so (-inf) ** 0.5
is NaN and (-0.0) ** 0.5 is -0.0), not the NumPy scalar's. Each result is
compared with the plain function (values and types)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def powers(a):
    return a ** 2, a ** 3, a ** 0.5, a ** 2.0, a ** np.float64(0.5)


@ph.pipeline
def power_then_add(a, s):
    return a ** 2 + s


@pytest.mark.parametrize("v", [np.array(True), np.array(False), np.array(-np.inf),
                               np.array(-0.0), np.array(-0.0, np.float32), np.array(4.0),
                               np.array(3, np.int8), np.array(7, np.uint16)],
                         ids=repr)
def test_powers_of_a_zero_d_argument(v):
    check(powers, v)
    check(power_then_add, v, 1)
