"""`return None` is a bare `return` (in the decorated function and in the
helpers it calls for their effect); a function that returns a value on some
paths and None on others is a located refusal naming that, not an internal name."""
import numpy as np
import pytest

import pyhalide as ph


def double_nonnegative(a, i):
    if a[i] < 0:
        return None
    a[i] = a[i] * 2


def calls_helper(a):
    for i in range(a.shape[0]):
        double_nonnegative(a, i)
    return a


def stops_at_negative(a):
    for i in range(a.shape[0]):
        if a[i] < 0:
            return None
        a[i] += 1.0
    return None


def optional(a):
    if a[0] < 0:
        return None
    return a[0]


@pytest.mark.parametrize("fn", [calls_helper, stops_at_negative])
@pytest.mark.parametrize("values", [[1.0, -2.0, 3.0], [1.0, 2.0], []])
def test_return_none_equals_python(fn, values):
    a, b = np.array(values), np.array(values)
    expected = fn(a)
    got = ph.pipeline(fn)(b)
    if expected is None:
        assert got is None
    else:
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(b, a)


def test_value_or_none_is_refused_with_its_reason():
    with pytest.raises(ph.CompileError, match="returns a value on some paths and None"):
        ph.pipeline(optional)(np.array([1.0]))
