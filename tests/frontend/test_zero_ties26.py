"""max/min/nanmax/nanmin of one axis of a view the function makes
(`a[:, ::2]`, `a[1:, 1:]`, `a[:, ::-1]`, `a[::-1, ::3]`) return NumPy's
element among 0.0/-0.0 ties (frontend_ast/numpy_zero_views.py: the rule
of a view argument with the same strides), compared with NumPy on this host
bit for bit, NaNs among the elements; the arguments C-ordered, Fortran,
and read backwards. Where this NumPy does not run the AVX-512 loops the
rule models (MODELLED false) the values are compared (zeros equal)."""
import warnings

import numpy as np

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


def _compare(x, values_only=()):
    """values_only: outputs whose sign is not modelled (the serial rule)."""
    got = _views(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN lines
        want = _views.py_func(x)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and np.array_equal(g, w, equal_nan=True), (k, g, w)
        if MODELLED and k not in values_only:
            same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
            assert same.all(), (x.shape, x.dtype, k, np.argwhere(~same))


def test_views_made_in_the_function():
    rng = np.random.default_rng(26)
    # (one kernel per layout: float64 C, float32 Fortran, a float64 argument
    # read backwards along its rows)
    for layout in ("C", "F", "reversed"):
        dt = np.float32 if layout == "F" else np.float64
        for shape in ((3, 5), (5, 19), (4, 40), (7, 33), (2, 67)):
            for dense in (0.05, 0.2):
                x = _mixture(rng, shape, dt, dense)
                if layout == "F":
                    x = np.asfortranarray(x)
                # (`a[:, ::-1]` of an argument read backwards: its stride's
                # size is not in the call's key, not modelled)
                skip = (4, 5, 6) if layout == "reversed" else ()
                if layout == "reversed":
                    x = x[:, ::-1]
                _compare(x, skip)
                _compare(-x, skip)


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
            for y in (x, -x):
                got = _new_views(y)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN lines
                    want = _new_views.py_func(y)
                for k, (g, w) in enumerate(zip(got, want)):
                    g, w = np.asarray(g), np.asarray(w)
                    assert g.shape == w.shape and np.array_equal(g, w, equal_nan=True), (k, g, w)
                    if MODELLED:
                        same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
                        assert same.all(), (shape, k, np.argwhere(~same))


@pipeline
def _three(a):
    return np.nanmax(a[:, ::-1], axis=0), np.nanmin(a[:, :, 1:], axis=0), \
        np.nanmax(a[:, ::2], axis=0), np.nanmin(a, axis=0), np.nanmax(a[:, :, ::-1], axis=0)


def test_outer_axis_of_3d_views():
    """nanmax/nanmin over axis 0 of 3-D views whose inner axes do not merge:
    NumPy's iterator copies the lines into its buffer (contiguous lines)."""
    rng = np.random.default_rng(326)
    # (one kernel per layout: a C argument, an argument reversed in its middle axis)
    for reversed_middle in (False, True):
        for shape in ((3, 4, 5), (2, 9, 7), (4, 3, 19)):
            for dt in (np.float64, np.float32):
                x = _mixture(rng, shape, dt, 0.2)
                x = x[:, ::-1] if reversed_middle else x
                for y in (x, -x):
                    got = _three(y)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN lines
                        want = _three.py_func(y)
                    for k, (g, w) in enumerate(zip(got, want)):
                        assert np.array_equal(g, w, equal_nan=True), (k, g, w)
                        # (a reversed view of an argument laid out by its
                        # strides: not modelled, the values compared)
                        if MODELLED and not (reversed_middle and k in (0, 4)):
                            same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
                            assert same.all(), (shape, dt, k, np.argwhere(~same))


@pipeline
def _several(a):
    return np.nanmax(a, axis=(0, 1)), a.max(axis=(0, 1)), np.nanmin(a[:, ::2], axis=(0, 1)), \
        np.nanmax(a[::-1, :, ::3], axis=(0, 1)), np.nanmin((a * 2.0)[:, 1:], axis=(0, 1))


def test_several_axes_of_views():
    """Reductions over axes (0, 1) of 3-D views: NumPy's binary loop over
    lines of the kept innermost axis (contiguous, or with a step)."""
    rng = np.random.default_rng(3260)
    # (one kernel: an argument sliced in its middle axis)
    for shape in ((3, 4, 5), (2, 9, 21), (4, 3, 19)):
        for dt in (np.float64, np.float32):
            x = _mixture(rng, (shape[0], 2 * shape[1], shape[2]), dt, 0.2)[:, 1::2]
            for y in (x, -x):
                got = _several(y)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN lines
                    want = _several.py_func(y)
                for k, (g, w) in enumerate(zip(got, want)):
                    assert np.array_equal(g, w, equal_nan=True), (k, g, w)
                    if MODELLED:
                        same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
                        assert same.all(), (shape, dt, k, np.argwhere(~same))
