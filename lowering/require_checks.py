"""Halide's require(cond, value, *msg) (pyhalide/halide_require.py): each
require call in a Provide's values becomes an AssertStmt just before that
Provide (a RuntimeError "Requirement Failed: (false) value msg" when cond
is false, Halide's text) and the call becomes its value. The check runs where Halide's does:
each time the stored value is computed. A require inside an if_then_else
branch (evaluated lazily) or whose condition or message reads a name bound
by a Let inside the value cannot move before the store: a CompileError.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.errors import CompileError
from pyhalide.ir.requirements import PREFIX, message_of


def is_require(n) -> bool:
    return isinstance(n, ir.Call) and n.call_type == ir.INTRINSIC and n.name.startswith(PREFIX)


class _Hoist(ir.Mutator):
    def __init__(self, func: str):
        super().__init__()
        self.func = func
        self.checks = []
        self.bound = []
        self.lazy = 0

    def visit_Let(self, e):
        value = self.mutate(e.value)
        self.bound.append(e.name)
        body = self.mutate(e.body)
        self.bound.pop()
        return ir.Let(e.name, value, body)

    def visit_Call(self, e):
        if e.call_type == ir.INTRINSIC and e.name == "if_then_else":
            cond = self.mutate(e.args[0])
            self.lazy += 1
            rest = tuple(self.mutate(a) for a in e.args[1:])
            self.lazy -= 1
            return ir.Call(e.type, e.name, (cond,) + rest, e.call_type)
        if not is_require(e):
            return self.mutate_children(e)
        cond, value, *args = e.args
        if self.lazy:
            raise CompileError(f"require() inside an if_then_else branch of Func {self.func}: "
                               "the check cannot run before the store")
        for a in (cond, *args):
            inner = set(ir.free_vars(a)) & set(self.bound)
            if inner:
                raise CompileError(f"require() in Func {self.func} reads {sorted(inner)[0]}, "
                                   "bound inside the value: the check cannot run before "
                                   "the store")
        cond, args = self.mutate(cond), tuple(self.mutate(a) for a in args)
        value = self.mutate(value)
        self.checks.append(ir.AssertStmt(cond, "RuntimeError", message_of(e), (value,) + args))
        return value


class _Provides(ir.Mutator):
    stmts_only = True

    def visit_Provide(self, s):
        h = _Hoist(s.name)
        values = tuple(h.mutate(v) for v in s.values)
        args = tuple(h.mutate(a) for a in s.args)
        if not h.checks:
            return s
        return ir.block(*h.checks, ir.Provide(s.name, values, args))


def lower_require(stmt: ir.Stmt) -> ir.Stmt:
    """Every require call of `stmt`'s Provides as an AssertStmt before it."""
    return _Provides().mutate(stmt)
