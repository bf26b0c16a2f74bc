"""A call-time Python int past int64 (an argument, or a power of arguments)
is the int64 limit's OverflowError, as Python's float() of it is an
OverflowError, with the int's size in the message where Python refuses to
write its digits (a ValueError of sys.get_int_max_str_digits before)."""
import numpy as np
import pytest

import pyhalide as ph


@ph.pipeline
def float_of_power(a, x, e):
    a[0] = float(x ** e)
    return a


def test_huge_call_time_ints_are_overflow_errors():
    a = np.zeros(3)
    with pytest.raises(OverflowError):
        float(3 ** 10**5)
    with pytest.raises(OverflowError, match=r"Python int <an int of 158497 bits> does not fit"):
        float_of_power(a, 3, 10**5)
    with pytest.raises(OverflowError, match=r"argument x=<an int of 16610 bits> does not fit"):
        float_of_power(a, 10**5000, 1)
    with pytest.raises(OverflowError, match=r"Python int -<an int of 1112 bits> does not fit"):
        float_of_power(a, -3, 701)
    assert float_of_power(a, 3, 39)[0] == float(3 ** 39)
