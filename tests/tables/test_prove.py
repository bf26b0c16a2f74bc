"""The Z3 prover on known-good and known-bad operators."""
import pytest

from pyhalide import ir
from pyhalide.tables.grammar import variables
from pyhalide.tables.prove import PROVED, REFUTED, prove_operator
from pyhalide.tables.syntax import format_expr, parse_expr


def prove(texts, types):
    types = tuple(ir.as_type(t) for t in types)
    names = variables(types)
    return prove_operator(tuple(parse_expr(s, names, t) for s, t in zip(texts, types)), types)


def ids(v):
    return [format_expr(e) for e in v.identities]


def test_subtraction_is_not_associative():
    assert prove(["x0 - y0"], ["int32"]).associative == REFUTED


@pytest.mark.parametrize("t,ident", [("int32", "-2147483648"), ("uint16", "0"),
                                     ("float64", "-inf"), ("bool", "False")])
def test_max(t, ident):
    v = prove(["max(x0, y0)"], [t])
    assert (v.associative, ids(v), v.identity_side, v.commutative) == \
        (PROVED, [ident], "both", PROVED)


def test_wrapping_product_and_polynomial():
    v = prove(["x0 + y0 + k0 * x0 * y0"], ["int64"])
    assert (v.associative, ids(v), v.identity_side) == (PROVED, ["0"], "both")


def test_clamped_max_has_only_a_left_identity():
    v = prove(["max(min(x0, k0), y0)"], ["int8"])
    assert (v.associative, ids(v), v.identity_side, v.commutative) == \
        (PROVED, ["-128"], "left", REFUTED)


@pytest.mark.parametrize("cond,side", [("x0 < y0", "left"), ("x0 <= y0", "right")])
def test_argmin_with_ties_is_not_commutative(cond, side):
    v = prove(["min(x0, y0)", f"select({cond}, x1, y1)"], ["float32", "int32"])
    assert (v.associative, v.identity_side, v.commutative) == (PROVED, side, REFUTED)
    assert ids(v) == ["inf", "0"]


def test_lexicographic_argmin_is_commutative():
    v = prove(["min(x0, y0)", "select(x0 < y0, x1, select(y0 < x0, y1, min(x1, y1)))"],
              ["uint8", "int32"])
    assert (v.associative, v.identity_side, v.commutative) == (PROVED, "both", PROVED)


def test_nan_propagating_max():
    v = prove(["select(is_nan(x0), x0, select(is_nan(y0), y0, max(x0, y0)))"], ["float32"])
    assert (v.associative, ids(v), v.identity_side) == (PROVED, ["-inf"], "both")


def test_float_sum_over_reals():
    v = prove(["x0 + y0"], ["float32"])
    assert (v.associative, ids(v), v.identity_side, v.commutative) == \
        (PROVED, ["0.0"], "both", PROVED)


def test_saturating_add_with_widening():
    assert prove(["uint8(min(uint16(x0) + uint16(y0), 255))"], ["uint8"]).associative == PROVED
    # a bound above the type's maximum wraps in the narrowing cast
    assert prove(["uint8(min(uint16(x0) + uint16(y0), 300))"], ["uint8"]).associative == REFUTED


def test_signed_saturating_add_is_not_associative():
    v = prove(["int8(max(min(int16(x0) + int16(y0), 127), -128))"], ["int8"])
    assert v.associative == REFUTED
