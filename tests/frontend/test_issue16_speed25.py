"""Session 25 (issue 16 and the numpy-benchmarks kernels): np.repeat's read
`x[j // r]` as a loop over the quotient around a loop of r stores
(lowering/split_div_loops.py), compared with NumPy for repeat counts on both
sides of the split's threshold, sources whose length is not a multiple of
anything, empty sources and results, repeats along each axis, into a slice
(numpy-benchmarks' repeating) and in an expression."""
from __future__ import annotations

import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.split_div_loops import MIN_D, split_div_loops

from .test_repeat_reads import repeating


@ph.pipeline
def repeats(x, m, r):
    return np.repeat(x, r), np.repeat(m, r, axis=1), np.repeat(m, r, axis=0), \
        np.repeat(x * 2.0 + 1.0, r) - 1.0, np.repeat(m[:, ::2], r, axis=1)


def test_repeat_counts():
    rng = np.random.default_rng(25)
    x, m = rng.standard_normal(37), rng.standard_normal((3, 37))
    for r in (0, 1, 2, MIN_D - 1, MIN_D, MIN_D + 1, 20, 67):
        got, want = repeats(x, m, r), repeats.py_func(x, m, r)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        for n in (0, 1, 37):
            np.testing.assert_array_equal(repeating(x[:n].copy(), r),
                                          repeating.py_func(x[:n].copy(), r))


def test_split_shape():
    """The pass on a hand-built loop: a read at min(v, K) / max(r, 1) becomes
    a read at min(q, K / d) in the inner loop; a loop that leaves early, a
    constant divisor below MIN_D and a vectorized loop stay as they are."""
    v = ir.Variable(ir.INDEX, "v")
    r = ir.Variable(ir.INDEX, "r")
    k = ir.Variable(ir.INDEX, "k")
    d = ir.Max(r, ir.index(1))
    idx = ir.Div(ir.Min(v, k), d)
    body = ir.Store("out", ir.Load(ir.Float(64), "x", idx), v)
    loop = ir.For("v", ir.index(0), ir.Variable(ir.INDEX, "e"), ir.ForKind.SERIAL, body)
    text = ir.to_str(split_div_loops(loop))
    assert "v.dv_q" in text and "x[min(v.dv_q, (k / v.dv_d))]" in text
    for d_small in (ir.index(MIN_D - 1),):
        small = ir.For("v", ir.index(0), ir.index(100), ir.ForKind.SERIAL,
                       ir.Store("out", ir.Load(ir.Float(64), "x", ir.Div(v, d_small)), v))
        assert split_div_loops(small) is small
    exits = ir.For("v", ir.index(0), ir.index(100), ir.ForKind.SERIAL,
                   ir.block(body, ir.LoopExit("v")))
    assert split_div_loops(exits) is exits
    par = ir.For("v", ir.index(0), ir.index(100), ir.ForKind.PARALLEL, body)
    assert split_div_loops(par) is par

