"""lowering/rotate_loop_exit.py on hand-built loops: an exit tested at the
start of each iteration on carried flags moves to the end of the iteration
(with the test before the loop as its guard) only when the test reads
one-element scratches and not the loop's variable."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.lowering.rotate_loop_exit import rotate_loop_exit

I32 = ir.Int(32)
B = ir.Bool()
X = ir.Variable(ir.INDEX, "x")


def _flag(buf="f", index=0):
    return ir.Load(B, buf, ir.index(index))


def _loop(cond, scratch=1):
    """allocate f[scratch]; f[0] = false;
    for x: if (cond) exit else { m[x] = x; f[0] = x > 4 }"""
    body = ir.block(ir.Store("m", ir.Cast(I32, X), X),
                    ir.Store("f", ir.GT(X, ir.index(4)), ir.index(0)))
    loop = ir.For("x", ir.index(0), ir.index(10), ir.ForKind.SERIAL,
                  ir.IfThenElse(cond, ir.LoopExit("x"), body))
    init = ir.Store("f", ir.const(B, False), ir.index(0))
    return ir.Allocate("f", B, (ir.index(scratch),), ir.block(init, loop))


def _rotated(stmt) -> bool:
    out = rotate_loop_exit(stmt)
    text = ir.to_str(out)
    assert text.count("exit loop x") == 1, text
    return text.index("exit loop x") > text.index("m[x] = ")


def test_flag_exit_moves_to_the_end_with_a_guard():
    out = rotate_loop_exit(_loop(_flag()))
    text = ir.to_str(out)
    assert _rotated(_loop(_flag()))
    # the guard before the loop tests the same flag
    assert text.index("!f[0]") < text.index("for (x"), text


def test_conjunction_of_flags_moves():
    assert _rotated(_loop(ir.Or(_flag(), ir.Not(_flag()))))


def test_test_reading_the_loop_variable_stays():
    assert not _rotated(_loop(ir.And(_flag(), ir.GT(X, ir.index(3)))))


def test_test_reading_a_larger_buffer_stays():
    assert not _rotated(_loop(_flag(), scratch=10))


def test_test_reading_an_element_at_a_variable_index_stays():
    assert not _rotated(_loop(ir.Load(B, "f", ir.Variable(ir.INDEX, "y"))))


def test_buffer_not_allocated_around_the_loop_stays():
    body = ir.Store("m", ir.Cast(I32, X), X)
    loop = ir.For("x", ir.index(0), ir.index(10), ir.ForKind.SERIAL,
                  ir.IfThenElse(_flag("g"), ir.LoopExit("x"), body))
    assert ir.to_str(rotate_loop_exit(loop)) == ir.to_str(loop)
