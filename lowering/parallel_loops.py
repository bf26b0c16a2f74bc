"""Whether a statement holds a parallel loop.

    has_parallel(s: ir.Stmt) -> bool

A walk over statements only (expressions hold no loops)."""
from __future__ import annotations

from pyhalide import ir

__all__ = ["has_parallel"]


def has_parallel(s: ir.Stmt) -> bool:
    """True when `s` or a statement inside it is a parallel For."""
    stack = [s]
    while stack:
        x = stack.pop()
        if isinstance(x, ir.For) and x.kind == ir.ForKind.PARALLEL:
            return True
        stack.extend(c for c in ir.children(x) if isinstance(c, ir.Stmt))
    return False
