"""Halide's f.trace_realizations(): Begin/End realization, Produce/End
produce, Consume/End consume with their boxes, reported by the compiled code
where the schedule realizes each Func. The expected lines are Halide 21's
output for the same programs (halide wheel 21.0.0); every result is compared
with the reference evaluator. Known difference, not tested: a sliding window
(store_root + compute_at), where Halide rewinds the loop by one warm-up
iteration and so reports the first rows one at a time."""
import numpy as np

import pyhalide as ph
from tests.core.jitcheck import check


def _lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_compute_at_compute_root_and_output(capsys):
    x, y = ph.vars("x y")
    f, g, h = ph.Func("f_tr1"), ph.Func("g_tr1"), ph.Func("h_tr1")
    f[x, y] = x + y
    g[x, y] = f[x, y] * 2 + f[x + 1, y]
    h[x, y] = g[x, y] + 1
    f.compute_at(g, y)
    g.compute_root()
    for fn in (f, g, h):
        assert fn.trace_realizations() is fn
    got = np.asarray(h.realize([3, 2]))
    ys, xs = np.mgrid[0:2, 0:3]
    np.testing.assert_array_equal(got, 2 * (xs + ys) + xs + 1 + ys + 1)
    rows = []
    for j in range(2):
        box = f"0, 4, {j}, 1"
        rows += [f"Begin realization f_tr1.0({box})", f"Produce f_tr1.0({box})",
                 f"End produce f_tr1.0({box})", f"Consume f_tr1.0({box})",
                 f"End consume f_tr1.0({box})", f"End realization f_tr1.0({box})"]
    assert _lines(capsys) == [
        "Begin pipeline h_tr1.0()",
        'Tag f_tr1.0() tag = "func_type_and_dim: 1 0 32 1 2 0 4 0 2"',
        'Tag g_tr1.0() tag = "func_type_and_dim: 1 0 32 1 2 0 3 0 2"',
        'Tag h_tr1.0() tag = "func_type_and_dim: 1 0 32 1 2 0 3 0 2"',
        "Begin realization h_tr1.0(0, 3, 0, 2)",
        "Begin realization g_tr1.0(0, 3, 0, 2)",
        "Produce g_tr1.0(0, 3, 0, 2)"] + rows + [
        "End produce g_tr1.0(0, 3, 0, 2)",
        "Consume g_tr1.0(0, 3, 0, 2)",
        "Produce h_tr1.0(0, 3, 0, 2)",
        "End produce h_tr1.0(0, 3, 0, 2)",
        "End consume g_tr1.0(0, 3, 0, 2)",
        "End realization g_tr1.0(0, 3, 0, 2)",
        "End realization h_tr1.0(0, 3, 0, 2)",
        "End pipeline h_tr1.0()"]
    check(h, [3, 2])                          # (its realize traces again: one pipeline)
    assert _lines(capsys).count("Begin pipeline h_tr1.0()") == 1


def test_with_stores_per_tile_and_an_update(capsys):
    x, y, xo, xi = ph.vars("x y xo xi")
    f, g = ph.Func("f_tr2"), ph.Func("g_tr2")
    f[x, y] = x * 2 + y
    g[x, y] = f[x, y] + f[x + 1, y]
    g.split(x, xo, xi, 2)
    f.compute_at(g, xo)
    f.trace_realizations().trace_stores()
    g.trace_realizations()
    np.testing.assert_array_equal(np.asarray(g.realize([4, 1])), 4 * np.arange(4)[None] + 2)
    tiles = []
    for lo in (0, 2):
        box = f"{lo}, 3, 0, 1"
        tiles += [f"Begin realization f_tr2.0({box})", f"Produce f_tr2.0({box})"]
        tiles += [f"Store f_tr2.0({i}, 0) = {2 * i}" for i in range(lo, lo + 3)]
        tiles += [f"End produce f_tr2.0({box})", f"Consume f_tr2.0({box})",
                  f"End consume f_tr2.0({box})", f"End realization f_tr2.0({box})"]
    assert _lines(capsys) == [
        "Begin pipeline g_tr2.0()",
        'Tag f_tr2.0() tag = "func_type_and_dim: 1 0 32 1 2 0 5 0 1"',
        'Tag g_tr2.0() tag = "func_type_and_dim: 1 0 32 1 2 0 4 0 1"',
        "Begin realization g_tr2.0(0, 4, 0, 1)",
        "Produce g_tr2.0(0, 4, 0, 1)"] + tiles + [
        "End produce g_tr2.0(0, 4, 0, 1)",
        "End realization g_tr2.0(0, 4, 0, 1)",
        "End pipeline g_tr2.0()"]

    r = ph.RDom([(0, 3)])
    k = ph.Func("k_tr2")
    k[x] = x
    k[x] += r.x
    k.trace_realizations()
    check(k, [2], [np.arange(2) + 3])
    capsys.readouterr()
    k.realize([2])
    assert _lines(capsys) == [
        "Begin pipeline k_tr2.0()", 'Tag k_tr2.0() tag = "func_type_and_dim: 1 0 32 1 1 0 2"',
        "Begin realization k_tr2.0(0, 2)", "Produce k_tr2.0(0, 2)", "End produce k_tr2.0(0, 2)",
        "End realization k_tr2.0(0, 2)", "End pipeline k_tr2.0()"]


def test_pipeline_of_two_outputs_and_a_tuple(capsys):
    x = ph.Var("x")
    t, u, v = ph.Func("t_tr3"), ph.Func("u_tr3"), ph.Func("v_tr3")
    t[x] = (x, x * 2)
    u[x] = t[x][0] + t[x][1]
    v[x] = t[x][1]
    t.compute_root().trace_realizations()
    u.trace_realizations()
    v.trace_realizations()
    a, b = ph.Pipeline([u, v]).realize([3])
    np.testing.assert_array_equal(np.asarray(a), 3 * np.arange(3))
    np.testing.assert_array_equal(np.asarray(b), 2 * np.arange(3))
    assert _lines(capsys) == [
        "Begin pipeline u_tr3.0()",
        'Tag t_tr3.0() tag = "func_type_and_dim: 2 0 32 1 0 32 1 1 0 3"',
        'Tag u_tr3.0() tag = "func_type_and_dim: 1 0 32 1 1 0 3"',
        'Tag v_tr3.0() tag = "func_type_and_dim: 1 0 32 1 1 0 3"',
        "Begin realization v_tr3.0(0, 3)", "Begin realization u_tr3.0(0, 3)",
        "Begin realization t_tr3.0(0, 3)", "Produce t_tr3.0(0, 3)", "End produce t_tr3.0(0, 3)",
        "Consume t_tr3.0(0, 3)", "Produce u_tr3.0(0, 3)", "End produce u_tr3.0(0, 3)",
        "Produce v_tr3.0(0, 3)", "End produce v_tr3.0(0, 3)", "End consume t_tr3.0(0, 3)",
        "End realization t_tr3.0(0, 3)", "End realization u_tr3.0(0, 3)",
        "End realization v_tr3.0(0, 3)", "End pipeline u_tr3.0()"]
