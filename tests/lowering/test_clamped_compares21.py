"""The simplifier decides an integer comparison of `max(x, c1)` / `min(x,
c1)` with a constant where the constants decide it (`max(x, 0) > -1` is
true) and compares x alone where they do not (`max(x, 0) > 5` is `x > 5`):
checked against evaluating both forms at every x in a range, for every
operator, side and pair of constants in a grid."""
from __future__ import annotations

import itertools

import pytest

from pyhalide import ir
from pyhalide.lowering.simplify import simplify

OPS = {ir.LT: lambda a, b: a < b, ir.LE: lambda a, b: a <= b,
       ir.GT: lambda a, b: a > b, ir.GE: lambda a, b: a >= b}


def value(e, x):
    """e (built of x, constants, min/max and comparisons) at x."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.Variable):
        return x
    if isinstance(e, ir.Min):
        return min(value(e.a, x), value(e.b, x))
    if isinstance(e, ir.Max):
        return max(value(e.a, x), value(e.b, x))
    return OPS[type(e)](value(e.a, x), value(e.b, x))


@pytest.mark.parametrize("no_overflow", [False, True])
def test_every_form_keeps_its_value(no_overflow):
    x = ir.Variable(ir.index(0).type, "x")
    decided = 0
    for op, mm, c1, c2, clamp_left, cmp_left in itertools.product(
            OPS, (ir.Min, ir.Max), range(-3, 4), range(-3, 4), (False, True), (False, True)):
        k1, k2 = ir.index(c1), ir.index(c2)
        y = mm(k1, x) if clamp_left else mm(x, k1)
        e = op(y, k2) if cmp_left else op(k2, y)
        s = simplify(e, no_overflow)
        for xv in range(-6, 7):
            assert bool(value(s, xv)) == bool(value(e, xv)), (ir.to_str(e), ir.to_str(s), xv)
        assert "min(" not in ir.to_str(s) and "max(" not in ir.to_str(s), ir.to_str(s)
        decided += isinstance(s, ir.Const)
    assert decided > 0


def test_examples():
    x = ir.Variable(ir.index(0).type, "x")
    assert isinstance(simplify(ir.GT(ir.Max(x, ir.index(0)), ir.index(-1))), ir.Const)
    assert ir.to_str(simplify(ir.GT(ir.Max(x, ir.index(0)), ir.index(5)))) == "(x > 5)"
    assert ir.to_str(simplify(ir.LT(ir.Min(ir.Max(x, ir.index(0)), ir.index(9)), ir.index(4)))) \
        == "(x < 4)"
