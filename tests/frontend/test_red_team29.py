"""Wrong results found by session 29's red team (docs/red_team29.md), each
against plain Python / NumPy."""
import numpy as np
import pytest

import pyhalide as ph


def _outcome(f, *args):
    try:
        return "ok", f(*args)
    except Exception as e:      # noqa: BLE001 - the exception type is compared
        return "raises", type(e)


@ph.pipeline
def python_float_power(x, y):
    return x ** y, x ** 2


def test_python_float_power_overflow_and_complex():
    """Python's float ** raises OverflowError where finite operands give an
    infinite result and gives a complex number for a negative base to a
    fractional power; the compiled code returned inf and NaN."""
    cases = [(10.0, 400.0), (1e200, 2.0), (2.0, 1024), (-2.0, 1025.0), (3.0, 0.5),
             (-8.0, 2.0), (-np.inf, 0.5), (-8.0, np.inf), (-1.0, np.nan), (0.0, -1.0)]
    for x, y in cases:
        want = _outcome(lambda a, b: (a ** b, a ** 2), x, y)
        got = _outcome(python_float_power, x, y)
        if want[0] == "raises":
            assert got == want, (x, y, got)
        else:
            assert got[0] == "ok", (x, y, got)
            np.testing.assert_array_equal(np.array(got[1]), np.array(want[1]))
    # a complex number in Python: a located limit here, never a float
    with pytest.raises(NotImplementedError, match="complex"):
        python_float_power(-8.0, 1 / 3)


@ph.pipeline
def round_of_numpy_bool(a, b):
    return round(a[0] < b)


@ph.pipeline
def round_of_python_bool(x, y):
    return round(x < y)


def test_round_of_numpy_bool_is_refused():
    """round(np.True_) raises TypeError in Python (numpy.bool has no
    __round__); the compiled code returned 1 (scalar fuzz seed 1). A located
    refusal now; round() of a Python bool stays 1."""
    with pytest.raises(TypeError):
        round(np.array([1.0])[0] < 2.0)
    with pytest.raises(ph.CompileError, match="NumPy bool"):
        round_of_numpy_bool(np.array([1.0]), 2.0)
    assert round_of_python_bool(1.0, 2.0) == 1


@ph.pipeline
def bits_of_a_call_time_power(y, z):
    return (z == y) & (2 ** y), z * (2 ** y), (y % (1 ** y)) % -1.5 < z, z / (1 ** y)


def test_numpy_operand_known_at_call_time():
    """`2 ** y` of a NumPy int argument is computed when the function is
    called (a value without a node); `&` with it crashed the compiler with
    an AttributeError (scalar fuzz seeds 103, 104; also `%` and `/`). Python's ValueError for a
    negative exponent stays."""
    args = (np.int64(3), np.float64(7.0))
    got, want = bits_of_a_call_time_power(*args), bits_of_a_call_time_power.py_func(*args)
    assert repr(got) == repr(want)
    with pytest.raises(ValueError):
        bits_of_a_call_time_power(np.int64(-7), np.float64(7.0))
