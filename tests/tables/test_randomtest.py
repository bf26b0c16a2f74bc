"""The random associativity pre-filter."""
import pytest

from pyhalide import ir
from pyhalide.tables.grammar import variables
from pyhalide.tables.randomtest import random_associative
from pyhalide.tables.samples import make_samples
from pyhalide.tables.syntax import parse_expr


def ops_of(texts, types):
    names = variables(types)
    return tuple(parse_expr(s, names, t) for s, t in zip(texts, types))


@pytest.mark.parametrize("t", ["int8", "uint32", "int64", "float32", "float64"])
@pytest.mark.parametrize("text,expected", [
    ("x0 + y0", True), ("x0 * y0", True), ("max(x0, y0)", True),
    ("max(min(x0, k0), y0)", True), ("x0 + y0 + k0 * x0 * y0", True),
    ("x0 - y0", False), ("max(x0, y0) + k0", False), ("x0 * y0 + k0", False),
])
def test_single(t, text, expected):
    types = (ir.as_type(t),)
    assert random_associative(ops_of([text], types), types, make_samples(types[0], 1)) is expected


def test_integer_wraparound_is_exact():
    # (x + y) >> ... no shifts in the grammar; min of a wrapping sum is not associative
    types = (ir.UInt(8),)
    assert not random_associative(ops_of(["min(x0 + y0, x0)"], types), types,
                                  make_samples(types[0], 1))


def test_pairs():
    t = ir.Int(32)
    s = make_samples(t, 2)
    assert random_associative(ops_of(["min(x0, y0)", "select(x0 < y0, x1, y1)"], (t, t)), (t, t), s)
    assert random_associative(ops_of(["x0 + y0", "x0 + y1"], (t, t)), (t, t), s)
    assert not random_associative(ops_of(["x0 + y1", "x1 + y0"], (t, t)), (t, t), s)
