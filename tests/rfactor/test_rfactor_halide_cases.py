"""The cases of Halide's test/correctness/rfactor.cpp, each compared with the
same algorithm under the serial schedule (and with the reference evaluator).
`specialize` and `Func.in()` are not part of pyhalide's API: those parts are
left out, the rest of each schedule is kept."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.rfactor_util import same_as_serial, tiled_tuple_twice

x, y, z = ph.Var("x"), ph.Var("y"), ph.Var("z")


def test_simple_max_of_sum_is_refused_for_integers():
    # Halide accepts max(g + f, g) by assuming that g + f does not overflow
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = x + y
    g[x, y] = 40
    r = ph.RDom([(10, 20), (30, 40)], "r")
    g[r.x, r.y] = ph.max(g[r.x, r.y] + f[r.x, r.y], g[r.x, r.y])
    op = ph.prove_associativity(g.update(0))
    assert not op.associative and "overflow" in op.reason
    with pytest.raises(ph.CompileError, match="overflow"):
        g.update(0).rfactor(r.y, ph.Var("u"))


def test_simple_max_of_sum_floats():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        f[x, y] = ph.cast(ph.Float(32), x + y)
        f.compute_root()
        g[x, y] = np.float32(40)
        r = ph.RDom([(10, 20), (30, 40)], "r")
        g[r.x, r.y] = ph.max(g[r.x, r.y] + f[r.x, r.y], g[r.x, r.y])
        if schedule:
            u = ph.Var("u")
            intm = g.update(0).rfactor(r.y, u)
            intm.compute_root()
            intm.vectorize(u, 8)
            intm.update(0).vectorize(r.x, 2)
        return g
    same_as_serial(build, [80, 80])


def test_reorder_split():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        r = ph.RDom([(10, 20), (20, 30)], "r")
        f[x, y] = x - y
        f.compute_root()
        g[x, y] = 1
        g[r.x, r.y] += f[r.x, r.y]
        if schedule:
            g.update(0).reorder(r.y, r.x)
            rxi, rxo = ph.RVar("rxi"), ph.RVar("rxo")
            g.update(0).split(r.x, rxo, rxi, 2)
            u, v = ph.Var("u"), ph.Var("v")
            intm1 = g.update(0).rfactor([(rxo, u), (r.y, v)])
            intm2 = g.update(0).rfactor(r.y, v)
            intm2.compute_root()
            intm1.compute_at(intm2, rxo)
        return g
    got = same_as_serial(build, [32, 52], reference_of_factored=False)[0]
    yy, xx = np.mgrid[0:52, 0:32]
    inside = (10 <= xx) & (xx <= 29) & (20 <= yy) & (yy <= 49)
    np.testing.assert_array_equal(got, np.where(inside, xx - yy + 1, 1))


def test_multi_split_guarded():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        r = ph.RDom([(10, 20), (20, 30)], "r")
        f[x, y] = x - y
        f.compute_root()
        g[x, y] = 1
        g[r.x, r.y] += f[r.x, r.y]
        if schedule:
            g.update(0).reorder(r.y, r.x)
            rxi, rxo, ryi, ryo = ph.RVar("rxi"), ph.RVar("rxo"), ph.RVar("ryi"), ph.RVar("ryo")
            ryoo, ryoi = ph.RVar("ryoo"), ph.RVar("ryoi")
            u, v, w = ph.Var("u"), ph.Var("v"), ph.Var("w")
            g.update(0).split(r.x, rxo, rxi, 2)
            intm1 = g.update(0).rfactor([(rxo, u), (r.y, v)])
            g.update(0).split(r.y, ryo, ryi, 2, ph.TailStrategy.GuardWithIf)
            g.update(0).split(ryo, ryoo, ryoi, 4, ph.TailStrategy.GuardWithIf)
            intm2 = g.update(0).rfactor([(rxo, u), (ryoo, v), (ryoi, w)])
            intm2.compute_root()
            intm1.compute_root()
        return g
    same_as_serial(build, [32, 52], reference_of_factored=False)


def test_reorder_fuse():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        r = ph.RDom([(5, 10), (5, 10), (5, 10)], "r")
        f[x, y, z] = x + y + z
        f.compute_root()
        g[x, y, z] = 1
        g[r.x, r.y, r.z] += f[r.x, r.y, r.z]
        if schedule:
            rf = ph.RVar("rf")
            g.update(0).fuse(r.x, r.y, rf)
            g.update(0).reorder(r.z, rf)
            u = ph.Var("u")
            intm = g.update(0).rfactor(r.z, u)
            rfi, rfo = ph.RVar("rfi"), ph.RVar("rfo")
            intm.update(0).split(rf, rfi, rfo, 2)
            intm.compute_at(g, r.z)
        return g
    same_as_serial(build, [20, 20, 20])


def test_non_trivial_lhs():
    def build(schedule):
        a, b, c = ph.Func("a"), ph.Func("b"), ph.Func("c")
        r = ph.RDom([(5, 10), (5, 10), (5, 10)], "r")
        a[x, y, z] = x
        b[x, y, z] = x + y
        c[x, y, z] = x + y + z
        for h in (a, b, c):
            h.compute_root()
        f, g = ph.Func("f"), ph.Func("g")
        f[x, y] = 1
        f[ph.clamp(a[r.x, r.y, r.z], 0, 19), ph.clamp(b[r.x, r.y, r.z], 0, 29)] += c[r.x, r.y, r.z]
        f.compute_root()
        g[x, y, z] = 2 * f[x, y]
        if schedule:
            u, v = ph.Var("u"), ph.Var("v")
            rzi, rzo = ph.RVar("rzi"), ph.RVar("rzo")
            intm = f.update(0).rfactor([(r.x, u), (r.y, v)])
            intm.update(0).split(r.z, rzo, rzi, 2)
            intm.compute_root()
        return g
    same_as_serial(build, [20, 20, 20])


def test_min_with_vectorized_intermediate():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        f[x, y] = x + y
        f.compute_root()
        g[x, y] = 40
        r = ph.RDom([(10, 20), (30, 40)], "r")
        g[r.x, r.y] = ph.min(f[r.x, r.y] + 2, g[r.x, r.y])
        if schedule:
            u = ph.Var("u")
            intm = g.update(0).rfactor(r.y, u)
            intm.compute_root()
            intm.vectorize(u, 8)
            intm.update(0).vectorize(r.x, 2)
        return g
    same_as_serial(build, [80, 80])


def test_rdom_with_predicates():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        f[x, y, z] = x + y + z
        f.compute_root()
        g[x, y, z] = 1
        r = ph.RDom([(5, 10), (5, 10), (0, 20)], "r")
        r.where(r.x < r.y)
        r.where(r.x + 2 * r.y <= r.z)
        g[r.x, r.y, r.z] += f[r.x, r.y, r.z]
        if schedule:
            u, v = ph.Var("u"), ph.Var("v")
            intm = g.update(0).rfactor([(r.y, u), (r.x, v)])
            intm.compute_root()
            ui, vi, t = ph.Var("ui"), ph.Var("vi"), ph.Var("t")
            intm.tile(u, v, ui, vi, 2, 2).fuse(u, v, t).parallel(t)
            intm.update(0).vectorize(r.z, 2)
        return g
    same_as_serial(build, [20, 20, 20], reference_of_factored=False)


def test_histogram():
    rng = np.random.default_rng(7)
    img = rng.integers(0, 256, (128, 128)).astype(np.float32)

    def build(schedule):
        inp = ph.Buffer(img, "hin")
        hist, g = ph.Func("hist"), ph.Func("g")
        r = ph.RDom(inp)
        hist[x] = 0
        hist[ph.clamp(ph.cast(ph.Int(32), inp[r.x, r.y]), 0, 255)] += 1
        hist.compute_root()
        g[x] = hist[x + 10]
        if schedule:
            u = ph.Var("u")
            intm = hist.update(0).rfactor(r.y, u)
            intm.compute_root()
            intm.update(0).parallel(u)
        return g
    got = same_as_serial(build, [10])[0]
    np.testing.assert_array_equal(got, np.bincount(img.astype(np.uint8).ravel(), minlength=256)[10:20])


def test_parallel_dot_product_nested():
    def build(schedule):
        a, b = ph.Func("a"), ph.Func("b")
        a[x] = x
        b[x] = x + 2
        a.compute_root()
        b.compute_root()
        r = ph.RDom([(0, 1024)], "r")
        dot = ph.Func("dot")
        dot[()] = 0
        dot[()] += a[r.x] * b[r.x]
        if schedule:
            rxo, rxi, rxio, rxii = ph.RVar("rxo"), ph.RVar("rxi"), ph.RVar("rxio"), ph.RVar("rxii")
            u, v = ph.Var("u"), ph.Var("v")
            dot.update(0).split(r.x, rxo, rxi, 128)
            intm1 = dot.update(0).rfactor(rxo, u)
            intm1.update(0).split(rxi, rxio, rxii, 8)
            intm2 = intm1.update(0).rfactor(rxii, v)
            intm2.compute_at(intm1, u)
            intm2.update(0).vectorize(v, 8)
            intm1.compute_root()
            intm1.update(0).parallel(u)
        return dot
    same_as_serial(build, [])


# tile_update=True is Halide's exact schedule (its compile time:
# test_rfactor_compile_time.py).
@pytest.mark.parametrize("tile_update", [False, True])
def test_tuple_tiled_and_nested(tile_update):
    same_as_serial(lambda schedule: tiled_tuple_twice(schedule, False, tile_update), [24, 16],
                   reference_of_factored=False)


def test_tuple_with_predicates():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        f[x, y, z] = (x + y + z, x - y + z)
        f.compute_root()
        r = ph.RDom([(5, 20), (5, 20), (5, 20)], "r")
        r.where(r.x * r.x + r.z * r.z <= 200)
        r.where(r.y * r.z + r.z * r.z > 100)
        g[x, y] = (1, 3)
        g[x, y] = (g[x, y][0] * f[r.x, r.y, r.z][0], g[x, y][1] + 2 * f[r.x, r.y, r.z][1])
        if schedule:
            v, w, t = ph.Var("v"), ph.Var("w"), ph.Var("t")
            intm1 = g.update(0).rfactor([(r.y, v), (r.z, w)])
            intm1.update(0).parallel(v, 4)
            intm1.compute_root()
            rxi, rxo = ph.RVar("rxi"), ph.RVar("rxo")
            intm1.update(0).split(r.x, rxo, rxi, 2)
            intm2 = intm1.update(0).rfactor(rxi, t).compute_root()
            intm2.update(0).vectorize(t)
        return g
    same_as_serial(build, [10, 10])


def _param_extents():
    inner, outer = ph.Param(ph.Int(32), "inner_extent", 20), ph.Param(ph.Int(32), "outer_extent", 40)
    return ph.RDom([(10, inner), (30, outer)], "r")


def test_subtraction_with_param_extents():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        f[x, y] = x + y
        f.compute_root()
        r = _param_extents()
        g[x, y] = 40
        g[x, y] -= f[r.x, r.y]
        if schedule:
            rxi, rxo, u = ph.RVar("rxi"), ph.RVar("rxo"), ph.Var("u")
            g.update(0).split(r.x, rxo, rxi, 2)
            intm = g.update(0).rfactor(rxo, u)
            intm.compute_root()
            intm.update(0).vectorize(u, 2)
        return g
    same_as_serial(build, [16, 8])


def test_complex_multiply():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        f[x, y] = (x + y, x - y)
        f.compute_root()
        r = _param_extents()
        g[x, y] = (10, 20)
        g0, g1, f0, f1 = g[x, y][0], g[x, y][1], f[r.x, r.y][0], f[r.x, r.y][1]
        g[x, y] = (g0 * f0 - g1 * f1, g0 * f1 + g1 * f0)
        if schedule:
            rxi, rxo, u = ph.RVar("rxi"), ph.RVar("rxo"), ph.Var("u")
            g.update(0).split(r.x, rxo, rxi, 2)
            intm = g.update(0).rfactor(rxo, u)
            intm.compute_root()
            intm.update(0).vectorize(u, 2)
        return g
    same_as_serial(build, [8, 8])


def test_argmin_with_float_indices():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        f[x, y] = x + y
        f.compute_root()
        r = _param_extents()
        g[()] = (10, np.float32(20), np.float32(30))
        better = g[()][0] < f[r.x, r.y]
        g[()] = (ph.min(g[()][0], f[r.x, r.y]),
                 ph.select(better, g[()][1], ph.cast(ph.Float(32), r.x)),
                 ph.select(better, g[()][2], ph.cast(ph.Float(32), r.y)))
        if schedule:
            rxi, rxo, u = ph.RVar("rxi"), ph.RVar("rxo"), ph.Var("u")
            g.update(0).split(r.x, rxo, rxi, 2)
            intm = g.update(0).rfactor(rxo, u)
            intm.compute_root()
            intm.update(0).vectorize(u, 2)
        return g
    same_as_serial(build, [])


def test_allocation_bound_with_compute_at():
    def build(schedule):
        f, g = ph.Func("f"), ph.Func("g")
        r = ph.RDom([(0, 31)], "r")
        f[x] = x
        g[x] = 1
        g[r.x] += f[r.x]
        if schedule:
            rxo, rxi, u = ph.RVar("rxo"), ph.RVar("rxi"), ph.Var("u")
            g.update(0).split(r.x, rxo, rxi, 2)
            f.compute_at(g, rxo)
            g.update(0).rfactor([(rxo, u)]).compute_at(g, rxo)
        return g
    same_as_serial(build, [23])


def test_tile_reorder_histogram_of_both_rvars():
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, (8, 8), dtype=np.uint8)

    def build(schedule):
        inp = ph.Buffer(data, "tin")
        f = ph.Func("f")
        r = ph.RDom([(0, 8), (0, 8)], "r")
        f[x] = 0
        f[ph.cast(ph.Int(32), inp[r.x, r.y] % 8)] += 1
        if schedule:
            u, v, ui, vi = ph.Var("u"), ph.Var("v"), ph.Var("ui"), ph.Var("vi")
            f.update().rfactor([(r.x, u), (r.y, v)]).compute_root().update() \
                .tile(u, v, ui, vi, 4, 4).parallel(u).parallel(v)
        return f
    same_as_serial(build, [8])


@pytest.mark.parametrize("tile_update", [False, True])
def test_partial_tuple_reduction(tile_update):
    same_as_serial(lambda schedule: tiled_tuple_twice(schedule, True, tile_update), [16, 8])


def test_self_assignment():
    def build(schedule):
        g = ph.Func("g")
        g[x, y] = x + y
        r = ph.RDom([(0, 10), (0, 10)], "r")
        g[r.x, r.y] = g[r.x, r.y]
        if schedule:
            g.update(0).rfactor(r.y, ph.Var("u")).compute_root()
        return g
    got = same_as_serial(build, [10, 10])[0]
    yy, xx = np.mgrid[0:10, 0:10]
    np.testing.assert_array_equal(got, xx + yy)
