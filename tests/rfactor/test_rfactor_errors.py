"""rfactor's refusals: each is a CompileError naming the Func, the update
and the cause; and the reorder of RVars that only a proof allows."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir

x = ph.Var("x")


def _sum(name="es", n=40):
    A = ph.Buffer(np.arange(n, dtype=np.int32), name + "_in")
    r = ph.RDom([(0, n), (0, 3)], "r")
    f = ph.Func(name)
    f[x] = 0
    f[x] += A[r.x] + r.y * x
    return f, r


def test_pure_definition():
    f, r = _sum("ep")
    with pytest.raises(ph.CompileError, match=r"Func ep: cannot rfactor: it is the pure definition"):
        ph.Stage(f, 0).rfactor([])
    assert not ph.prove_associativity(ph.Stage(f, 0)).associative


def test_not_associative_names_the_value():
    A = ph.Buffer(np.arange(10, dtype=np.int32), "ena_in")
    r = ph.RDom([(0, 10)], "r")
    f = ph.Func("ena")
    f[()] = (0, 1)
    f[()] = (f[()][0] + A[r.x], f[()][1] * 2 + A[r.x])
    with pytest.raises(ph.CompileError) as e:
        f.update().rfactor([])
    msg = str(e.value)
    assert "Func ena.update(0): cannot rfactor: the update is not provably associative" in msg
    assert "value 1" in msg and "matches no associative operator" in msg


def test_rvar_not_a_loop_of_the_stage():
    f, r = _sum("enl")
    rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
    f.update().split(r.x, rxo, rxi, 8)
    with pytest.raises(ph.CompileError, match=r"Func enl.update\(0\): cannot rfactor: r\$x is not "
                                              r"a loop of this stage.*rxi, rxo, r\$y, x"):
        f.update().rfactor(r.x, ph.Var("u"))


def test_pure_var_is_not_an_rvar():
    f, r = _sum("enp")
    with pytest.raises(ph.CompileError, match="x is a pure Var of the stage, not an RVar"):
        f.update().rfactor(x, ph.Var("u"))


@pytest.mark.parametrize("preserved", [
    lambda r: [(r.y, x)],                                   # a loop of the stage
    lambda r: [(r.x, ph.Var("u")), (r.y, ph.Var("u"))],     # twice
])
def test_var_already_used(preserved):
    f, r = _sum("enu")
    with pytest.raises(ph.CompileError, match="already used"):
        f.update().rfactor(preserved(r))


def test_rvar_listed_twice():
    f, r = _sum("ent")
    with pytest.raises(ph.CompileError, match="listed twice"):
        f.update().rfactor([(r.x, ph.Var("u")), (r.x, ph.Var("v"))])


def test_var_fused_into_rvar():
    # the scheduling API refuses such a fuse; a schedule built otherwise is
    # refused by rfactor
    f, r = _sum("enf")
    d = f.update().definition()
    d.schedule.splits.append(ir.Split("fuse", "t", "r$y", "x"))
    d.schedule.dims[:] = [dim for dim in d.schedule.dims if dim.var not in ("r$y", "x")] + \
        [ir.Dim("t")]
    with pytest.raises(ph.CompileError, match="fused a Var into an RVar"):
        f.update().rfactor(r.x, ph.Var("u"))


def test_no_two_sided_identity():
    # a left identity only: rfactor seeds the slices (tests/rfactor/test_one_sided_identity.py)
    # unless a slice can be empty, as the bucket of a scatter no point writes
    A = ph.Buffer(np.arange(10, dtype=np.int32) % 3, "eni_in")
    r = ph.RDom([(0, 10)], "r")
    f = ph.Func("eni")
    f[x] = 0
    f[A[r.x]] = r.x * 2                                     # the last write wins
    op = ph.prove_associativity(f.update())
    assert op.associative and op.identity_side == "left" and not op.commutative
    with pytest.raises(ph.CompileError, match="only a left identity"):
        f.update().rfactor([])


def test_reorder_needs_associative_and_commutative():
    f, r = _sum("enr")
    f.update().reorder(r.y, r.x)                            # a sum: allowed
    A = ph.Buffer(np.arange(10, dtype=np.int32), "eno_in")
    r2 = ph.RDom([(0, 5), (0, 2)], "r")
    g = ph.Func("eno")
    g[()] = (ph.Int(32).max(), 0)
    g[()] = (ph.min(g[()][0], A[r2.x + 5 * r2.y]),
             ph.select(A[r2.x + 5 * r2.y] < g[()][0], r2.x, g[()][1]))
    with pytest.raises(ph.CompileError, match="not commutative"):
        g.update().reorder(r2.y, r2.x)                      # argmin: the index would change


def test_rfactor_names_the_stage_once():
    x, u = ph.Var("x"), ph.Var("u")
    r = ph.RDom([(0, 10)], "r")
    inp = ph.Buffer(np.arange(10, dtype=np.int32), "inp")
    f = ph.Func("rf_once")
    f[x] = 0
    f[x] = f[x] * 3 + inp[r.x] * f[x] - 7
    with pytest.raises(ph.CompileError) as e:
        f.update(0).rfactor([(r.x, u)])
    msg = str(e.value)
    assert msg.startswith("Func rf_once.update(0): cannot rfactor: the update is not provably "
                          "associative: the value ")
    assert msg.count("Func rf_once.update(0)") == 1
