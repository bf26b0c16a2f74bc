"""Boundary-condition loads under vectorize: a load at broadcast(s) +
clamp(ramp(b, 1, n), lo, hi) is one dense load where no lane is clamped and
the gather elsewhere (codegen_llvm._clamped_load), and a pure Func whose
innermost unrolled dimension sits inside its vectorized one is vectorized
(vectorize_loops' pure storage): both read and write what the serial loops
do, at the edges, in the interior and across the switch between the two."""
import numpy as np
import pytest

import pyhalide as hl


@pytest.mark.parametrize("lanes", [8, 16])
def test_repeat_edge_and_clamp_forms_match_numpy(lanes):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 1000, (9, 37)).astype(np.int32)
    A = hl.Buffer(a)
    x, y = hl.Var("x"), hl.Var("y")
    edge = hl.BoundaryConditions.repeat_edge(A)
    f = hl.Func("f")
    # clamp as min(max()) and as max(min()), with a broadcast part (y) and without
    f[x, y] = (edge[x - 3, y] + edge[x + 5, y] * 2
               + A[hl.min(hl.max(x, 0), 36), hl.clamp(y, 0, 8)]
               + A[hl.max(hl.min(x - 1, 36), 0), 0])
    f.vectorize(x, lanes)
    out = np.asarray(f.realize([3 * lanes + 3, 9]))   # lanes run past both edges
    xs = np.arange(3 * lanes + 3)
    want = np.stack([a[yy, np.clip(xs - 3, 0, 36)] + a[yy, np.clip(xs + 5, 0, 36)] * 2
                     + a[yy, np.clip(xs, 0, 36)] + a[0, np.clip(xs - 1, 0, 36)]
                     for yy in range(9)])
    np.testing.assert_array_equal(out, want)


def test_shifted_region_crosses_both_edges():
    a = np.arange(50, dtype=np.float32) * 0.5
    A = hl.Buffer(a)
    x = hl.Var("x")
    edge = hl.BoundaryConditions.repeat_edge(A)
    f = hl.Func("f")
    f[x] = edge[x] + edge[x + 1]
    f.vectorize(x, 16)
    out = hl.Buffer(hl.Float(32), [80])
    out.set_min([-15])
    f.realize(out)
    xs = np.arange(-15, 65)
    np.testing.assert_array_equal(np.asarray(out), a[np.clip(xs, 0, 49)] + a[np.clip(xs + 1, 0, 49)])


def test_unrolled_channels_inside_vectorized_x():
    rng = np.random.default_rng(6)
    a = rng.random((4, 30, 41), dtype=np.float32)      # c, y, x
    A = hl.Buffer(a)
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    edge = hl.BoundaryConditions.repeat_edge(A)
    g = hl.Func("g")
    g[x, y, c] = hl.select(c < 3, edge[x, y, c] * edge[x, y, 3], edge[x, y, 3])
    h = hl.Func("h")
    h[x, y, c] = g[x - 1, y, c] + g[x + 1, y, c]
    g.compute_root().bound(c, 0, 4).reorder(c, x, y).unroll(c).vectorize(x, 16)
    h.vectorize(x, 16)
    out = np.asarray(h.realize([41, 30, 4]))
    xs = np.clip(np.arange(-1, 42), 0, 40)
    gv = np.where(np.arange(4)[:, None, None] < 3, a[:, :, xs] * a[3:4, :, xs], a[3:4, :, xs])
    np.testing.assert_array_equal(out, gv[:, :, 0:41] + gv[:, :, 2:43])
