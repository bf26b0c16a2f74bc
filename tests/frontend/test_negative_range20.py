"""`for j in range(-i, -n, -1)` with n a Python int argument: -n keeps n's
affine bounds past its int64 overflow guard (ops.negate), so the loop is
bounded through -n (it was refused: "cannot bound this loop's range").
Compared with plain Python, including empty loops, negative n, and reads
that leave the array (IndexError)."""
import numpy as np
import pytest

import pyhalide as ph


def _sum_back_py(a, n):
    s = a[0] * 0
    for i in range(a.shape[0]):
        for j in range(-i, -n, -1):
            s += a[j]
    return s


def _weights_back_py(a, n):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j in range(-i, -n, -1):
            out[i] += a[j] * (j + 1)
    return out


sum_back = ph.pipeline(_sum_back_py)
weights_back = ph.pipeline(_weights_back_py)


def _compare(p, *args):
    try:
        want = p.py_func(*args)
    except Exception as e:
        with pytest.raises(type(e)):
            p(*args)
        return
    got = p(*args)
    assert np.array_equal(np.asarray(got), np.asarray(want))
    assert np.asarray(got).dtype == np.asarray(want).dtype


@pytest.mark.parametrize("p", [sum_back, weights_back])
@pytest.mark.parametrize("size", [0, 1, 4, 10])
def test_descending_range_to_a_negated_argument(p, size):
    a = np.arange(size, dtype=np.float64) * 1.25 - 2.0
    for n in (-5, -1, 0, 1, 2, size - 1, size, size + 1, size + 2):
        _compare(p, a, n)
