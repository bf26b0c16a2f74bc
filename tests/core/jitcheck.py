"""Realize a pipeline with the JIT and compare it with the schedule-free
reference evaluator (and, when given, with an expected NumPy result)."""
from __future__ import annotations

import numpy as np

import pyhalide as ph
from pyhalide.graph import collect_graph
from pyhalide.reference import evaluate


def reference(outputs, sizes):
    graph = collect_graph([f.function() for f in outputs])
    inputs = {n: graph.input_array(n) for n in graph.image_names()}
    params = {n: graph.param_value(n) for n in graph.param_names()}
    return evaluate(graph.env, [f.name() for f in outputs], [(0, s) for s in sizes],
                    inputs, params)


def _flat(result):
    if isinstance(result, (list, tuple)):
        return [np.asarray(b) for b in result]
    return [np.asarray(result)]


def check(outputs, sizes, expected=None, exact=True, rtol=1e-5):
    """Realize `outputs` (a Func or list of Funcs) over `sizes`; assert that
    the JIT equals the reference (bit-exact unless exact=False) and
    `expected` (a list of arrays, one per output element). Returns the JIT
    arrays."""
    if not isinstance(outputs, (list, tuple)):
        outputs = [outputs]
    got = _flat(ph.Pipeline(outputs).realize(list(sizes)))
    ref = reference(outputs, sizes)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype and g.shape == r.shape, (g.dtype, r.dtype, g.shape, r.shape)
        if exact:
            np.testing.assert_array_equal(g, r)
        else:
            np.testing.assert_allclose(g, r, rtol=rtol)
    if expected is not None:
        for g, e in zip(got, expected):
            e = np.asarray(e)
            if exact:
                np.testing.assert_array_equal(g, e.astype(g.dtype))
            else:
                np.testing.assert_allclose(g, e, rtol=rtol)
    return got
