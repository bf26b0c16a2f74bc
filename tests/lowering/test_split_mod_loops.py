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


@ph.pipeline
def by_param(x, k):
    return np.roll(x, k) - 2.0 * np.roll(x, 1 - k)


def test_roll_by_parameter_matches_numpy():
    x = np.arange(11.0) ** 2
    for k in (3, -4, 25, -25, 0, 11, 2 ** 40 + 3, -(2 ** 62), 2 ** 63 - 1):
        assert np.array_equal(by_param(x, k), by_param.py_func(x, k)), k
    for n in (0, 1, 2):
        assert np.array_equal(by_param(x[:n], 5), by_param.py_func(x[:n], 5))
    assert np.array_equal(by_param(x[::-2], -3), by_param.py_func(x[::-2], -3))
    assert "mod_lo" in by_param.lower("final")     # the loop was split
