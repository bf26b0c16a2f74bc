"""The shape of what rfactor builds (the intermediate's dimensions, the
merge's loops) and cases beyond Halide's tests: empty preserved lists,
several updates, predicates over pure Vars, inline reductions, guarded and
subtracting updates, floats."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.rfactor_util import same_as_serial, same_definitions

x, y = ph.Var("x"), ph.Var("y")
rng = np.random.default_rng(21)


def test_intermediate_dimensions_follow_halide():
    A = ph.Buffer(rng.integers(0, 9, (7, 11)).astype(np.int32), "td_in")
    r = ph.RDom([(0, 11), (0, 7)], "r")
    f = ph.Func("td")
    f[x] = 0
    f[x] += A[r.x, r.y] * x
    u, v = ph.Var("u"), ph.Var("v")
    intm = f.update().rfactor([(r.y, v), (r.x, u)])     # sorted innermost first
    assert [a.name() for a in intm.args()] == ["x", "u", "v"]
    assert intm.dimensions() == 3
    merge = f.update().definition()
    assert [rv.name for rv in merge.rvars] == ["r$x", "r$y"]


def test_empty_preserved_list_and_several_updates():
    data = rng.integers(-20, 20, 50).astype(np.int32)

    def build(schedule):
        A = ph.Buffer(data, "mu_in")
        r = ph.RDom([(0, 50)], "r")
        f = ph.Func("mu")
        f[x] = x
        f[x] += A[r.x]
        f[x] = ph.max(f[x], A[r.x] * (x - 2))
        if schedule:
            f.update(1).rfactor([]).compute_root()
            rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
            f.update(0).split(r.x, rxo, rxi, 16)
            f.update(0).rfactor(rxo, ph.Var("u")).compute_root()
        return f
    same_as_serial(build, [5])


def test_predicate_over_a_pure_var_and_the_preserved_rvar():
    data = rng.integers(0, 100, (6, 13)).astype(np.int32)

    def build(schedule):
        A = ph.Buffer(data, "pp_in")
        r = ph.RDom([(0, 13), (0, 6)], "r")
        r.where(r.x + r.y < x + 10)
        r.where(r.y != 2)
        f = ph.Func("pp")
        f[x] = 0
        f[x] += A[r.x, r.y]
        if schedule:
            intm = f.update().rfactor(r.y, ph.Var("u"))
            intm.compute_root().update().parallel(ph.Var("u"))
        return f
    same_as_serial(build, [9])


def test_inline_argmin_holder():
    data = rng.integers(0, 3, (5, 9)).astype(np.int16)

    def build(schedule):
        A = ph.Buffer(data, "ia_in")
        r = ph.RDom([(0, 9), (0, 5)], "r")
        f = ph.Func("ia")
        ph.argmin(A[r.x, r.y], f)
        if schedule:
            f.update().rfactor(r.x, ph.Var("u")).compute_root()
        return f
    got = same_as_serial(build, [])
    i = np.argmin(data)
    assert [int(g) for g in got] == [i % 9, i // 9, int(data.min())]


def test_guarded_updates():
    data = rng.integers(-9, 9, 64).astype(np.int32)

    def build(schedule):
        A = ph.Buffer(data, "gu_in")
        r = ph.RDom([(0, 64)], "r")
        f = ph.Func("gu")
        f[()] = (0, 1, 0)
        s = [f[()][i] for i in range(3)]
        v = A[r.x]
        f[()] = (ph.select(v > 0, s[0] + 1, s[0]),               # count of positives
                 ph.select(v != 0, s[1] * v, s[1]),              # product of non-zeros
                 ph.select(v % 3 == 0, s[2], s[2] - v))           # minus the others
        if schedule:
            rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
            f.update().split(r.x, rxo, rxi, 8)
            f.update().rfactor(rxi, ph.Var("u")).compute_root().vectorize(ph.Var("u"))
        return f
    same_as_serial(build, [])


def test_float_sum_is_reassociated_within_tolerance():
    data = rng.random(1000, dtype=np.float32)

    def build(schedule):
        A = ph.Buffer(data, "fs_in")
        r = ph.RDom([(0, 1000)], "r")
        f = ph.Func("fs")
        f[()] = np.float32(0)
        f[()] += A[r.x]
        if schedule:
            rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
            f.update().split(r.x, rxo, rxi, 64)
            intm = f.update().rfactor(rxo, ph.Var("u"))
            intm.compute_root().update().parallel(ph.Var("u"))
        return f
    got = same_as_serial(build, [], rtol=1e-5)
    assert abs(float(got[0]) - float(data.astype(np.float64).sum())) < 1e-3


@pytest.mark.parametrize("factor", [3, 7, 64])
def test_non_dividing_splits_definitions(factor):
    data = rng.integers(-5, 5, (3, 23)).astype(np.int32)

    def build(schedule):
        A = ph.Buffer(data, "nd_in")
        r = ph.RDom([(0, 23), (0, 3)], "r")
        f = ph.Func("nd")
        f[()] = (0, ph.Int(32).min())
        f[()] = (f[()][0] + A[r.x, r.y] * r.x, ph.max(f[()][1], A[r.x, r.y] - r.y))
        if schedule:
            rxo, rxi, rf = ph.RVar("rxo"), ph.RVar("rxi"), ph.RVar("rf")
            f.update().split(r.x, rxo, rxi, factor)
            f.update().fuse(rxo, r.y, rf)
            f.update().rfactor(rf, ph.Var("u"))
        return f
    same_definitions(build, [])


@pytest.mark.parametrize("form", ["pair", "rdom"])
def test_preserved_given_as_one_pair_or_as_a_1d_rdom(form):
    data = rng.integers(-5, 5, 40).astype(np.int32)

    def build(schedule):
        A = ph.Buffer(data, "pg_in")
        r = ph.RDom([(0, 40)], "r")
        f = ph.Func("pg")
        f[()] = 0
        f[()] += A[r.x]
        if schedule:
            u = ph.Var("u")
            if form == "pair":
                rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
                f.update().split(r.x, rxo, rxi, 8)
                f.update().rfactor((rxo, u))
            else:
                f.update().rfactor([(r, u)])
        return f
    same_definitions(build, [])
