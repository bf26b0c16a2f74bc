"""Halide's lesson 24 schedules: async_(), store_at(g, Var.outermost()),
hoist_storage, ring_buffer and fold_storage as hints pyhalide accepts with
the same results (compared with NumPy and the reference evaluator), and
trace_realizations refused by name."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def test_async_producer_with_hoisted_ring_buffer():
    x, y, c, xo, xi = ph.vars("x y c xo xi")
    p, q = ph.Func("producer_a"), ph.Func("consumer_a")
    p[x, y, c] = (x + y) * (c + 1)
    q[x, y, c] = p[x, y, c] + p[x + 1, y, c]
    q.split(x, xo, xi, 4)
    p.async_().compute_at(q, xo).hoist_storage(q, ph.Var.outermost()).ring_buffer(2)
    X, Y, C = np.meshgrid(np.arange(8), np.arange(5), np.arange(3), indexing="ij")
    want = ((X + Y) * (C + 1) + (X + 1 + Y) * (C + 1)).transpose(2, 1, 0)
    check(q, [8, 5, 3], [want])


def test_store_at_outermost_and_fold_storage():
    x, y, c = ph.vars("x y c")
    p, q = ph.Func("producer_o"), ph.Func("consumer_o")
    p[x, y, c] = x * 10 + y + c
    q[x, y, c] = p[x, y, c] * 2
    p.async_().compute_at(q, c).store_at(q, ph.Var.outermost()).fold_storage(c, 2)
    X, Y, C = np.meshgrid(np.arange(4), np.arange(3), np.arange(4), indexing="ij")
    check(q, [4, 3, 4], [((X * 10 + Y + C) * 2).transpose(2, 1, 0)])


def test_refusals():
    x = ph.Var("x")
    f = ph.Func("f_tr")
    f[x] = x
    with pytest.raises(ph.CompileError, match="ring_buffer"):
        f.ring_buffer(0)
