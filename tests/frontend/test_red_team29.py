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
