"""Differences from plain Python found by the session-11 fuzz seeds (array
fuzz 660-779, loop fuzz 181-230), each reduced to a program compared with
the plain function (frontend_check.check: values, dtypes, shapes)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


# array-fuzz seed 671: np.ceil of an integer gives its operand back; of a 0-d
# array argument the compiled call returned the argument itself (a 0-d array,
# the caller's object) where NumPy gives a scalar
@ph.pipeline
def identity_ops_of_a_zero_d_argument(a):
    t = np.floor(a)
    return np.ceil(a), t, np.trunc(a), np.positive(a), +a, np.int64(a), a.astype(a.dtype), a


@pytest.mark.parametrize("a", [np.array(6, np.uint32), np.array(-6, np.int64),
                               np.array(7, np.int8), np.array(2.5)])
def test_identity_operations_of_a_zero_d_argument_give_scalars(a):
    got = check(identity_ops_of_a_zero_d_argument, a)
    assert got[-1] is a and all(x is not a for x in got[:-1])
