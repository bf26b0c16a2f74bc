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
