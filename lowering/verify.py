"""The IR verifier: every variable is defined where it is used, every Load and
Store names a buffer or an allocation in scope, and no multi-dimensional node
survives storage flattening. Run after every pass when verification is on.

The walk is a tree walk (a statement or expression shared by several places
is checked in each of their scopes), except that an expression found correct
is not walked again until a scope closes: names are only added meanwhile, so
it stays correct. An expression DAG that shares its subexpressions is thus
checked in time linear in the DAG, not in the tree it stands for."""
from __future__ import annotations

from pyhalide import ir

from .verify_summary import passes


class _Verify(ir.Visitor):
    memoize = False

    def __init__(self, defined: set, buffers: set, flattened: bool):
        super().__init__()
        self.defined = set(defined)
        self.buffers = set(buffers)
        self.flattened = flattened
        self.errors = []
        self.correct = set()      # ids of expressions found correct in the current scopes

    def visit(self, n):
        if not isinstance(n, ir.Expr):
            super().visit(n)
            return
        if id(n) in self.correct:
            return
        errors = len(self.errors)
        super().visit(n)
        if len(self.errors) == errors:
            self.correct.add(id(n))

    def _scoped(self, name, body, table):
        had = name in table
        table.add(name)
        self.visit(body)
        if not had:
            table.discard(name)
            self.correct.clear()

    def visit_Variable(self, v):
        if v.name not in self.defined:
            self.errors.append(f"variable {v.name} is used outside its scope")

    def visit_For(self, s):
        self.visit(s.min)
        self.visit(s.extent)
        self._scoped(s.name, s.body, self.defined)

    def visit_LetStmt(self, s):
        self.visit(s.value)
        self._scoped(s.name, s.body, self.defined)

    def visit_Let(self, e):
        self.visit(e.value)
        self._scoped(e.name, e.body, self.defined)

    def visit_Allocate(self, s):
        for e in s.extents:
            self.visit(e)
        if s.reuse_if is not None:
            self.visit(s.reuse_if)
        self._scoped(s.name, s.body, self.buffers)

    def visit_Realize(self, s):
        if self.flattened:
            self.errors.append(f"Realize {s.name} after storage flattening")
        for r in s.bounds:
            self.visit(r)
        self._scoped(s.name, s.body, self.buffers)

    def visit_Provide(self, s):
        if self.flattened:
            self.errors.append(f"Provide to {s.name} after storage flattening")
        self.visit_children(s)

    def visit_Call(self, c):
        if self.flattened and c.call_type != ir.INTRINSIC:
            self.errors.append(f"call to {c.name} after storage flattening")
        self.visit_children(c)

    def visit_Load(self, e):
        if e.name not in self.buffers:
            self.errors.append(f"load from {e.name}, which is not allocated here")
        self.visit_children(e)

    def visit_Store(self, s):
        if s.name not in self.buffers:
            self.errors.append(f"store to {s.name}, which is not allocated here")
        self.visit_children(s)


def verify(stmt: ir.Stmt, defined: set, buffers: set, flattened: bool,
           memo: dict | None = None) -> None:
    """Raise AssertionError listing every problem found. `memo`: a dict kept
    for one lowering's checks, for verify_summary's memoized summaries: a
    Stmt they find correct is not walked (the walk below lists the problems
    of one they do not)."""
    if memo is not None and passes(stmt, defined, buffers, flattened, memo):
        return
    v = _Verify(defined, buffers, flattened)
    v.visit(stmt)
    if v.errors:
        unique = list(dict.fromkeys(v.errors))
        raise AssertionError("IR verification failed:\n  " + "\n  ".join(unique[:20]))
