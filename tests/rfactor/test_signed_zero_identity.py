"""A float sum's partial results start from -0.0, its identity in IEEE arithmetic
(+0.0 + -0.0 is +0.0): a sum of negative zeros is -0.0 under rfactor, auto, Dask
and parallel scans, as in Python."""
import numpy as np
import pytest

import pyhalide as ph


def neg_zero_sum(a):
    s = -0.0
    for i in range(len(a)):
        s += a[i]
    return s


def neg_zero_running_sum(a):
    out = np.zeros_like(a)
    acc = -0.0
    for i in range(len(a)):
        acc += a[i]
        out[i] = acc
    return out


def _rfactor_chunks(p):
    s = p.funcs["s"]
    r = p.vars["i"]
    ro, ri = ph.RVar("ro"), ph.RVar("ri")
    u = ph.Var("u")
    s.update(0).split(r, ro, ri, 1024)
    s.update(0).rfactor(ro, u).compute_root().parallel(u)


@pytest.mark.parametrize("schedule", ["auto", _rfactor_chunks], ids=["auto", "rfactor"])
def test_sum_of_negative_zeros_is_negative_zero(schedule):
    p = ph.pipeline(neg_zero_sum, schedule=schedule)
    a = np.full(1 << 16, -0.0)
    got = p(a)
    assert got == 0.0 and np.signbit(got), got
    a[77] = 0.0
    assert not np.signbit(p(a))


def test_sum_identity_is_negative_zero():
    r = ph.RDom([(0, 8)])
    x = ph.Var("x")
    g = ph.Func("g")
    g[x] = ph.f64(x)
    f = ph.Func("f")
    f[()] = ph.f64(0)
    f[()] = f[()] + g[r.x]
    op = ph.prove_associativity(f.update(0))
    assert op.associative and str(op.identities[0]) in ("-0.0", "-0.0f", "-0.000000")


def test_running_sum_of_negative_zeros_under_parallel_scan():
    def scan(p):
        p.funcs["out"].update(0).parallel_scan(p.vars["out", "i"], 256)
    p = ph.pipeline(neg_zero_running_sum, schedule=scan)
    a = np.full(4096, -0.0)
    got = p(a)
    assert np.all(got == 0.0) and np.all(np.signbit(got))


def test_dask_sum_of_negative_zeros():
    da = pytest.importorskip("dask.array")
    p = ph.pipeline(neg_zero_sum)
    a = np.full(1000, -0.0)
    got = p.dask(da.from_array(a, chunks=100), float_reassociation=True).compute(
        scheduler="synchronous")
    assert got == 0.0 and np.signbit(got), got
