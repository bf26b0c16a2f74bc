"""fuse(inner, outer, fused) accepts every pair Halide accepts: adjacent or
not, in either order, a pure Var with an RVar (into an RVar). As in Halide,
outer first moves directly outside inner; that move is checked as reorder()
checks it, and a parallel fused loop must write distinct locations."""
import numpy as np
import pytest

import pyhalide as ph
from tests.schedules.schedule_check import check

x, y, z = ph.Var("x"), ph.Var("y"), ph.Var("z")


def test_halide_rfactor_reorder_fuse_case():
    # test/correctness/rfactor.cpp, reorder_fuse_wrapper_rfactor_test
    f, g = ph.Func("f"), ph.Func("g")
    r = ph.RDom([(5, 10), (5, 10), (5, 10)], "r")
    f[x, y, z] = x + y + z
    g[x, y, z] = 1
    g[r.x, r.y, r.z] += f[r.x, r.y, r.z]
    g.update(0).reorder(r.y, r.x)
    rf = ph.RVar("rf")
    g.update(0).fuse(r.x, r.y, rf)
    g.update(0).reorder(r.z, rf)
    u = ph.Var("u")
    intm = g.update(0).rfactor(r.z, u)
    intm.update(0).split(rf, ph.RVar("rfi"), ph.RVar("rfo"), 2)
    intm.compute_at(g, r.z)
    f.compute_root()
    zz, yy, xx = np.meshgrid(*(np.arange(20),) * 3, indexing="ij")
    inside = (5 <= xx) & (xx <= 14) & (5 <= yy) & (yy <= 14) & (5 <= zz) & (zz <= 14)
    check(g, [20, 20, 20], expected=np.where(inside, xx + yy + zz + 1, 1))


@pytest.mark.parametrize("inner,outer", [("x", "z"), ("z", "x"), ("y", "x"), ("x", "y")])
def test_pure_loops_fuse_adjacent_or_not_in_either_order(inner, outer):
    f = ph.Func("p3")
    f[x, y, z] = x + 10 * y + 100 * z
    names = {"x": x, "y": y, "z": z}
    f.fuse(names[inner], names[outer], ph.Var("t")).parallel(ph.Var("t"))
    check(f, [3, 4, 5])


def test_split_inner_fuses_with_a_later_loop():
    f = ph.Func("p2")
    f[x, y] = x * 7 + y
    f.split(x, ph.Var("xo"), ph.Var("xi"), 3).fuse(ph.Var("xi"), y, ph.Var("t"))
    f.vectorize(ph.Var("t"), 4)
    check(f, [7, 5])


@pytest.mark.parametrize("inner,outer", [("x", "ry"), ("rx", "x"), ("x", "rx")])
def test_pure_var_and_rvar_fuse_into_an_rvar(inner, outer):
    r = ph.RDom([(0, 4), (0, 3)], "rm")
    f = ph.Func("mixed")
    f[x] = 0
    f[x] = f[x] * 3 + x * r.x + r.y          # not associative: order matters
    names = {"rx": r.x, "ry": r.y, "x": x}
    # loops (innermost first): rm$x, rm$y, x
    if (inner, outer) == ("x", "rx"):
        with pytest.raises(ph.CompileError, match=r"moves rm\$x directly outside x"):
            f.update(0).fuse(x, r.x, ph.RVar("fu"))        # rm$x would move outside rm$y
        return
    f.update(0).fuse(names[inner], names[outer], ph.RVar("fu"))
    check(f, [5])
    with pytest.raises(ph.CompileError, match=r"cannot parallelize fu: .*same location"):
        f.update(0).parallel(ph.RVar("fu"))


def test_fuse_that_reorders_rvars_of_a_non_associative_update_is_refused():
    # Halide 21 fuses r.x outside r.y here and silently computes 946 instead
    # of 502; later Halide (and pyhalide) refuse the implied reorder
    r = ph.RDom([(0, 3), (0, 3)], "rn")
    f = ph.Func("order")
    f[x] = 0
    f[x] = f[x] * 2 + r.x + 3 * r.y
    with pytest.raises(ph.CompileError,
                       match=r"(?s)fuse\(rn\$y, rn\$x\) moves rn\$x directly outside rn\$y.*"
                             r"changes the order of the reduction.*test_fuse_order\.py:"):
        f.update(0).fuse(r.y, r.x, ph.RVar("fu"))
    f.update(0).fuse(r.x, r.y, ph.RVar("fu"))
    check(f, [1], expected=[502])


def test_parallel_fused_rvars_need_every_rvar_on_the_left():
    r = ph.RDom([(0, 4), (0, 5)], "rp")
    f = ph.Func("race")
    f[x] = 0
    f[r.x] += r.y + 1
    f.update(0).fuse(r.x, r.y, ph.RVar("fu"))
    with pytest.raises(ph.CompileError, match=r"cannot parallelize fu: .*same location of race"):
        f.update(0).parallel(ph.RVar("fu"))
    g = ph.Func("norace")
    g[x, y] = 0
    g[r.x, r.y] += r.y * 10 + r.x
    g.update(0).fuse(r.y, r.x, ph.RVar("fu")).parallel(ph.RVar("fu"))
    check(g, [4, 5])


def test_fused_var_from_an_rvar_is_refused_as_in_halide():
    r = ph.RDom([(0, 3), (0, 3)], "rv")
    f = ph.Func("named")
    f[x] = 0
    f[x] += x * r.x + r.y
    with pytest.raises(ph.CompileError, match=r"fuse cannot make the Var t from the RVar rv\$x"):
        f.update(0).fuse(r.x, r.y, ph.Var("t"))
    with pytest.raises(ph.CompileError, match=r"two different loops"):
        f.update(0).fuse(r.x, r.x, ph.RVar("t"))
