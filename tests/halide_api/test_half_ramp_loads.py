"""Upsampling loads `f[x / 2]` under vectorize (lowering/half_ramp_loads.py:
two dense loads interleaved instead of a gather) read what the serial loop
reads: floor division of negative numerators, odd vector starts, let-bound
(shared) indices, 8 and 16 lanes, 2-D and float/int buffers."""
import numpy as np
import pytest

import pyhalide as hl


@pytest.mark.parametrize("lanes", [8, 16])
def test_upsample_reads_match_numpy(lanes):
    rng = np.random.default_rng(3)
    a = rng.random(200, dtype=np.float32)
    b = rng.integers(-1000, 1000, (6, 120)).astype(np.int32)
    A, B = hl.Buffer(a), hl.Buffer(b)
    x, y = hl.Var("x"), hl.Var("y")
    f = hl.Func("f")
    # (x - 9) / 2 is negative for the first lanes: floor division
    f[x, y] = (A[(x - 9) / 2 + 20] + A[(x + 1) / 2] * 2.0
               + hl.f32(B[x / 2, y]) + hl.f32(B[(x + 3) / 2, y]))
    g = hl.Func("g")
    # the same half ramp read twice (shared into one let by the compiler)
    g[x, y] = f[x, y] * (A[x / 2 + 1] + A[x / 2 + 1] * A[x / 2 + 1])
    f.compute_root().vectorize(x, lanes)
    g.vectorize(x, lanes)
    n = 3 * lanes + 5                      # a tail that is not a whole vector
    out = np.asarray(g.realize([n, 6]))
    xs = np.arange(n)
    fy = []
    for yy in range(6):
        fv = (a[(xs - 9) // 2 + 20] + a[(xs + 1) // 2] * np.float32(2.0)
              + b[yy, xs // 2].astype(np.float32) + b[yy, (xs + 3) // 2].astype(np.float32))
        h = a[xs // 2 + 1]
        fy.append(fv * (h + h * h))
    want = np.stack(fy)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("lanes", [8, 16])
def test_upsample_of_a_channel_plane_is_two_dense_loads(lanes):
    """interpolate's form: a producer with a channel dimension, stored per
    strip, read at [x / 2, y / 2, 3] and [(x + 1) / 2, ...]: the index is a
    sum of two broadcasts (row, channel plane) and the half ramp, nested
    as (row + half) + plane. It is loaded as dense vectors (no gather in
    the LLVM IR) and equals the reference evaluator bit for bit."""
    from tests.vectorize.vectorize_util import check_schedule, llvm_of
    a = hl.Buffer(np.random.default_rng(5).random((4, 23, 41), dtype=np.float32), "plane_in")
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")

    def make():
        lo = hl.Func("lo_res")
        lo[x, y, c] = a[x, y, c] * 2.0 + 1.0
        up = hl.Func("up_res")
        w = 1.0 - lo[x / 2, y / 2, 3]
        up[x, y, c] = w * (lo[x / 2, y / 2, c] + lo[(x + 1) / 2, (y + 1) / 2, c]) \
            + lo[(x + 1) / 2, y / 2, 3]
        return up, lo

    def schedule(up, lo):
        yo, yi = hl.Var("yo"), hl.Var("yi")
        up.split(y, yo, yi, 8).reorder(x, c, yi, yo).vectorize(x, lanes)
        lo.store_at(up, yo).compute_at(up, yi).vectorize(x, lanes)

    lowered = check_schedule(make, schedule, [2 * 41 - 2 - 5, 2 * 23 - 2, 3])
    assert "llvm.masked.gather" not in llvm_of(lowered)
