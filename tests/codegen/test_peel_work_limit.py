"""lowering/peel_shift_inwards.py peels the last vector of a ShiftInwards
loop only when the body computes at most PEEL_MAX_WORK vector expressions:
a larger body keeps its clamp (one loop, not two copies). Results equal
NumPy for every extent around the vector width either way."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.lowering.peel_shift_inwards import PEEL_MAX_WORK

LANES = 8


def _stencil(taps):
    """f(x, y) = sum of a(x + i, y) * (i + 1) over i < taps, vectorized by LANES."""
    a = ph.ImageParam(ph.Float(32), 2, "a")
    x, y, f = ph.Var("x"), ph.Var("y"), ph.Func("st")
    e = a[x, y]
    for i in range(1, taps):
        e = e + a[x + i, y] * float(i + 1)
    f[x, y] = e
    f.vectorize(x, LANES)
    return f, a


def _loops(f):
    return ph.Pipeline([f]).lower("final").count(f"for ({f.name()}.s0.x$1,")


def _numpy(src, taps, w):
    out = src[:, 0:w].astype(np.float32).copy()
    for i in range(1, taps):
        out = out + src[:, i:i + w] * np.float32(i + 1)
    return out


@pytest.mark.parametrize("taps,peeled", [(2, True), (PEEL_MAX_WORK, False)])
def test_only_small_bodies_are_peeled(taps, peeled):
    f, a = _stencil(taps)
    # peeled: the unclamped loop, the last vector's loop and the tail copy
    assert _loops(f) == (3 if peeled else 2)
    rng = np.random.default_rng(taps)
    for w in [0, 1, LANES - 1, LANES, LANES + 1, 2 * LANES + 3]:
        src = rng.random((2, w + taps)).astype(np.float32)
        a.set(ph.Buffer(src))
        got = np.asarray(f.realize([w, 2]))
        np.testing.assert_array_equal(got, _numpy(src, taps, w))
