"""A store of a lazy choice in an exiting loop made in two branches.

    split_exit_store(stmt) -> stmt

In a serial loop of a statement that holds a LoopExit,

    let v = if_then_else(c, A, B)
    ... (lets only) ...
    buf[i] = v

with v read nowhere else and that store the first statement of the let's
body that is not a let becomes `if (c) buf[i] = A else buf[i] = B` (v is
computed where it was, A and B read the same memory there: nothing is
stored between). Insertion sort's shift stores `!(a[t] > key) ? key :
a[t]` and then leaves the loop on the same compare: with the two stores
in two branches LLVM joins the exit to the key's branch, and the staying
path is the load, the compare, the store and the counter, as Numba's loop
(where one store of a select LLVM emits a masked move and a second test).
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import Mutator

from .loop_range_facts import has_loop_exit


def split_exit_store(stmt: ir.Stmt) -> ir.Stmt:
    return _Split().mutate(stmt) if has_loop_exit(stmt) else stmt


def _uses(s, name: str) -> int:
    """How many times the variable `name` is read in s."""
    n = 0
    stack = [s]
    while stack:
        x = stack.pop()
        if isinstance(x, ir.Variable) and x.name == name:
            n += 1
        stack.extend(c for c in ir.children(x) if isinstance(c, (ir.Expr, ir.Stmt)))
    return n


def _split_first_store(s, name: str, choice):
    """s with its first non-let statement, a store of `name`, split by
    `choice`; None if that statement is something else."""
    if isinstance(s, ir.LetStmt):
        body = _split_first_store(s.body, name, choice)
        return None if body is None else ir.LetStmt(s.name, s.value, body)
    if isinstance(s, ir.Block) and s.stmts:
        first = _split_first_store(s.stmts[0], name, choice)
        return None if first is None else ir.Block((first,) + tuple(s.stmts[1:]))
    if isinstance(s, ir.Store) and isinstance(s.value, ir.Variable) and \
            s.value.name == name and s.value.type.lanes == 1:
        c, a, b = choice.args
        return ir.IfThenElse(c, ir.Store(s.name, a, s.index), ir.Store(s.name, b, s.index))
    return None


class _Split(Mutator):
    stmts_only = True
    memoize = False          # a decision depends on the loops entered

    def __init__(self):
        super().__init__()
        self.serial = 0          # serial loops entered

    def visit_For(self, s):
        serial = s.kind == ir.ForKind.SERIAL
        self.serial += serial
        try:
            return self.mutate_children(s)
        finally:
            self.serial -= serial

    def visit_LetStmt(self, s):
        body = self.mutate(s.body)
        if self.serial and ir.is_lazy_select(s.value) and _uses(body, s.name) == 1:
            split = _split_first_store(body, s.name, s.value)
            if split is not None:
                return split
        if body is s.body:
            return s
        return ir.LetStmt(s.name, s.value, body)
