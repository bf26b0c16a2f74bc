"""np.trace and a.trace() (frontend_ast/array_trace.py) compared with
NumPy: offsets, axes, dtype=, result dtypes (int32 -> int64, uint8 ->
uint64, bool -> int64) and NumPy's pairwise order of a float diagonal."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

RNG = np.random.default_rng(1618)


def traces(a):
    return (np.trace(a), a.trace(1), np.trace(a, offset=-2), np.trace(a, 0, 1, 0),
            a.T.trace(), np.trace(a, dtype=np.float32), np.trace(a, offset=50))


def traces_3d(a):
    return np.trace(a), np.trace(a, axis1=1, axis2=2), np.trace(a, 1, -1, 0)


@pytest.mark.parametrize("a", [
    RNG.standard_normal((300, 280)), RNG.standard_normal((5, 7)).astype(np.float32),
    RNG.integers(-9, 9, (6, 4)).astype(np.int32), RNG.integers(0, 255, (5, 5)).astype(np.uint8),
    RNG.integers(0, 2, (4, 6)).astype(bool),
], ids=lambda a: f"{a.dtype}{a.shape}")
def test_trace_equals_numpy(a):
    check(ph.pipeline(traces), a)


def test_trace_3d_integers():
    check(ph.pipeline(traces_3d), RNG.integers(-50, 50, (3, 4, 5)).astype(np.int16))


def trace_1d(a):
    return np.trace(a)


def trace_3d(a):
    return np.trace(a)


def test_trace_refusals_are_located():
    expect_error(trace_1d, (np.ones(3),), "np.trace(a)", "two dimensions")
    expect_error(trace_3d, (np.ones((2, 2, 2)),), "np.trace(a)", "2-D slices")
