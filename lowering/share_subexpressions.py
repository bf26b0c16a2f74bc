"""Bind the subexpressions that a Provide uses more than once (in its values
and indices, ir.shared_bindings) with LetStmts around it. Inlining and the
frontend's NumPy functions build values as DAGs (`np.minimum(p, q)` uses p
twice; nested eight deep, p is used 2^8 times as a tree); passes whose
expression walk depends on context (storage flattening, codegen's
per-statement emission) would walk such a value as a tree. After this pass
every such value is a tree of its DAG's size. The bindings are statements around
the Provide (not Lets inside its values), so that what later passes place
before the Provide (access checks, branches on a value's select) stays in
their scope."""
from __future__ import annotations

from pyhalide import ir

# a Provide gets bindings only when written out as a tree it has more than
# this many times as many nodes as distinct ones (and more than 64 times):
# ordinary values stay as they are, for the passes that pattern-match them
TREE_FACTOR = 4


class _Share(ir.Mutator):
    stmts_only = True

    def visit_Provide(self, s):
        n = len(s.values)
        bindings, exprs = ir.shared_bindings(list(s.values) + list(s.args),
                                             only_if_larger=TREE_FACTOR)
        if not bindings:
            return s
        out = ir.Provide(s.name, tuple(exprs[:n]), tuple(exprs[n:]))
        for v, value in reversed(bindings):
            out = ir.LetStmt(v.name, value, out)
        return out


def share_subexpressions(stmt: ir.Stmt) -> ir.Stmt:
    return _Share().mutate(stmt)
