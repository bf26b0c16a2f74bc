"""np.stack of complex arrays is laid out as NumPy lays it out (its
inputs' stride order, PyArray_CreateMultiSortedStridePerm): a sum of the
stacked Fortran-ordered or transposed arrays adds in NumPy's order, bit for
bit (it was taken as C-ordered: last bits differed)."""
import numpy as np
import pytest

import pyhalide as ph


def stack0(a, b):
    return np.stack([a, b]).sum()


def stack1(a, b):
    return np.stack([a, b], axis=1).sum()


def stack2(a, b):
    return np.stack([a, b], axis=2).sum()


def stack_rows(a, b):
    return np.stack([a, b], axis=2).sum(axis=-1)


def data(shape, dt, rng):
    n = int(np.prod(shape))
    v = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    v = v + 1j * rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    return v.astype(dt).reshape(shape)


# each (dtype, layout) compiles four kernels (~1 s CPU each); "T" (a
# C-ordered array transposed) is F-ordered like "F" and complex64 takes the
# paths of complex128 in float32: the default run takes complex128 F (the
# layout whose order was wrong) stacked along the outermost and innermost
# axes; every function of every case runs in the slow run
# (tests/slow_cases.py keeps the first case)
@pytest.mark.parametrize("dt, layout, funcs", [(np.complex128, "F", "quick")] + [
    pytest.param(t, lay, "all", marks=pytest.mark.slow) for t, lay in (
        (np.complex128, "F"), (np.complex128, "C"), (np.complex64, "C"), (np.complex64, "F"),
        (np.complex128, "T"), (np.complex64, "T"))])
def test_complex_stack_sums_equal_numpy(dt, layout, funcs):
    rng = np.random.default_rng(7)
    for shape in [(37, 300), (300, 37), (64, 130)]:
        if layout == "T":
            a, b = data(shape[::-1], dt, rng).T, data(shape[::-1], dt, rng).T
        else:
            a, b = data(shape, dt, rng), data(shape, dt, rng)
            if layout == "F":
                a, b = np.asfortranarray(a), np.asfortranarray(b)
        for f in (stack0, stack2) if funcs == "quick" else (stack0, stack1, stack2, stack_rows):
            got, want = ph.pipeline(f)(a, b), f(a, b)
            assert np.asarray(got).dtype == np.asarray(want).dtype
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), \
                (f.__name__, layout, shape, got, want)
