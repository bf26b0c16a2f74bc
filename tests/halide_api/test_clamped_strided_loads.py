"""Downsampling reads of a clamped (boundary-condition) input under
vectorize: `f[clamp(2 * x + k, lo, hi)]` is loaded as the stride-2 span
load where no lane is clamped and gathered where some are
(lowering/half_ramp_loads.py clamped_ramp_index, codegen_llvm
_clamped_load). Interpolate's fourth pyramid level reads its input so.
Every result equals the reference evaluator bit for bit, at the edges (the
gather) and inside (the span load), for both clamp orders, strides 2, 3
and -2, an offset channel plane, and a clamp through a let."""
import numpy as np
import pytest

import pyhalide as hl
from tests.vectorize.vectorize_util import check_schedule, llvm_of

rng = np.random.default_rng(17)


@pytest.mark.parametrize("lanes", [8, 16])
def test_downsample_of_a_clamped_input(lanes):
    a = hl.Buffer(rng.random((3, 19, 77), dtype=np.float32), "ds_in")
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    w, h = 77 - 1, 19 - 1

    def make():
        f = hl.Func("ds_out")
        ex = [a[hl.clamp(2 * x + k, 0, w), hl.clamp(2 * y, 0, h), c] for k in (-1, 0, 1)]
        # min-of-max order and an offset channel (a second broadcast term)
        other = a[hl.min(hl.max(2 * x + 3, 2), w - 1), hl.clamp(y, 0, h), 2]
        f[x, y, c] = (ex[0] + 2.0 * ex[1] + ex[2]) * 0.25 + other
        return f

    lowered = check_schedule(make, lambda f: f.vectorize(x, lanes), [45, 11, 3])
    text = llvm_of(lowered)
    assert "llvm.masked.gather" in text       # the edges' fallback
    assert f"load <{lanes} x float>" in text  # the span loads inside


@pytest.mark.parametrize("stride", [3, -2])
def test_other_strides_of_a_clamped_input(stride):
    a = hl.Buffer(rng.integers(-1000, 1000, (7, 101)).astype(np.int32), "st_in")
    x, y = hl.Var("x"), hl.Var("y")

    def make():
        f = hl.Func("st_out")
        e = hl.clamp(stride * x + 40, 1, 95)
        f[x, y] = a[e, y] * 3 + a[e, hl.clamp(y + 1, 0, 6)]
        return f

    lowered = check_schedule(make, lambda f: f.vectorize(x, 8), [37, 7])
    assert "load <8 x i32>" in llvm_of(lowered)
