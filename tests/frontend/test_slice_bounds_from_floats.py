"""A slice bound computed from a float argument (`a[int(s * 2.5):]`) reads
exactly the slice: it raised a false IndexError (the checks of int() hid the
bound from bounds inference, which then bounded the read by the whole axis
plus the slice's length). NaN and infinity raise Python's errors."""
import numpy as np
import pytest

import pyhalide as ph


def _start(a, s):
    return a[int(s * 2.5):] * 1


def _start_in_loop(a, s):
    k = int(abs(s))
    out = 0.0
    for _ in range(3):
        out += a[k:].sum()
    return out


def _both(a, s):
    return a[int(s):int(s) + 3] + 1.0


@pytest.mark.parametrize("fn", [_start, _start_in_loop, _both], ids=lambda f: f.__name__)
def test_float_derived_slice_bounds(fn):
    p = ph.pipeline(fn)
    a = np.arange(10.0)
    for s in (0.3, 1.9, 3.99, -1.5, -30.0, 100.0, float("nan"), float("inf")):
        try:
            expected = fn(a, s)
        except (ValueError, OverflowError) as e:
            with pytest.raises(type(e)):
                p(a, s)
            continue
        np.testing.assert_array_equal(p(a, s), expected)
