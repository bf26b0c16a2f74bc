"""max/min/nanmax/nanmin of one axis of a view the function makes
(`a[:, ::2]`, `a[1:, 1:]`, `a[:, ::-1]`, `a[::-1, ::3]`) return NumPy's
element among 0.0/-0.0 ties (frontend_ast/numpy_zero_views.py: the rule
of a view argument with the same strides), compared with NumPy on this host
bit for bit, NaNs among the elements; the arguments C-ordered, Fortran,
and read backwards. Where this NumPy does not run the AVX-512 loops the
rule models (MODELLED false) the values are compared (zeros equal)."""
import warnings

import numpy as np
import pytest

from frontend_ast.numpy_zero_ties import MODELLED
from pyhalide import pipeline


@pipeline
def _views(a):
    b = a[:, ::2]
    c = a[:, ::-1]
    return np.nanmin(b, axis=1), np.nanmax(b, axis=0), b.max(axis=1), \
        np.nanmin(a[1:, 1:], axis=0), c.max(axis=1), np.nanmax(c, axis=1), \
        np.nanmax(c, axis=0), a[::-1, ::3].min(axis=1)


def _mixture(rng, shape, dt, dense):
    """-1.0 with zeros of both signs (`dense` of each) and some NaNs: the
    extreme of max a zero where a line has one, of min where negated."""
    r = rng.random(shape)
    x = np.full(shape, -1.0, dt)
    x[r < 2 * dense] = 0.0
    x[r < dense] = -0.0
    x[rng.random(shape) < 0.05] = np.nan
    return x


def _compare(x, kernel=None, values_only=()):
    """The results of `kernel` (_views) on x against NumPy's: the values,
    and the signs of zeros where MODELLED except for the outputs
    `values_only` (not modelled: the serial rule)."""
    kernel = kernel or _views
    got = kernel(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN lines
        want = kernel.py_func(x)
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and np.array_equal(g, w, equal_nan=True), (k, g, w)
        if MODELLED and k not in values_only:
            same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
            assert same.all(), (x.shape, x.dtype, k, np.argwhere(~same))


# (one kernel per layout: float64 C; the slow run: float32 Fortran, a float64
# argument read backwards along its rows)
@pytest.mark.parametrize("layout", ["C", pytest.param("F", marks=pytest.mark.slow),
                                    pytest.param("reversed", marks=pytest.mark.slow)])
def test_views_made_in_the_function(layout):
    rng = np.random.default_rng(26)
    dt = np.float32 if layout == "F" else np.float64
    # (`a[:, ::-1]` of an argument read backwards: its stride's size is not
    # in the call's key, not modelled)
    skip = (4, 5, 6) if layout == "reversed" else ()
    for shape in ((3, 5), (5, 19), (4, 40), (7, 33), (2, 67)):
        for dense in (0.05, 0.2):
            x = _mixture(rng, shape, dt, dense)
            if layout == "F":
                x = np.asfortranarray(x)
            if layout == "reversed":
                x = x[:, ::-1]
            _compare(x, values_only=skip)
            _compare(-x, values_only=skip)


@pipeline
def _new_views(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = (a[i] * 2.0)[::2].max()
    b = a * 2.0
    return out, np.nanmin(b[:, ::2], axis=1), np.flip(b, 1).max(axis=1), \
        np.nanmax(np.flip(b, 1), axis=0), np.nanmin(b.T, axis=0), np.nanmax(b[0, ::3])


def test_views_of_new_arrays():
    rng = np.random.default_rng(2026)
    for shape in ((3, 5), (5, 19), (4, 40), (7, 33), (2, 67)):
        for dense in (0.05, 0.2):
            x = _mixture(rng, shape, np.float64, dense)
            _compare(x, _new_views)
            _compare(-x, _new_views)


@pipeline
def _three(a):
    return np.nanmax(a[:, ::-1], axis=0), np.nanmin(a[:, :, 1:], axis=0), \
        np.nanmax(a[:, ::2], axis=0), np.nanmin(a, axis=0), np.nanmax(a[:, :, ::-1], axis=0)


# (one kernel per layout and type: a C float64 argument; the slow run: float32,
# an argument reversed in its middle axis)
@pytest.mark.parametrize("reversed_middle,dt", [
    (False, np.float64), pytest.param(False, np.float32, marks=pytest.mark.slow),
    pytest.param(True, np.float64, marks=pytest.mark.slow)])
def test_outer_axis_of_3d_views(reversed_middle, dt):
    """nanmax/nanmin over axis 0 of 3-D views whose inner axes do not merge:
    NumPy's iterator copies the lines into its buffer (contiguous lines)."""
    rng = np.random.default_rng(326)
    # (a reversed view of an argument laid out by its strides: not modelled,
    # the values compared)
    skip = (0, 4) if reversed_middle else ()
    for shape in ((3, 4, 5), (2, 9, 7), (4, 3, 19)):
        x = _mixture(rng, shape, dt, 0.2)
        x = x[:, ::-1] if reversed_middle else x
        _compare(x, _three, skip)
        _compare(-x, _three, skip)


@pipeline
def _several(a):
    return np.nanmax(a, axis=(0, 1)), a.max(axis=(0, 1)), np.nanmin(a[:, ::2], axis=(0, 1)), \
        np.nanmax(a[::-1, :, ::3], axis=(0, 1)), np.nanmin((a * 2.0)[:, 1:], axis=(0, 1))


@pytest.mark.parametrize("dt", [np.float64, pytest.param(np.float32, marks=pytest.mark.slow)])
def test_several_axes_of_views(dt):
    """Reductions over axes (0, 1) of 3-D views: NumPy's binary loop over
    lines of the kept innermost axis (contiguous, or with a step)."""
    rng = np.random.default_rng(3260)
    # (one kernel: an argument sliced in its middle axis)
    for shape in ((3, 4, 5), (2, 9, 21), (4, 3, 19), (5, 6, 40)):
        x = _mixture(rng, (shape[0], 2 * shape[1], shape[2]), dt, 0.2)[:, 1::2]
        _compare(x, _several)
        _compare(-x, _several)
