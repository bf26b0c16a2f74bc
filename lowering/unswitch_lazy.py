"""Lazy-select unswitching: a loop whose body evaluates a lazy
`if_then_else(c, a, b)` with a condition c the same at every iteration
(plain arithmetic of names bound outside the loop, no load or call)

    for (x, lo, extent) { body }

becomes

    if (c) { for (x, lo, extent) { body with a } }
    else { for (x, lo, extent) { body } }

The lazy select picks the same branch at each evaluation in the loop, so
the copy computes what the loop computed; the test evaluates c once (c is
pure: an empty loop that never evaluated it loses nothing). Several such
conditions make one test, their conjunction, and one copy with every
select's first branch; the loop itself, lazy selects and all, is the else
case (2 copies, not 2^n: the frontend's conditions fail only where an
input is empty, a call that is rarely made and computes nothing Python
uses). The frontend
reads an input at a run-time checked index only where the array has
elements (`if_then_else(0 < c.extent.0, c[k'], 0)`: arrays.ArrayAccess.
_unless_empty, kept lazy by checks._Strip) so that bounds inference needs
no region of an empty input; in the element loop of lifted array code a
lazy select is a branch per element that keeps the loop from vectorizing,
and its copies here are branch-free.

The rewrite is made at an innermost loop (one without inner loops: the
element loops, where the branch costs), then moved out through each
enclosing loop whose whole body is the test (a perfect nest stays one in
both copies). At most _MAX distinct conditions are taken per loop; further
ones stay lazy selects.

PYHALIDE_DEBUG=1 reports each loop."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.config import debug_print

# at most this many conditions unswitched per loop
_MAX = 4


def unswitch_lazy(stmt: ir.Stmt) -> ir.Stmt:
    return _Loops().mutate(stmt)


class _Loops(ir.Mutator):
    stmts_only = True
    memoize = False

    def __init__(self):
        super().__init__()
        # id -> the test this pass made (kept: a freed test's id may be
        # reused by another statement)
        self.made = {}

    def visit_For(self, s: ir.For):
        body = self.mutate(s.body)
        loop = s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        out = self._moved_out(loop)
        if out is not loop:
            return out
        conds = _conditions(loop) if not _has_loop(body) else []
        if not conds:
            return loop
        debug_print(1, f"pyhalide: unswitch lazy: loop {s.name} on {len(conds)} condition(s)")
        return self._split(loop, conds)

    def _moved_out(self, loop: ir.For) -> ir.Stmt:
        """loop, or the test this pass made of an inner loop, when it is
        loop's whole body and the same at each iteration, moved out of it
        (and so on in each copy: the tests of several conditions)."""
        body = loop.body
        if self.made.get(id(body)) is not body or not _invariant(body.condition, loop):
            return loop
        then_case = ir.For(loop.name, loop.min, loop.extent, loop.kind, body.then_case)
        else_case = ir.For(loop.name, loop.min, loop.extent, loop.kind, body.else_case)
        return self._test(body.condition, self._moved_out(then_case), self._moved_out(else_case))

    def _split(self, loop: ir.For, conds: list) -> ir.Stmt:
        taken = loop
        for c in conds:
            taken = _Taken(c, True).mutate(taken)
        return self._test(ir.conjunction(conds), taken, loop)

    def _test(self, c, then_case, else_case) -> ir.IfThenElse:
        out = ir.IfThenElse(c, then_case, else_case)
        self.made[id(out)] = out
        return out


def _has_loop(s: ir.Stmt) -> bool:
    """Whether statement s holds a loop (statements only are walked)."""
    todo = [s]
    while todo:
        n = todo.pop()
        if isinstance(n, ir.For):
            return True
        todo.extend(x for x in ir.children(n) if isinstance(x, ir.Stmt))
    return False


def _invariant(c: ir.Expr, loop: ir.For) -> bool:
    """Whether c reads no memory and uses no name loop binds (its variable,
    a let, an inner loop's variable)."""
    if ir.reads_memory(c):
        return False
    bound = _bound(loop)
    return not any(n in bound for n in ir.free_vars(c))


def _bound(loop: ir.For) -> set:
    out = {loop.name}

    class _V(ir.Visitor):
        def visit_For(self, s):
            out.add(s.name)
            self.visit_children(s)

        def visit_LetStmt(self, s):
            out.add(s.name)
            self.visit_children(s)

        def visit_Let(self, e):
            out.add(e.name)
            self.visit_children(e)

        def visit_Allocate(self, s):
            out.add(s.name)
            self.visit_children(s)
    _V().visit(loop.body)
    return out


def _conditions(loop: ir.For) -> list:
    """The distinct conditions (at most _MAX) of the lazy selects loop's body
    evaluates outside its inner loops that are the same at every iteration."""
    found = []

    class _V(ir.Visitor):
        def visit_For(self, s):
            pass

        def visit_Call(self, e):
            if ir.is_lazy_select(e) and not any(ir.equal(e.args[0], c) for c in found):
                found.append(e.args[0])
            self.visit_children(e)
    _V().visit(loop.body)
    if not found:
        return []
    bound = _bound(loop)
    out = [c for c in found if not ir.reads_memory(c) and
           not any(n in bound for n in ir.free_vars(c))]
    return out[:_MAX]


class _Taken(ir.Mutator):
    """Each lazy select of condition c replaced by the branch c's value
    `truth` picks (within a copy of the loop)."""

    def __init__(self, c: ir.Expr, truth: bool):
        super().__init__()
        self.c, self.truth = c, truth

    def visit_Call(self, e):
        if ir.is_lazy_select(e) and ir.equal(e.args[0], self.c):
            return self.mutate(e.args[1] if self.truth else e.args[2])
        return self.mutate_children(e)
