"""np.repeat's reads are clamped into the source (i // repeats < n wherever
the result has elements): bounds inference knows them, so no check runs
per element. numpy-benchmarks' `repeating` and the edge cases (0 repeats, an
empty source, 2-D along each axis), compared with plain Python."""
import numpy as np
import pytest

import pyhalide as ph


@ph.pipeline
def repeating(x, nvar_y):
    nvar_x = x.shape[0]
    y = np.empty(nvar_x * (1 + nvar_y))
    y[0:nvar_x] = x[0:nvar_x]
    y[nvar_x:] = np.repeat(x, nvar_y)
    return y


@ph.pipeline
def repeat_axes(m, k):
    return np.repeat(m, k, axis=0), np.repeat(m, k, axis=1), np.repeat(m[0], k)


@pytest.mark.parametrize("n,k", [(0, 3), (1, 0), (5, 1), (7, 4), (1000, 20)])
def test_repeating(n, k):
    x = np.random.default_rng(n).random(n)
    got, exp = repeating(x.copy(), k), repeating.py_func(x.copy(), k)
    assert got.dtype == exp.dtype
    np.testing.assert_array_equal(got, exp)


@pytest.mark.parametrize("shape,k", [((1, 3), 0), ((2, 3), 1), ((3, 4), 3)])
def test_repeat_axes(shape, k):
    m = np.arange(np.prod(shape), dtype=np.int16).reshape(shape)
    for g, e in zip(repeat_axes(m, k), repeat_axes.py_func(m, k)):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@ph.pipeline
def repeat_only(x, k):
    return np.repeat(x, k)


def test_no_check_per_element():
    x = np.arange(8.0)
    np.testing.assert_array_equal(repeat_only(x, 3), np.repeat(x, 3))
    text = repeat_only.lower("final")
    assert "for (" in text, text
    loop = text[text.index("for ("):]         # (the one loop: the result's)
    assert "assert(" not in loop, loop
