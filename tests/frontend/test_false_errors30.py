"""False errors of empty input reads in lifted array code inside loops
(session 30, h1; docs/false_errors30.md): `for i: if x[i] > 5: s += (a *
c[k]).sum()` with c empty raised "input buffer c is read over [0, 0]"
where no x[i] > 5. The reads stay lazy where the array has elements, and
lowering/unswitch_lazy.py gives the element loop a copy without the test.
Compared with plain Python, including the inputs where Python raises (a
lost IndexError or ValueError would be a wrong result)."""
import numpy as np
import pytest

from pyhalide import ir, pipeline
from pyhalide.lowering.unswitch_lazy import unswitch_lazy
from tests.frontend.test_false_errors23 import _same

_NEVER, _ONCE = np.zeros(4), np.array([0.0, 0.0, 6.0, 0.0])
_E, _V1, _V3 = np.ones(0), np.ones(1), np.arange(3.0) + 1.0


def invariant_read(x, a, c, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (a * c[k]).sum()
    return s


def test_invariant_read_of_empty_input():
    p = pipeline(invariant_read)
    for x in (_NEVER, _ONCE):
        for c in (_E, np.ones(2)):
            for k in (0, 5, -1):
                _same(p, invariant_read, x, _V3, c, k)


def row_read(x, A, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (A[k, 1:] * x[i]).sum()
    return s


def test_row_of_empty_matrix():
    p = pipeline(row_read)
    for x in (_NEVER, _ONCE):
        for A in (np.ones((0, 3)), np.arange(6.0).reshape(2, 3)):
            for k in (0, 1, 5):
                _same(p, row_read, x, A, k)


def element_of_product(x, a, b):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (a * b)[0]
    return s


def test_element_of_array_value():
    # (a * b)[0] with a empty and b of 3: Python's ValueError of the
    # broadcast, not the IndexError of the index
    p = pipeline(element_of_product)
    for x in (_NEVER, _ONCE):
        for a, b in ((_V3, _E), (_E, _V3), (_E, _E), (_V3, _V3), (_V1, _E)):
            _same(p, element_of_product, x, a, b)


def broadcast_read(x, a, b, c, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (c + a * b[k]).sum()
    return s


def test_broadcast_with_empty_operand_in_loop():
    # (main: the IfEmpty call-time ValueError where the if never holds)
    p = pipeline(broadcast_read)
    for x in (_NEVER, _ONCE):
        for a, c in ((_E, _V3), (_V3, _E), (_V3, _V3), (np.ones(2), _V3)):
            for k in (1, 5):
                _same(p, broadcast_read, x, a, np.ones(2), c, k)


def row_of_product(x, A, B, k):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 5.0:
            s += (A * B)[k].sum()
    return s


@pytest.mark.slow   # (3 s)
def test_row_of_broadcast_product():
    p = pipeline(row_of_product)
    m03, m23 = np.ones((0, 3)), np.arange(6.0).reshape(2, 3)
    for x in (_NEVER, _ONCE):
        for A, B in ((m03, m23), (m23, m03), (m23, m23)):
            for k in (0, -1, 3):
                _same(p, row_of_product, x, A, B, k)


def test_unswitch_lazy_select():
    # for x: out[x] = if_then_else(0 < n, a[x], 0) becomes
    # if (0 < n) for x: out[x] = a[x] else (the loop as it was)
    i32 = ir.Int(32)
    n = ir.Variable(i32, "n")
    x = ir.Variable(i32, "x")
    cond = ir.LT(ir.index(0), n)
    value = ir.lazy_select(cond, ir.Load(i32, "a", x), ir.Const(i32, 0))
    loop = ir.For("x", ir.index(0), n, "serial", ir.Store("out", value, x))
    out = unswitch_lazy(ir.For("y", ir.index(0), n, "serial", loop))
    assert isinstance(out, ir.IfThenElse) and ir.equal(out.condition, cond)
    assert out.then_case.name == "y" and out.then_case.body.name == "x"
    assert not ir.find_calls([out.then_case.body.body.value])
    assert out.else_case.body is loop
    # a condition that changes in the loop stays a lazy select
    moving = ir.lazy_select(ir.LT(x, n), ir.Load(i32, "a", x), ir.Const(i32, 0))
    loop = ir.For("x", ir.index(0), n, "serial", ir.Store("out", moving, x))
    assert unswitch_lazy(loop) is loop
