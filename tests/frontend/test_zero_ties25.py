"""nanmax/nanmin of one axis that is not innermost in memory (axis 0 of a
C array, the last of a Fortran one, of 2-D and 3-D arrays and of a new
array) return NumPy's element among 0.0/-0.0 ties (NumPy's binary fmax /
fmin loop over the lines inside the axis: frontend_ast/numpy_zero_ties.py
`_line_key`), compared with NumPy on this host bit for bit, NaNs among the
elements. Where this NumPy does not run the AVX-512 loops the rule models
(MODELLED false), the serial loop's rule is checked instead."""
import warnings

import numpy as np
import pytest

from frontend_ast.numpy_zero_ties import MODELLED
from pyhalide import pipeline


@pipeline
def _outer(a):
    return np.nanmax(a, axis=0), np.nanmin(a, axis=0), np.nanmax(a, axis=-1), \
        np.nanmin(a, axis=1), np.nanmax(a * 2.0, axis=0)


def _first_zero(a, axis):
    """The serial rule of nanmax/nanmin: the first zero of each line."""
    lines = np.moveaxis(a, axis, -1)
    out = np.empty(lines.shape[:-1], a.dtype)
    for q in np.ndindex(out.shape):
        v = lines[q]
        zs = np.flatnonzero(v == 0)
        out[q] = v[zs[0]] if len(zs) else 1.0
    return out


def _mixture(rng, shape, dt):
    """Zeros of both signs, -1.0 and NaN: the extreme of nanmax a zero where
    a line has one, of nanmin where negated."""
    s = rng.integers(0, 4, shape)
    x = np.zeros(shape, dt)
    x[s == 1] = -0.0
    x[s == 2] = -1.0
    x[s == 3] = np.nan
    return x


