"""Interval arithmetic of a product with a constant on either side: k * e
scales e's interval (a negative k swaps the ends)."""
from pyhalide import ir
from pyhalide.lowering.interval import BoundsOf, Interval


def _bounds(e):
    n = ir.Variable(ir.INDEX, "n")
    b = BoundsOf({"r": Interval(ir.index(0), ir.Sub(n, ir.index(1)))})
    iv = b(e)
    return ir.to_str(iv.lo), ir.to_str(iv.hi)


def test_constant_on_the_left_or_right():
    r = ir.Variable(ir.INDEX, "r")
    assert _bounds(ir.Mul(ir.index(-1), r)) == _bounds(ir.Mul(r, ir.index(-1))) == \
        ("((0 - n) + 1)", "0")
    assert _bounds(ir.Mul(ir.index(2), r)) == _bounds(ir.Mul(r, ir.index(2)))
    assert _bounds(ir.Mul(ir.index(3), ir.index(4))) == ("12", "12")
