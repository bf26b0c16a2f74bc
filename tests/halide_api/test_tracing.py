"""Halide's tracing (f.trace_stores(), f.trace_loads()) printed by the compiled
code under the user's schedule, in Halide 21's format: the expected lines
are built here in Python from the schedule's loop order (the same lines
Halide 21 prints for these pipelines), and every result is compared with
NumPy and the reference evaluator."""
import numpy as np

import pyhalide as ph
from tests.core.jitcheck import check


def _lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_trace_stores_serial_order(capsys):
    x, y = ph.vars("x y")
    g = ph.Func("gradient_t")
    g[x, y] = x + y
    g.trace_stores()
    got = np.asarray(g.realize([3, 2]))
    np.testing.assert_array_equal(got, np.add.outer(np.arange(2), np.arange(3)))
    want = ["Begin pipeline gradient_t.0()",
            'Tag gradient_t.0() tag = "func_type_and_dim: 1 0 32 1 2 0 3 0 2"']
    want += [f"Store gradient_t.0({i}, {j}) = {i + j}" for j in range(2) for i in range(3)]
    assert _lines(capsys) == want + ["End pipeline gradient_t.0()"]
    check(g, [3, 2])                         # the definition is as written again
    # (Pipeline.realize traces as Halide's does; the reference evaluator traces nothing)
    assert _lines(capsys) == want + ["End pipeline gradient_t.0()"]


def test_trace_vectorized_and_reordered(capsys):
    x, y, xo, xi = ph.vars("x y xo xi")
    g = ph.Func("gradient_v")
    g[x, y] = x * 10 + y
    g.trace_stores()
    g.split(x, xo, xi, 4).vectorize(xi).reorder(y, xo)     # y innermost of the serial loops
    got = np.asarray(g.realize([8, 2]))
    np.testing.assert_array_equal(got, np.arange(8)[None, :] * 10 + np.arange(2)[:, None])
    lines = _lines(capsys)[2:-1]
    want = []
    for o in range(2):
        for j in range(2):
            xs = [4 * o + k for k in range(4)]
            want.append(f"Store gradient_v.0(<{', '.join(map(str, xs))}>, <{j}, {j}, {j}, {j}>) "
                        f"= <{', '.join(str(10 * v + j) for v in xs)}>")
    assert lines == want


def test_producer_consumer_tags_floats_and_loads(capsys):
    x, y = ph.vars("x y")
    p, c = ph.Func("producer_t"), ph.Func("consumer_t")
    p[x, y] = ph.sqrt(ph.f32(x * y))
    c[x, y] = p[x, y] + p[x + 1, y]
    p.compute_root().trace_stores().trace_loads()
    c.trace_stores()
    got = np.asarray(c.realize([2, 2]))
    pv = np.sqrt(np.multiply.outer(np.arange(2), np.arange(3)).astype(np.float32))
    want_c = pv[:, :2] + pv[:, 1:]
    np.testing.assert_array_equal(got, want_c)
    lines = _lines(capsys)
    assert lines[:3] == ["Begin pipeline consumer_t.0()",
                         'Tag producer_t.0() tag = "func_type_and_dim: 1 2 32 1 2 0 3 0 2"',
                         'Tag consumer_t.0() tag = "func_type_and_dim: 1 2 32 1 2 0 2 0 2"']
    stores = [f"Store producer_t.0({i}, {j}) = {pv[j, i]:f}" for j in range(2) for i in range(3)]
    assert lines[3:9] == stores
    rest = []
    for j in range(2):
        for i in range(2):
            rest += [f"Load producer_t.0({i}, {j}) = {pv[j, i]:f}",
                     f"Load producer_t.0({i + 1}, {j}) = {pv[j, i + 1]:f}",
                     f"Store consumer_t.0({i}, {j}) = {want_c[j, i]:f}"]
    assert lines[9:-1] == rest and lines[-1] == "End pipeline consumer_t.0()"


def test_inlined_traced_func_has_no_events_and_updates_are_traced(capsys):
    x = ph.Var("x")
    r = ph.RDom([(0, 3)], "r")
    p, f = ph.Func("p_inl"), ph.Func("f_upd")
    p[x] = x * 2
    p.trace_stores()                         # inlined: no stores of its own (as Halide)
    f[x] = p[x]
    f[r.x] = f[r.x] + 1
    f.trace_stores()
    got = np.asarray(f.realize([4]))
    np.testing.assert_array_equal(got, [1, 3, 5, 6])
    assert _lines(capsys) == (
        ["Begin pipeline f_upd.0()", 'Tag f_upd.0() tag = "func_type_and_dim: 1 0 32 1 1 0 4"']
        + [f"Store f_upd.0({i}) = {2 * i}" for i in range(4)]
        + [f"Store f_upd.0({i}) = {2 * i + 1}" for i in range(3)] + ["End pipeline f_upd.0()"])
