"""np.roll stencils (periodic indices, split_mod_loops) against NumPy: shifts
of +-1, +-k, past the extent, negative and 0 on both axes; shapes with
extents 0, 1 and 2; Fortran order and strided views."""
import numpy as np
import pytest

import pyhalide as ph


@ph.pipeline
def shifts(a):
    return (np.roll(a, 3, 0) + np.roll(a, -5, 1) + 2.0 * np.roll(a, 7, 1)
            - np.roll(a, -600, 0) + 3.0 * np.roll(a, 0, 1) + np.roll(a, 1, 1))


@ph.pipeline
def life(g):
    return (np.roll(g, 1, 0) + np.roll(g, -1, 0) + np.roll(g, 1, 1) + np.roll(g, -1, 1)
            + np.roll(np.roll(g, 1, 0), 1, 1) + np.roll(np.roll(g, 1, 0), -1, 1)
            + np.roll(np.roll(g, -1, 0), 1, 1) + np.roll(np.roll(g, -1, 0), -1, 1))


def _shifts(a):
    return shifts.py_func(a)


def _life(g):
    return life.py_func(g)


_SHAPES = [(7, 9), (1, 6), (6, 1), (2, 2), (1, 1), (0, 4), (3, 0), (33, 40)]


@pytest.mark.parametrize("fn, ref", [(shifts, _shifts), (life, _life)])
def test_roll_stencils_match_numpy(fn, ref):
    rng = np.random.default_rng(1)
    for shape in _SHAPES:
        a = rng.standard_normal(shape)
        assert np.array_equal(fn(a), ref(a)), shape
    a = rng.standard_normal((13, 11))
    for view in (np.asfortranarray(a), a[::2, 1:], a[1:, ::3].T):
        assert np.array_equal(fn(view), ref(view))


def test_life_int_grid():
    g = (np.random.default_rng(2).random((17, 23)) < 0.4).astype(np.int64)
    assert np.array_equal(life(g), _life(g))
