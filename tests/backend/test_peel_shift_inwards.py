"""The last vector of a ShiftInwards vector loop runs in a loop of its own
(lowering/peel_shift_inwards.py): the other vectors have no clamp. Results
equal NumPy for every extent around the vector width, in one and two
dimensions, and for a two-stage pipeline computed per tile."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite2


def _copy(dtype, lanes, tail=None):
    a = ph.ImageParam(_ph_type(dtype), 2, "a")
    x, y, f = ph.Var("x"), ph.Var("y"), ph.Func("cp")
    f[x, y] = a[x + 1, y] * 3
    if tail is None:
        f.vectorize(x, lanes)
    else:
        f.vectorize(x, lanes, tail)
    return f, a


def _ph_type(dtype):
    return {np.float32: ph.Float(32), np.uint8: ph.UInt(8), np.int16: ph.Int(16)}[dtype]


def _loops(f):
    return ph.Pipeline([f]).lower("final").count(f"for ({f.name()}.s0.x$1,")


@pytest.mark.parametrize("dtype,lanes", [(np.float32, 16), (np.uint8, 64), (np.int16, 8)])
def test_copy_every_extent(dtype, lanes):
    f, a = _copy(dtype, lanes)
    assert _loops(f) == 3       # the peeled loops and the guarded tail copy
    rng = np.random.default_rng(lanes)
    for w in [0, 1, lanes - 1, lanes, lanes + 1, 2 * lanes - 1, 2 * lanes, 3 * lanes + 5]:
        for h in (1, 3):
            src = (rng.random((h, w + 1)) * 40).astype(dtype)
            a.set(ph.Buffer(src))
            got = np.asarray(f.realize([w, h]))
            np.testing.assert_array_equal(got, (src[:, 1:] * dtype(3)).astype(dtype))


@pytest.mark.parametrize("tail", [ph.TailStrategy.RoundUp, ph.TailStrategy.GuardWithIf])
def test_other_tails_are_not_peeled(tail):
    f, _ = _copy(np.float32, 16, tail)
    assert _loops(f) <= 2


@pytest.mark.parametrize("shape", [(37, 100), (64, 64), (9, 130)])
def test_blur_per_tile_at_odd_sizes(shape):
    h, w = shape
    d = {"img": np.random.default_rng(w).integers(0, 2**16, (h + 2, w + 2), dtype=np.uint16),
         "shape": (h, w)}
    f, fs = suite2.alg_blur(ph, d)
    suite2.sched_blur(ph, f, fs, {"lanes": 16, "tile_x": 32, "tile_y": 8})
    got = np.asarray(f.realize([w, h]))
    np.testing.assert_array_equal(got, suite2.blur_numpy(d["img"]))
