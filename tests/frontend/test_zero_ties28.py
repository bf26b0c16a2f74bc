"""max/min/nanmax/nanmin return NumPy's element among 0.0/-0.0 ties
(session 28, docs/numpy_zero_ties28.md): the keys of NumPy's AVX2 loops as
well as its AVX-512 ones (numpy_zero_keys.ISA), arrays the function makes
in Fortran order, and several axes of views (rows reduced one by one,
blocks of the kept axes outermost, a reduced axis of size 1). Compared
with NumPy on this host bit for bit (the sign of zeros where MODELLED),
NaNs among the elements."""
import warnings

import numpy as np
import pytest

from frontend_ast.numpy_zero_ties import MODELLED
from pyhalide import pipeline


def _mixture(rng, shape, dt, dense):
    """-1.0 with zeros of both signs (`dense` of each) and some NaNs."""
    r = rng.random(shape)
    x = np.full(shape, -1.0, dt)
    x[r < 2 * dense] = 0.0
    x[r < dense] = -0.0
    x[rng.random(shape) < 0.05] = np.nan
    return x


def _compare(kernel, x):
    got = kernel(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN lines
        want = kernel.py_func(x)
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and np.array_equal(g, w, equal_nan=True), (k, g, w)
        if MODELLED:
            same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
            assert same.all(), (x.shape, x.dtype, x.strides, k, np.argwhere(~same))


@pipeline
def _plain(a):
    return a.max(), np.nanmin(a), np.nanmax(a, axis=1), a.min(axis=0), np.nanmin(a, axis=0)


@pytest.mark.parametrize("dt", [np.float64, pytest.param(np.float32, marks=pytest.mark.slow)])
def test_contiguous_and_lines(dt):
    """Every axis, the inner axis (contiguous reduce: the lanes' preference)
    and the outer axis (the binary loop's tail) of C arrays."""
    rng = np.random.default_rng(28)
    for shape in ((3, 5), (4, 9), (7, 19), (5, 40), (2, 131)):
        for dense in (0.05, 0.3):
            x = _mixture(rng, shape, dt, dense)
            _compare(_plain, x)
            _compare(_plain, -x)


@pipeline
def _made(a):
    b = a * 1.0
    return np.nanmax(b, axis=1), b.min(axis=0), np.nanmin(a * 1.0, axis=0), \
        (a * 2.0).max(axis=1), np.nanmax(a + 0.0)


def test_arrays_made_in_fortran_order():
    """`b = a * 1.0` of a Fortran-ordered a is Fortran-ordered (NumPy's
    element-wise result): its reductions follow that layout."""
    rng = np.random.default_rng(281)
    for shape in ((6, 40), (9, 17), (33, 5)):
        x = np.asfortranarray(_mixture(rng, shape, np.float64, 0.2))
        _compare(_made, x)
        _compare(_made, -x)


@pipeline
def _view_axes(a):
    return np.nanmax(a[:, :, 1:], axis=(0, 2)), np.nanmin(a[:, :, ::2], axis=(0, 2)), \
        a[:, :, ::-1].max(axis=(0, 2)), np.nanmin(a[:, ::-1], axis=(0, 1)), \
        np.nanmax(a[:, 1:], axis=(1, 2)), np.nanmax(a[::2, :, 1:], axis=(0, 2)), \
        np.nanmax(a[:, 1:, ::2], axis=(1, 2))


@pytest.mark.parametrize("layout", ["C", pytest.param("F", marks=pytest.mark.slow)])
def test_several_axes_of_views(layout):
    """Rows reduced one by one (a kept axis inside a reduced one), blocks
    (the kept axis outermost; with a step: merged or not by the run-time
    sizes), a reduced axis of size 1 (`a[::2]` of 2)."""
    rng = np.random.default_rng(282)
    for shape in ((3, 5, 40), (4, 9, 17), (2, 6, 7), (2, 3, 300)):
        x = _mixture(rng, shape, np.float64, 0.2)
        x = np.asfortranarray(x) if layout == "F" else x
        _compare(_view_axes, x)
        _compare(_view_axes, -x)


@pipeline
def _size_one(a):
    return np.nanmax(a[:, ::2], axis=0), np.nanmin(a[1:, 1:], axis=0), a[:, ::2].max(axis=0)


def test_views_with_an_axis_of_size_one():
    """A view with a kept axis of size 1 at run time (`a[:, ::2]` of two
    columns): NumPy's loop is that of the view without it (a 1-D strided
    reduce, not lines of one element)."""
    rng = np.random.default_rng(283)
    for shape in ((40, 2), (17, 2), (3, 2), (40, 3), (9, 1)):
        x = _mixture(rng, shape, np.float64, 0.3)
        _compare(_size_one, x)
        _compare(_size_one, np.asfortranarray(-x))
