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
