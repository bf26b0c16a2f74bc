"""lowering/carry_loop_state.py on hand-built loops: which loads become the
carried scratch and which stay loads of memory (the conditions under which
the value the previous iteration stored is the one a load reads)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.lowering.carry_loop_state import carry_loop_state

I32 = ir.Int(32)
X = ir.Variable(ir.INDEX, "x")


def _load(buf, index):
    return ir.Load(I32, buf, index)


def _prev(buf, offset=-1):
    """select(x == 0, 7, buf[x + offset]): the previous iteration's value."""
    return ir.Select(ir.EQ(X, ir.index(0)), ir.const(I32, 7),
                     _load(buf, ir.Add(X, ir.index(offset))))


def _nest(body, after=None):
    loop = ir.For("x", ir.index(0), ir.index(10), ir.ForKind.SERIAL, body)
    return ir.Allocate("m", I32, (ir.index(10),), ir.block(loop, after))


def _text(stmt):
    return ir.to_str(carry_loop_state(stmt))


def test_previous_store_carried_and_buffer_dropped():
    body = ir.Store("m", ir.Add(_prev("m"), ir.const(I32, 1)), X)
    text = _text(_nest(body))
    assert "m.acc_carry" in text
    assert "m[" not in text and "allocate m[" not in text, text


def test_buffer_read_after_the_loop_keeps_its_stores():
    body = ir.Store("m", ir.Add(_prev("m"), ir.const(I32, 1)), X)
    after = ir.Store("out", _load("m", ir.index(9)), ir.index(0))
    text = _text(_nest(body, after))
    assert "m.acc_carry" in text
    assert "m[x] = " in text.replace("(", "").replace(")", ""), text


def test_unguarded_load_not_carried():
    # x == 0 reads m[-1]: memory from before the loop, not a scratch
    body = ir.Store("m", ir.Add(_load("m", ir.Sub(X, ir.index(1))), ir.const(I32, 1)), X)
    assert "carry" not in _text(_nest(body))


def test_other_offset_not_carried():
    body = ir.Store("m", ir.Add(_prev("m", -2), ir.const(I32, 1)), X)
    assert "carry" not in _text(_nest(body))


def test_store_not_last_not_carried():
    # a statement after the store reads m: the store is not the body's tail
    body = ir.block(ir.Store("m", ir.Add(_prev("m"), ir.const(I32, 1)), X),
                    ir.Store("out", _prev("m"), X))
    assert "carry" not in _text(_nest(body))


def test_two_stores_not_carried():
    body = ir.block(ir.Store("m", ir.const(I32, 0), ir.Add(X, ir.index(1))),
                    ir.Store("m", ir.Add(_prev("m"), ir.const(I32, 1)), X))
    assert "carry" not in _text(_nest(body))


def test_parallel_loop_inside_not_carried():
    inner = ir.For("z", ir.index(0), ir.index(4), ir.ForKind.PARALLEL,
                   ir.Store("out", _prev("m"), ir.Add(ir.Mul(X, ir.index(4)), ir.Variable(
                       ir.INDEX, "z"))))
    body = ir.block(inner, ir.Store("m", ir.Add(_prev("m"), ir.const(I32, 1)), X))
    assert "carry" not in _text(_nest(body))
