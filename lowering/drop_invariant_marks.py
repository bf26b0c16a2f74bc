"""Remove the loop_invariant marks (ir/loop_invariant.py) once
hoist_invariant_if has used them: each `loop_invariant(x)` becomes x. A
kernel without marks is returned as it is (one scan of its expressions)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.loop_invariant import is_loop_invariant


def drop_invariant_marks(stmt: ir.Stmt) -> ir.Stmt:
    if not any(is_loop_invariant(c) for c in ir.find_calls(stmt)):
        return stmt
    m = ir.FuncMutator(lambda n: m.mutate(n.args[0]) if is_loop_invariant(n) else None)
    return m.mutate(stmt)
