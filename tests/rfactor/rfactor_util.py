"""Run one algorithm with and without an rfactor schedule and compare.

`same_as_serial(build, sizes)` calls `build(schedule)` twice — once with
schedule=False (the serial algorithm) and once with True (the caller applies
its rfactor schedule) — and asserts that the JIT result of the scheduled one
equals the serial algorithm's result bit for bit (or within `rtol` for float
reductions the schedule reassociates), and that it equals the reference
evaluator run on the factored graph too (the intermediates and merges are
definitions the reference evaluates)."""
from __future__ import annotations

import numpy as np

import pyhalide as ph
from pyhalide.graph import collect_graph
from pyhalide.reference import evaluate


def realize(funcs, sizes) -> list:
    funcs = funcs if isinstance(funcs, (list, tuple)) else [funcs]
    out = ph.Pipeline(list(funcs)).realize(list(sizes))
    return [np.asarray(b) for b in (out if isinstance(out, (list, tuple)) else [out])]


def reference(funcs, sizes) -> list:
    funcs = funcs if isinstance(funcs, (list, tuple)) else [funcs]
    graph = collect_graph([f.function() for f in funcs])
    inputs = {n: graph.input_array(n) for n in graph.image_names()}
    params = {n: graph.param_value(n) for n in graph.param_names()}
    return evaluate(graph.env, [f.name() for f in funcs], [(0, s) for s in sizes],
                    inputs, params)


def _compare(got, want, rtol, what):
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (what, g.dtype, w.dtype, g.shape, w.shape)
        if rtol is None:
            np.testing.assert_array_equal(g, w, err_msg=what)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, err_msg=what)


def same_as_serial(build, sizes, rtol=None, reference_of_factored=True,
                   jit_serial=False) -> list:
    """Returns the scheduled results. The serial algorithm's results come from
    the reference evaluator (the schedule-free semantics every schedule must
    reproduce), and also from the JIT when `jit_serial`. The reference
    evaluator of the factored graph evaluates every intermediate over its
    whole region, which can be slow for large intermediates:
    `reference_of_factored=False` skips it."""
    serial = build(False)
    scheduled = build(True)
    want = reference(serial, sizes)
    got = realize(scheduled, sizes)
    _compare(got, want, rtol, "rfactor schedule vs the serial algorithm")
    if jit_serial:
        _compare(realize(serial, sizes), want, None, "serial JIT vs reference")
    if reference_of_factored:
        _compare(got, reference(scheduled, sizes), rtol, "rfactor JIT vs reference")
    return got


def same_definitions(build, sizes) -> list:
    """Like same_as_serial, without the JIT: the reference evaluator runs the
    factored graph (intermediates, merges) and the serial one, and they must
    agree bit for bit. Checks what rfactor wrote, independently of lowering,
    at the cost of an evaluation instead of a compilation."""
    want = reference(build(False), sizes)
    got = reference(build(True), sizes)
    _compare(got, want, None, "factored definitions vs the serial algorithm")
    return got


def tiled_tuple_twice(schedule, keep_second=False, tile_update=True):
    """Halide's rfactor.cpp tuple cases: `(g[0] + f[0] + 3, min(g[1], f[1]))`
    (or g[1] left unchanged) over a 2-D RDom, the update tiled over its pure
    Vars (tile_update), rfactored over r.y, its intermediate tiled, split and
    rfactored again inside it, parallel."""
    x, y = ph.Var("x"), ph.Var("y")
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = (x + y, x - y)
    f.compute_root()
    r = ph.RDom([(10, 20), (30, 40)], "r")
    g[x, y] = (1, 3)
    second = g[x, y][1] if keep_second else ph.min(g[x, y][1], f[r.x, r.y][1])
    g[x, y] = (g[x, y][0] + f[r.x, r.y][0] + 3, second)
    if schedule:
        g.reorder(y, x)
        xi, yi = ph.Var("xi"), ph.Var("yi")
        if tile_update:
            g.update(0).tile(x, y, xi, yi, 4, 4)
        u, v = ph.Var("u"), ph.Var("v")
        intm1 = g.update(0).rfactor(r.y, u)
        rxi, rxo = ph.RVar("rxi"), ph.RVar("rxo")
        intm1.tile(x, y, xi, yi, 4, 4)
        intm1.update(0).split(r.x, rxo, rxi, 2)
        intm2 = intm1.update(0).rfactor(rxo, v)
        intm2.compute_at(intm1, rxo)
        intm1.update(0).parallel(u, 2)
        intm1.compute_root()
    return g