def _compare(a):
    got = _outer(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # all-NaN lines
        want = _outer.py_func(a)
    for k, (g, w) in enumerate(zip(got, want)):
        assert np.array_equal(g, w, equal_nan=True), (k, g, w)
        if not MODELLED:
            ax = 0 if k in (0, 1, 4) else 1
            w = np.where(g == 0, _first_zero(a * 2.0 if k == 4 else a, ax), w)
        same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
        assert same.all(), (a.shape, a.dtype, a.flags.f_contiguous, k, np.argwhere(~same))


def test_outer_axis_lines():
    rng = np.random.default_rng(2025)
    # (one kernel per dtype and layout: float64 C, float32 Fortran)
    for dt, order in ((np.float64, "C"), (np.float32, "F")):
        # line lengths around the lanes (8 float64, 16 float32) and the tail
        for shape in ((3, 5), (9, 33), (17, 40), (6, 23), (40, 3)):
            x = np.asarray(_mixture(rng, shape, dt), order=order)
            _compare(x)
            _compare(-x)


@pipeline
def _views(a):
    b = a[:, 1:]        # a view made in the function
    return a.max(axis=1), np.nanmin(a, axis=1), np.nanmax(a, axis=0), a.max(), np.nanmin(a), \
        b.max()


_FM = (False, True, True, False, True, False)       # _views' nanmax/nanmin


def _serial_zeros(a, k, g, w):
    """_views' result k by the serial rule where it is a zero (the last
    zero; nanmax/nanmin the first): where NumPy's loops are not modelled."""
    if k >= 3:
        flat = np.ravel(a[:, 1:] if k == 5 else a)
        zs = flat[flat == 0]
        return (zs[0] if _FM[k] else zs[-1]) if g == 0 else w
    lines = a if k < 2 else a.T
    return np.array([v[v == 0][0 if _FM[k] else -1] if gq == 0 else wq
                     for v, gq, wq in zip(lines, g, w)])


def _sparse(rng, shape, dt):
    """-1.0 with a few zeros of either sign and NaNs (so that buffers differ
    in which of them hold zeros)."""
    s = rng.integers(0, 12, shape)
    x = np.full(shape, -1.0, dt)
    x[s == 1] = -0.0
    x[s == 2] = 0.0
    x[s == 3] = np.nan
    return x


@pytest.mark.slow       # ~27 s of compiles: the slow run (CI) checks it
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_view_arguments(dt):
    """Arguments that are non-contiguous views (their layout in the call's
    key is the strides' order; the innermost axis's stride tested at run
    time): one axis (unit inner stride: NumPy's contiguous reduce per line,
    or for nanmax/nanmin over the other axis its binary loop; else the
    strided reduce's 8-unroll), every axis (rows that do not merge: NumPy's
    buffered iteration, buffers of 8192 // row whole rows, each a
    contiguous reduce from the result so far; a step view whose rows merge:
    one strided reduce), of more and of fewer than 8192 elements (rows
    longer than 8192: one at a time), and a
    view made in the function; nanmax/nanmin over the outer axis of a view
    with a step in its inner axis: NumPy's strided binary loop; an inner
    axis read backwards (NumPy does not flip it): the strided reduce, and
    for the binary loop the later element of a tie."""
    rng = np.random.default_rng(2027)
    views = (lambda y, R, C: y[:R, 1:C + 1], lambda y, R, C: y[::2, :C],    # one kernel
             lambda y, R, C: y[:R, :2 * C:2],
             lambda y, R, C: np.ascontiguousarray(y[:, :2 * C])[:, ::2],
             lambda y, R, C: y[:R, C - 1::-1])    # (read backwards: strided loops)
    cases = views if dt == np.float64 else views[:1]     # (float32: its 16 lanes)
    for R, C, make in ((150, 61, _sparse), (9, 33, _mixture), (40, 17, _mixture), (3, 8500, _sparse)):
        x = make(rng, (2 * R, 2 * C + 3), dt)
        for y in (x, -x):
            for v, view in enumerate(cases):
                if v == 4 and C > 8192:     # (not modelled: docs/numpy_zero_ties25.md)
                    continue
                a = view(y, R, C)
                got = _views(a)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    want = _views.py_func(a)
                for k, (g, w) in enumerate(zip(got, want)):
                    assert np.array_equal(g, w, equal_nan=True), (v, k, g, w)
                    if not MODELLED:
                        w = _serial_zeros(a, k, g, w)
                    same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
                    assert np.all(same), (a.shape, a.strides, k, np.argwhere(~same))


@pipeline
def _in_loops(a):
    rows = np.empty(a.shape[0])
    cols = np.empty(a.shape[1])
    for i in range(a.shape[0]):
        rows[i] = a[i].max()                    # a contiguous reduce per row
    for j in range(a.shape[1]):
        cols[j] = np.nanmin(a[:, j] * 2.0)      # a new array per column
    return rows, cols


def test_reductions_inside_loops():
    """Reductions inside Python loops (lifted array code: one Func over the
    iterations) choose NumPy's zero too, also for arguments that are views."""
    rng = np.random.default_rng(2028)
    for R, C in ((20, 37), (9, 3), (18, 17)):
        x = _mixture(rng, (R, C), np.float64)
        x[np.isnan(x)] = -0.0
        # (rows of a step view: unit inner stride, a run-time test; rows read
        # backwards: the strided reduce)
        for a in (x, -x, x[::2], -x[:, ::-1]):
            got, want = _in_loops(a), _in_loops.py_func(a)
            for k, (g, w) in enumerate(zip(got, want)):
                assert np.array_equal(g, w), (k, g, w)
                if not MODELLED:        # the serial rule: the last zero, nanmin the first
                    lines = a if k == 0 else (a * 2.0).T
                    w = np.array([v[v == 0][-1 if k == 0 else 0] if (v == 0).any() else g[q]
                                  for q, v in enumerate(lines)])
                same = np.signbit(g) == np.signbit(w)
                assert same.all(), (a.shape, k, np.argwhere(~same))


@pipeline
def _several_axes(a):
    return a.max(axis=(1, 2)), np.nanmin(a, axis=(1, 2)), np.nanmax(a, axis=(0, 1)), \
        np.min(a, axis=(0, 2)), np.nanmax(a * 2.0, axis=(0, 2)), np.nanmax(a, axis=0), \
        np.nanmin(a, axis=1)


@pytest.mark.parametrize("order", ["C", pytest.param("F", marks=pytest.mark.slow)])
def test_several_axes(order):
    """Reductions of several axes but not all of 3-D arrays, C and Fortran:
    the reduced axes innermost in memory (a contiguous reduce per line),
    outermost (nanmax: the binary loop's lines) or around a kept one (a
    contiguous reduce per row, each from the result so far); nanmax/nanmin
    of one outer axis (lines of the two axes inside it, or of one)."""
    rng = np.random.default_rng(2029)
    for shape in ((5, 7, 19), (3, 20, 9)):
        x = _mixture(rng, shape, np.float64)
        for a in (np.asarray(x, order=order), np.asarray(-x, order=order)):
            got = _several_axes(a)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                want = _several_axes.py_func(a)
            for k, (g, w) in enumerate(zip(got, want)):
                assert np.array_equal(g, w, equal_nan=True), (k, g, w)
                if MODELLED:
                    same = (np.signbit(g) == np.signbit(w)) | np.isnan(w)
                    assert same.all(), (a.shape, a.flags.f_contiguous, k, np.argwhere(~same))
