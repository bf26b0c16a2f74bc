"""Helpers of the schedule tests: realize a pipeline, compare it bit-exactly
with the schedule-free reference evaluator, with NumPy, and across thread
counts; small pipelines to schedule."""
from __future__ import annotations

import numpy as np

import pyhalide as ph
from pyhalide.graph import collect_graph
from pyhalide.ir.config import override
from pyhalide.reference import evaluate

RNG = np.random.default_rng(20240611)
PAD = 16


def as_list(outputs):
    return list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]


def realize(outputs, sizes, threads=None) -> list:
    outputs = as_list(outputs)
    if threads is None:
        res = ph.Pipeline(outputs).realize(list(sizes))
    else:
        with override(num_threads=threads):
            res = ph.Pipeline(outputs).realize(list(sizes))
    res = res if isinstance(res, (list, tuple)) else [res]
    return [np.array(b) for b in res]


def reference(outputs, sizes) -> list:
    outputs = as_list(outputs)
    graph = collect_graph([f.function() for f in outputs])
    inputs = {n: graph.input_array(n) for n in graph.image_names()}
    params = {n: graph.param_value(n) for n in graph.param_names()}
    return evaluate(graph.env, [f.name() for f in outputs], [(0, s) for s in sizes],
                    inputs, params)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def check(outputs, sizes, expected=None, float_rtol=None) -> list:
    """Realize; assert equality with the reference evaluator (bit-exact, or
    within float_rtol) and with `expected` arrays. Returns the results."""
    got = realize(outputs, sizes)
    ref = reference(outputs, sizes)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype and g.shape == r.shape, (g.dtype, r.dtype, g.shape, r.shape)
        if float_rtol is None:
            np.testing.assert_array_equal(g, r)
        else:
            np.testing.assert_allclose(g, r, rtol=float_rtol)
    if expected is not None:
        for g, e in zip(got, as_list(expected)):
            np.testing.assert_array_equal(g, np.asarray(e).astype(g.dtype))
    return got


# -- pipelines -----------------------------------------------------------------------------
class Blur1D:
    """out[x] = (b[x] + 2 b[x+1] + b[x+2]) with b[x] = in[x-1] + in[x] + in[x+1]."""

    def __init__(self, n=64, dtype=np.int32):
        self.a = RNG.integers(-1000, 1000, size=n + 2 * PAD).astype(dtype)
        self.inp = ph.Buffer(self.a)
        self.x = x = ph.Var("x")
        self.b, self.out = ph.Func("b1"), ph.Func("o1")
        self.b[x] = self.inp[x + PAD - 1] + self.inp[x + PAD] + self.inp[x + PAD + 1]
        self.out[x] = self.b[x] + 2 * self.b[x + 1] + self.b[x + 2]

    def expected(self, n):
        a = self.a.astype(np.int64)
        b = a[PAD - 1:-PAD - 1] + a[PAD:-PAD] + a[PAD + 1:-PAD + 1 or None]
        return (b[:n] + 2 * b[1:n + 1] + b[2:n + 2]).astype(self.a.dtype)


class Blur2D:
    """The two-stage blur of the Halide paper over a padded int32 image."""

    def __init__(self, w=40, h=30, dtype=np.int32):
        self.a = RNG.integers(-1000, 1000, size=(h + 2 * PAD, w + 2 * PAD)).astype(dtype)
        self.inp = ph.Buffer(self.a)
        self.x, self.y = x, y = ph.Var("x"), ph.Var("y")
        self.bx, self.by = ph.Func("bx"), ph.Func("by")
        i = self.inp
        self.bx[x, y] = i[x + PAD - 1, y + PAD] + i[x + PAD, y + PAD] + i[x + PAD + 1, y + PAD]
        self.by[x, y] = self.bx[x, y - 1] + self.bx[x, y] + self.bx[x, y + 1]
        self.out = self.by

    def expected(self, w, h):
        a = self.a.astype(np.int64)
        bx = a[:, PAD - 1:PAD - 1 + w] + a[:, PAD:PAD + w] + a[:, PAD + 1:PAD + 1 + w]
        by = bx[PAD - 1:PAD - 1 + h] + bx[PAD:PAD + h] + bx[PAD + 1:PAD + 1 + h]
        return by.astype(self.a.dtype)


class FloatBlur2D(Blur2D):
    def __init__(self, w=40, h=30):
        super().__init__(w, h)
        self.a = RNG.random((h + 2 * PAD, w + 2 * PAD)).astype(np.float32)
        self.inp = ph.Buffer(self.a)
        x, y, i = self.x, self.y, self.inp
        self.bx, self.by = ph.Func("fbx"), ph.Func("fby")
        self.bx[x, y] = (i[x + PAD - 1, y + PAD] + i[x + PAD, y + PAD] * 1.5
                         + i[x + PAD + 1, y + PAD]) / 3.0
        self.by[x, y] = (self.bx[x, y - 1] * 0.25 + self.bx[x, y] * 0.5
                         + self.bx[x, y + 1] * 0.25)
        self.out = self.by
