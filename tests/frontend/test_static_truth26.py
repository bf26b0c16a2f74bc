"""bool() of a Python scalar known only at call time (`np.logical_not(s + 1)`,
`(s - 1) and 3`): the value gets its call-time parameter (an internal
AttributeError before session 26; found by test_array_fuzz seed 71008)."""
import numpy as np
import pytest

import pyhalide as ph


def logical_xor_of_static(s, x):
    return np.logical_xor((-1 | s), (x * x))


def not_of_static(s, x):
    return np.logical_not(s + 1) | x


def and_of_static(s, x):
    return x * ((s - 1) and 3)


def bool_of_static_float(s, x):
    return bool(s * 0.5) + x


@pytest.mark.parametrize("fn", [logical_xor_of_static, not_of_static, and_of_static,
                                bool_of_static_float])
def test_truth_of_call_time_scalar(fn):
    p = ph.pipeline(fn)
    for s in (100, 1, 0, -1):
        x = np.array([4, 0, -6])
        want, got = fn(s, x.copy()), p(s, x.copy())
        assert got.dtype == want.dtype and np.array_equal(got, want), (s, got, want)
