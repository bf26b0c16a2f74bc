"""Positional calls that leave parameters to their defaults take the fast
paths with the defaults Python binds (the same objects): results equal
plain Python's, also after the defaults are replaced; too few arguments is
Python's TypeError."""
import numpy as np
import pytest

import pyhalide as ph

WEIGHTS = np.array([1.0, 2.0, 3.0])


def scaled(a, k=2.0, w=WEIGHTS):
    return a * k + w


def test_defaults_equal_python():
    p = ph.pipeline(scaled)
    a = np.arange(3.0)
    for _ in range(4):                      # the fast paths and the compiled entry
        np.testing.assert_array_equal(p(a), scaled(a))
        np.testing.assert_array_equal(p(a, 3.0), scaled(a, 3.0))
        np.testing.assert_array_equal(p(a, 3.0, WEIGHTS * 2), scaled(a, 3.0, WEIGHTS * 2))


def test_replaced_defaults_are_used():
    def f(a, k=2.0):
        return a * k
    p = ph.pipeline(f)
    a = np.arange(3.0)
    for _ in range(3):
        np.testing.assert_array_equal(p(a), a * 2.0)
    f.__defaults__ = (5.0,)
    for _ in range(3):
        np.testing.assert_array_equal(p(a), a * 5.0)


def test_too_few_arguments_is_a_type_error():
    with pytest.raises(TypeError):
        ph.pipeline(scaled)()
