"""The text form of operators: formatting and parsing are inverse."""
import pytest

from pyhalide import ir
from pyhalide.tables import handwritten
from pyhalide.tables.grammar import variables
from pyhalide.tables.syntax import format_expr, parse_expr


@pytest.mark.parametrize("t", [ir.UInt(8), ir.Float(32), ir.Int(64)])
def test_round_trip_of_hand_written_operators(t):
    for types, ops in handwritten.operators(t):
        names = variables(types)
        for e, et in zip(ops, types):
            text = format_expr(e)
            assert ir.equal(parse_expr(text, names, et), e), text


def test_literals_take_the_type_of_their_context():
    names = variables((ir.UInt(8),))
    e = parse_expr("uint8(min(uint16(x0) + uint16(y0), 255))", names)
    assert isinstance(e, ir.Cast) and e.value.b.type == ir.UInt(16)
    assert parse_expr("-inf", variables((ir.Float(64),)), ir.Float(64)).value == float("-inf")
    with pytest.raises(ValueError):
        parse_expr("min(x0, 300)", names)


def test_bool_and_negative_literals_format():
    b = variables((ir.Bool(),))
    assert format_expr(ir.And(b["x0"], ir.Not(b["y0"]))) == "x0 and (not y0)"
    i = variables((ir.Int(8),))
    assert format_expr(ir.Add(i["x0"], ir.Const(ir.Int(8), -3))) == "x0 + (-3)"
