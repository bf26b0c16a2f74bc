"""np.pad with constant widths (frontend_ast/array_pad.py): every mode
against NumPy bit for bit, widths wider than the array, corners, dtypes,
and NumPy's ValueError for an empty axis."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def zero_pad(a):
    return np.pad(a, 1)


@ph.pipeline
def edge(a):
    return np.pad(a, ((1, 2), (3, 0)), mode="edge")


@ph.pipeline
def reflect_wide(a):
    return np.pad(a, 7, mode="reflect")


@ph.pipeline
def symmetric_wide(a):
    return np.pad(a, 9, mode="symmetric")


@ph.pipeline(schedule="auto")
def wrap(a):
    return np.pad(a, (2, 5), mode="wrap")


@ph.pipeline
def corners(a):
    return np.pad(a, ((1, 2), (2, 1)), constant_values=((7, 8), (9, 10)))


@ph.pipeline
def cast_fill(a):
    return np.pad(a, 1, constant_values=2.7)


@ph.pipeline
def padded_stencil(u):
    p = np.pad(u, 1, mode="edge")
    return p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u


rng = np.random.default_rng(1)
ARRAYS = [rng.random((4, 5)), np.arange(12, dtype=np.int32).reshape(3, 4), rng.random((1, 3)),
          rng.random((2, 2)) > 0.5, rng.random((5, 4)).T]


MODES = [zero_pad, edge, reflect_wide, symmetric_wide, wrap, corners, cast_fill]


# the default run: each mode on two of the arrays, every array under some mode (each
# array's dtype, shape or layout compiles the pipeline again); -m slow: every pair
@pytest.mark.parametrize("i", range(len(MODES)), ids=[p.__name__ for p in MODES])
def test_modes(i):
    for a in (ARRAYS[i % len(ARRAYS)], ARRAYS[(i + 2) % len(ARRAYS)]):
        check(MODES[i], a)


@pytest.mark.slow
@pytest.mark.parametrize("p", MODES, ids=lambda p: p.__name__)
def test_modes_every_array(p):
    for a in ARRAYS:
        check(p, a)


def test_stencil_over_a_padded_array():
    check(padded_stencil, rng.random((6, 7)))


def test_empty_axis():
    with pytest.raises(ValueError, match="can't extend empty axis 0"):
        edge(np.zeros((0, 3)))


# a constant pad of an empty array is all constants: the source is read only where it has
# elements (its read was a false IndexError)
def test_constant_pad_of_an_empty_array():
    for shape in ((0, 3), (3, 0), (0, 0)):
        for a in (np.zeros(shape), np.asfortranarray(np.zeros(shape))):
            check(zero_pad, a)
            check(corners, a)
