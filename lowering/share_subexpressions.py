"""Bind the subexpressions that a Provide's values use more than once with
Lets (ir.let_shared). Inlining and the frontend's NumPy functions build
values as DAGs (`np.minimum(p, q)` uses p twice; nested eight deep, p is
used 2^8 times as a tree); passes whose expression walk depends on context
(storage flattening, codegen's per-statement emission) would walk such a
value as a tree. After this pass every value is a tree of its DAG's size."""
from __future__ import annotations

from pyhalide import ir


class _Share(ir.Mutator):
    stmts_only = True

    def visit_Provide(self, s):
        values = tuple(ir.let_shared(v) for v in s.values)
        if all(a is b for a, b in zip(values, s.values)):
            return s
        return ir.Provide(s.name, values, s.args)


def share_subexpressions(stmt: ir.Stmt) -> ir.Stmt:
    return _Share().mutate(stmt)
