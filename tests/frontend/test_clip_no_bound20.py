"""`a.clip()`, `np.clip(a)`, `np.clip(a, None, None)`: NumPy 2.4 computes
np.positive(a) (a new array of a's dtype, -0.0 and NaN kept; bool refused);
`np.clip(a, lo)` with a positional a_min and no a_max is NumPy's TypeError,
refused at compile time."""
import numpy as np
import pytest

import pyhalide as ph


def method(a):
    return a.clip()


def function(a):
    return np.clip(a)


def nones(a):
    return np.clip(a, None, None)


def method_nones(a):
    return a.clip(min=None, max=None)


def copy_written(a):
    b = a.clip()
    b[0] = 7
    return b, a


def element(a):
    return np.clip(a[1])


def positional_low(a):
    return np.clip(a, 0.5)


ARRAYS = [np.array([1.0, -2.0, np.nan, -0.0, np.inf]),
          np.arange(6, dtype=np.int16).reshape(2, 3) - 3,
          (np.arange(12, dtype=np.float32) / 11 - 0.5).reshape(3, 4),
          np.arange(5, dtype=np.uint8)]


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return got.dtype == want.dtype and got.shape == want.shape and \
        np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("kernel", [method, function, nones, method_nones, element])
def test_clip_without_bounds_is_a_copy(kernel):
    for a in ARRAYS:
        want = kernel(a.copy())
        got = ph.pipeline(kernel)(a.copy())
        assert type(got) is type(want) and same(got, want), (kernel, a, got, want)


def test_the_copy_is_not_the_argument():
    for a in ARRAYS:
        want = copy_written(a.copy())
        got = ph.pipeline(copy_written)(a.copy())
        assert all(same(g, w) for g, w in zip(got, want)), (a, got, want)


def test_bool_and_missing_a_max_are_refused():
    with pytest.raises(TypeError):
        method(np.array([True, False]))
    with pytest.raises(ph.CompileError, match="positive"):
        ph.pipeline(method)(np.array([True, False]))
    with pytest.raises(TypeError, match="a_max"):
        positional_low(np.arange(3.0))
    with pytest.raises(ph.CompileError, match="a_max"):
        ph.pipeline(positional_low)(np.arange(3.0))
