"""Expression simplification for the layers above lowering (the frontend
compares and cleans up the expressions it builds): the simplifier of
`lowering/simplify.py`, exact under the compiler's semantics (wrapping
integers, IEEE floats)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.lowering.simplify import simplify as _lowering_simplify


def simplify(expr: ir.Expr) -> ir.Expr:
    """`expr` simplified: constants folded, integer arithmetic in canonical
    linear form, local identities applied. The value is unchanged."""
    return _lowering_simplify(expr)


def equal_after_simplify(a: ir.Expr, b: ir.Expr) -> bool:
    """Whether `a` and `b` are the same expression once both are simplified
    (structural equality: False does not prove them different)."""
    return ir.equal(simplify(a), simplify(b))
