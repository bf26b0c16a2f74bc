"""np.roll, np.repeat and np.diff of array values against plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def evolve(grid, dt):
    lap = np.roll(grid, +1, 0) + np.roll(grid, -1, 0) + np.roll(grid, +1, 1) + \
        np.roll(grid, -1, 1) - 4 * grid
    return grid + dt * lap


@ph.pipeline
def one_d(x, k):
    return np.repeat(x, k), np.diff(x), np.diff(x, 2), np.roll(x, k), np.roll(x, -k)


@ph.pipeline
def on_axes(a, k):
    return np.repeat(a, k, axis=1), np.diff(a, axis=0), np.roll(a, k, axis=-1), \
        np.repeat(a * 2, 2, 0)


@ph.pipeline
def keyword_forms(a):
    return np.roll(a, shift=3, axis=0), np.diff(a, n=1, axis=-1)


@ph.pipeline
def bad_keyword(a):
    return np.roll(a, 1, 0, out=a)


@ph.pipeline
def roll_flat_2d(a):
    return np.roll(a, 1)


def test_evolve_stencil_with_roll():
    g = np.random.default_rng(0).random((5, 7))
    check(evolve, g, 0.1)
    check(evolve, g.astype(np.float32), 0.25)


@pytest.mark.parametrize("x,k", [(np.arange(6) ** 2, 3), (np.array([1.5, 2.0]), 0),
                                 (np.array([True, False, False]), 2), (np.arange(1.0), 7),
                                 (np.zeros(0), 2), (np.arange(10, dtype=np.uint8), 13)])
def test_one_d(x, k):
    check(one_d, x, k)


def test_axes_and_keywords():
    a = np.arange(24, dtype=np.int16).reshape(4, 6)
    check(on_axes, a, 2)
    check(on_axes, a, 0)
    check(keyword_forms, np.arange(12.0).reshape(3, 4))


def test_negative_repeats_raise_value_error():
    check(one_d, np.arange(3.0), -1)


def test_errors_are_located():
    with pytest.raises(ph.CompileError, match="keyword 'out'"):
        bad_keyword(np.arange(4.0).reshape(2, 2))



def test_roll_flattens_without_axis():
    check(roll_flat_2d, np.arange(6.0).reshape(2, 3))


@ph.pipeline
def outer_products(a, b):
    return np.outer(a, b), np.outer(a, a) + 1


def test_outer():
    check(outer_products, np.arange(4.0), np.linspace(0, 1, 3))
    check(outer_products, np.arange(5, dtype=np.int16), np.arange(2, dtype=np.uint8))
    check(outer_products, np.zeros(0), np.arange(3.0))
