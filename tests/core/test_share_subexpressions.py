"""Provide values that use a subexpression more than once get it bound by a
LetStmt (lowering/share_subexpressions.py, ir.shared_bindings): NumPy's NaN-aware
np.minimum uses its operand twice, so nested twelve deep a value used 2^12
times as a tree; lowering walked it as a tree (seconds per compile,
exponential in the depth). The lowered statement now grows linearly with
the depth, and results stay NumPy's (NaN included)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir


def nested_minimum(a):
    m = a
    m = np.minimum(m, a + 1.0)
    m = np.minimum(m, a + 2.0)
    m = np.minimum(m, a + 3.0)
    m = np.minimum(m, a + 4.0)
    m = np.minimum(m, a + 5.0)
    m = np.minimum(m, a + 6.0)
    m = np.minimum(m, a + 7.0)
    m = np.minimum(m, a + 8.0)
    m = np.minimum(m, a + 9.0)
    m = np.minimum(m, a + 10.0)
    m = np.minimum(m, a + 11.0)
    return np.minimum(m, a - 1.0)


def test_nested_minimum_equals_numpy_with_nans():
    a = np.array([3.0, np.nan, -1.0, np.inf, -np.inf, 0.5])
    np.testing.assert_array_equal(ph.pipeline(nested_minimum)(a), nested_minimum(a))


def test_lowered_size_is_linear_in_the_depth():
    p = ph.pipeline(nested_minimum)
    text = p.lower("final", [("a", "float64", (64,))])
    assert len(text) < 20000, len(text)


def test_shared_bindings_bind_each_shared_node_once():
    a = ir.Variable(ir.Float(64), "a")
    p = a
    for k in range(30):
        q = ir.Add(a, ir.Const(ir.Float(64), float(k)))
        p = ir.Select(ir.GE(p, q), q, ir.Select(ir.NE(q, q), q, p))
    bindings, (body,) = ir.shared_bindings([p])
    text = "".join(ir.to_str(v) for _, v in bindings) + ir.to_str(body)
    assert len(text) < 8000
    assert len(bindings) == 59      # 30 sums, 29 inner selects (the root is the body)


def test_shared_bindings_keep_lazy_branches_in_place():
    a = ir.Variable(ir.Int(32), "a")
    shared = ir.Add(a, ir.Const(ir.Int(32), 1))
    lazy = ir.lazy_select(ir.GT(a, ir.Const(ir.Int(32), 0)), ir.Mul(shared, shared),
                          ir.Const(ir.Int(32), 0))
    e = ir.Add(lazy, lazy)
    bindings, _ = ir.shared_bindings([e])
    # the lazy select itself is shared (bound once); what is inside it stays inside
    assert len(bindings) == 1 and ir.is_lazy_select(bindings[0][1])
    assert ir.equal(bindings[0][1], lazy)


@pytest.mark.parametrize("shape", [(7,), (33,)])
def test_shared_value_in_a_vectorized_schedule(shape):
    a = np.linspace(-3, 3, shape[0])
    x = ph.Var("x")
    f = ph.Func("f")
    b = ph.Buffer(a, "b")
    m = b[x]
    for k in range(6):
        m = ph.select(m > b[x] * float(k), b[x] * float(k), m)
    f[x] = m
    f.vectorize(x, 4)
    want = a.copy()
    for k in range(6):
        want = np.where(want > a * k, a * k, want)
    np.testing.assert_array_equal(np.asarray(f.realize([shape[0]])), want)
