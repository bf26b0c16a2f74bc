"""Whole-array min/max/argmin/argmax of a local fused array (a slice
stencil: `np.abs(lap).max()`, `lap.argmin()`): the array is inlined into
the lanes and the tail of reduce_blocks (no buffer computed at root and
read back), with NumPy's values, NaN and ±0 rules bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import pyhalide as ph


@ph.pipeline
def lap_abs_max(a):
    lap = a[1:-1, 2:] + a[1:-1, :-2] + a[2:, 1:-1] + a[:-2, 1:-1] - 4.0 * a[1:-1, 1:-1]
    return np.abs(lap).max()


@ph.pipeline
def lap_argmin(a):
    lap = a[1:-1, 2:] + a[1:-1, :-2] + a[2:, 1:-1] + a[:-2, 1:-1] - 4.0 * a[1:-1, 1:-1]
    return lap.argmin()


@ph.pipeline
def lap_min(a):
    lap = a[1:-1, 2:] + a[1:-1, :-2] + a[2:, 1:-1] + a[:-2, 1:-1] - 4.0 * a[1:-1, 1:-1]
    return lap.min()


@ph.pipeline
def lap_argmax(a):
    lap = a[1:-1, 2:] - a[1:-1, :-2]
    return lap.argmax()


def _lap(a):
    return a[1:-1, 2:] + a[1:-1, :-2] + a[2:, 1:-1] + a[:-2, 1:-1] - 4.0 * a[1:-1, 1:-1]


REFS = {
    lap_abs_max: lambda a: np.abs(_lap(a)).max(),
    lap_argmin: lambda a: _lap(a).argmin(),
    lap_min: lambda a: _lap(a).min(),
    lap_argmax: lambda a: (a[1:-1, 2:] - a[1:-1, :-2]).argmax(),
}


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind == "f" and np.isnan(want):
        return bool(np.isnan(got))
    return got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape", [(3, 3), (4, 19), (19, 4), (10, 18), (40, 37), (67, 130)])
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_stencil_extremes_equal_numpy(shape, dt):
    rng = np.random.default_rng(sum(shape))
    for t in range(3):
        if t == 0:
            a = rng.standard_normal(shape).astype(dt)
        elif t == 1:        # ±0 ties and repeated extremes
            a = rng.choice(np.array([0.0, -0.0, 1.0, -1.0], dt), size=shape)
        else:               # NaNs: the first one wins
            a = rng.standard_normal(shape).astype(dt)
            a.ravel()[rng.integers(0, a.size, 2)] = np.nan
        for f, ref in REFS.items():
            got, want = f(a), ref(a)
            assert same(got, want), (f, shape, dt, t, got, want)


def test_local_array_is_inlined_into_the_lanes(capsys):
    """The stencil is not computed at root and read back: the pipeline
    realizes only the reduction's Funcs."""
    from pyhalide.ir.config import override
    a = np.random.default_rng(0).standard_normal((30, 40))
    for fn, ref in ((_lap_abs_max_py, REFS[lap_abs_max]), (_lap_argmin_py, REFS[lap_argmin])):
        f = ph.pipeline(fn)
        with override(debug=1):
            got = f(a)
        assert same(got, ref(a))
        err = capsys.readouterr().err
        order = [ln for ln in err.splitlines() if "realization order" in ln]
        assert order and "lap" not in order[0].split(":", 2)[-1], order


def _lap_abs_max_py(a):
    lap = a[1:-1, 2:] + a[1:-1, :-2] + a[2:, 1:-1] + a[:-2, 1:-1] - 4.0 * a[1:-1, 1:-1]
    return np.abs(lap).max()


def _lap_argmin_py(a):
    lap = a[1:-1, 2:] + a[1:-1, :-2] + a[2:, 1:-1] + a[:-2, 1:-1] - 4.0 * a[1:-1, 1:-1]
    return lap.argmin()
