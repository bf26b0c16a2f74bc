"""A boolean array ** a Python int: ndarray's ** computes b ** 2 as np.square(b),
int8 for booleans, where np.power(b, 2) and other exponents give int64 (the
array fuzzer found b ** 2 compiled as int64)."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


def square(b):
    return b ** 2


def cube(b):
    return b ** 3


def power_function(b):
    return np.power(b, 2)


def mixed(t, a, s):
    return (t >= s) + ((t % t) * (a ** 2))


def by_argument(b, n):
    return b ** n


B = np.array([[True], [False], [True]])


@pytest.mark.parametrize("fn", [square, cube, power_function], ids=lambda f: f.__name__)
def test_bool_power_dtypes(fn):
    check(ph.pipeline(fn), B)


def test_bool_square_in_an_expression():
    check(ph.pipeline(mixed), np.array([True, False]), B, 1099511627776)


def test_exponent_known_only_at_run_time_is_refused():
    with pytest.raises(ph.CompileError, match="depends on the int"):
        ph.pipeline(by_argument)(B, 2)
