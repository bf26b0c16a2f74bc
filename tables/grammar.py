"""The enumeration grammar: which IR node kinds build operators of a type.

An operator over a tuple of `size` elements is written over the variables
x0..x{size-1} (the partial result), y0..y{size-1} (the new value) and one
generic constant k0. `leaf_names(size)` gives them in canonical order: that
order is also the order in which the canonical form places operands (x before
y, lower index first, the constant last).
"""
from __future__ import annotations

from dataclasses import dataclass

from pyhalide import ir

# Operands and results are either of the table's scalar type ("value") or bool.
VALUE, BOOL = "value", "bool"


@dataclass(frozen=True)
class OpKind:
    """One node kind of the grammar: `name` is the IR class name."""

    name: str
    arity: int
    operand: str        # VALUE or BOOL: the type of the (non-condition) operands
    result: str         # VALUE or BOOL
    commutative: bool


_ARITH = [OpKind("Add", 2, VALUE, VALUE, True), OpKind("Sub", 2, VALUE, VALUE, False),
          OpKind("Mul", 2, VALUE, VALUE, True)]
_MINMAX = [OpKind("Min", 2, VALUE, VALUE, True), OpKind("Max", 2, VALUE, VALUE, True)]
_BITWISE = [OpKind("BitAnd", 2, VALUE, VALUE, True), OpKind("BitOr", 2, VALUE, VALUE, True),
            OpKind("BitXor", 2, VALUE, VALUE, True)]
# GT/GE are not enumerated: `a > b` is `b < a`; ir_convert writes the
# comparison with the canonically smaller operand on the left.
_COMPARE = [OpKind("LT", 2, VALUE, BOOL, False), OpKind("LE", 2, VALUE, BOOL, False),
            OpKind("EQ", 2, VALUE, BOOL, True), OpKind("NE", 2, VALUE, BOOL, True)]
_LOGICAL = [OpKind("And", 2, BOOL, BOOL, True), OpKind("Or", 2, BOOL, BOOL, True)]
_BOOL_EQ = [OpKind("EQ", 2, BOOL, BOOL, True), OpKind("NE", 2, BOOL, BOOL, True)]
SELECT = OpKind("Select", 3, VALUE, VALUE, False)
NOT = OpKind("Not", 1, BOOL, BOOL, False)
BITNOT = OpKind("BitNot", 1, VALUE, VALUE, False)


def binary_kinds(t: ir.Type) -> list:
    """The binary node kinds enumerated for scalar type `t`, in the order the
    enumerator tries them (earlier kinds win ties between equal functions)."""
    if t.is_bool():
        return _LOGICAL + _BOOL_EQ
    if t.is_float():
        return _ARITH + _MINMAX + _COMPARE + _LOGICAL
    return _ARITH + _MINMAX + _BITWISE + _COMPARE + _LOGICAL


def unary_kinds(t: ir.Type) -> list:
    """Unary node kinds for `t`: logical not, and bitwise not for integers."""
    if t.is_integer():
        return [BITNOT, NOT]
    return [NOT]


def leaf_names(size: int) -> list:
    """x0.., y0.., k0 in canonical operand order."""
    return [f"x{i}" for i in range(size)] + [f"y{i}" for i in range(size)] + ["k0"]


def variables(types) -> dict:
    """name -> ir.Variable for an operator over a tuple of `types`; k0 has the
    type of element 0."""
    types = tuple(types)
    out = {}
    for i, t in enumerate(types):
        out[f"x{i}"] = ir.Variable(t, f"x{i}")
    for i, t in enumerate(types):
        out[f"y{i}"] = ir.Variable(t, f"y{i}")
    out["k0"] = ir.Variable(types[0], "k0")
    return out


def walk(e):
    """`e` and every expression below it."""
    yield e
    for sub in ir.children(e):
        yield from walk(sub)


# The float theory an operator is proven in (z3model): REAL when a float
# `+`, `-` or `*` occurs in it, else FP (IEEE: it only compares and copies).
REAL, FP = "real", "fp"
ARITH = (ir.Add, ir.Sub, ir.Mul)


def float_theory(ops) -> str:
    """REAL if any float-typed `+`, `-` or `*` occurs in `ops`, else FP."""
    return REAL if any(isinstance(n, ARITH) and n.type.is_float()
                       for e in ops for n in walk(e)) else FP
