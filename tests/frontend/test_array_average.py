"""np.average against plain Python: without weights (the mean), with
weights of a's shape or of the reduced axes, returned=True, keepdims, and
NumPy's errors (ZeroDivisionError for weights summing to 0, TypeError /
ValueError for weights of another shape)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_array_reductions import close


@ph.pipeline
def plain(a):
    return np.average(a), np.average(a, axis=0), np.average(a, 1, None, True)


@ph.pipeline
def weighted(a, w):
    return np.average(a, weights=w), np.average(a, axis=(0, 1), weights=w, keepdims=True)


@ph.pipeline
def weighted_axis(a, w):
    return np.average(a, axis=1, weights=w, returned=True), np.average(a, axis=-1, weights=w)


@ph.pipeline
def weighted_axes(a, w):
    return np.average(a, axis=(2, 0), weights=w)


# each pipeline compiles per dtype (~1.5 s CPU a kernel): the default run
# takes float32 `a` with the weights of test_average_errors_as_numpy's calls;
# integer weights, 3-D `a` and the other dtypes run in the slow run
@pytest.mark.parametrize("dt, every", [(np.float32, False)] + [
    pytest.param(t, True, marks=pytest.mark.slow)
    for t in (np.float32, np.uint8, np.int32, np.float64, np.bool_)])
def test_average(dt, every):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) * 10).astype(dt)
    close(plain, a)
    close(weighted, a, rng.random((3, 4)).astype(np.float32))
    close(weighted_axis, a, rng.random(4))
    if every:
        close(weighted, a, rng.integers(1, 5, (3, 4)))
        b = rng.standard_normal((2, 3, 4)).astype(dt)
        close(weighted_axes, b, rng.random((4, 2)))


def test_average_errors_as_numpy():
    """The dtypes of test_average's default case's calls (float32 `a`, float32
    weights of a's shape, float64 weights of one axis): its kernels serve
    these calls (on the same xdist worker), where float64 `a` compiled two
    kernels of its own (3.3 s CPU)."""
    a = np.ones((3, 4), np.float32)
    with pytest.raises(ZeroDivisionError):
        weighted_axis(a, np.zeros(4))
    with pytest.raises(ZeroDivisionError):
        weighted(a, np.zeros((3, 4), np.float32))
    with pytest.raises(TypeError):
        weighted(a, np.ones((4, 3), np.float32))
    with pytest.raises(ValueError):
        weighted_axis(a, np.ones(3))
