"""Hoist an `if` that does not change in its loop out of it: a serial loop
(or a plain one, ForKind.FALLBACK)
whose whole body is an `if` without else,

    for (x, lo, extent) { if (c) { S } }

becomes

    if (0 < extent) { if (c) { for (x, lo, extent) { S } } }

where c does not use x, is plain arithmetic, comparisons, logic, selects
and loads (no call), and no load of c reads a buffer S stores to. c then
has the same value at every iteration; the loop evaluates it first at
iteration lo when it runs at all, so the rewritten code does the same (an
empty loop reads nothing). Where c is a conjunction, its conjuncts of
that kind move out and the others stay in the loop's `if` (which then reads
no more memory than before: only where the moved ones hold).
A load inside a loop_invariant mark (ir/loop_invariant.py: the frontend
proved its value the same at every iteration of the loops it may leave)
counts as reading no buffer. The body `if (a) { if (b) { S } }` (neither
with else) is taken as `if (a && b) { S }`, where b is such a test under
the loop's own guard (the sieve's `if (k < trips) { if (is_p[i]) ... }`).
frontend_ast/numpy_zero_ties.py's pass over the operand, taken only where
a max/min result is a zero, is such a loop (its RDom predicate reads the
result): without this, every call paid a loop over the whole array.

The walk visits statements only (expressions are not entered) and looks at
a loop's body node only: a kernel without such a loop costs one walk of
its statements. PYHALIDE_DEBUG=1 reports each loop."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.config import debug_print
from pyhalide.ir.loop_invariant import is_loop_invariant
from pyhalide.ir.ops import conjunction

from .branch_facts import conjuncts

_PLAIN = (ir.Load, ir.Const, ir.Variable, ir.Cast, ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Mod,
          ir.Min, ir.Max, ir.EQ, ir.NE, ir.LT, ir.LE, ir.GT, ir.GE, ir.And, ir.Or, ir.Not,
          ir.Select)


_KINDS = (ir.ForKind.SERIAL, ir.ForKind.FALLBACK)


def hoist_invariant_if(stmt: ir.Stmt) -> ir.Stmt:
    return _Hoist().mutate(stmt)


class _Hoist(ir.Mutator):
    stmts_only = True

    def visit_For(self, s: ir.For):
        s = self.mutate_children(s)
        body = s.body
        if s.kind not in _KINDS or not isinstance(body, ir.IfThenElse) or \
                body.else_case is not None:
            return s
        outer, tests, inner = conjuncts(body.condition), [], body.then_case
        if isinstance(inner, ir.IfThenElse) and inner.else_case is None:
            tests, inner = conjuncts(inner.condition), inner.then_case
        stored = _stores(inner)
        out = [c for c in outer if _invariant(c, s.name, stored)]
        # (an inner test leaves its guard only as a marked read: the
        # frontend's reads are in their buffer wherever they are evaluated)
        out += [c for c in tests if _invariant(c, s.name, stored) and _marked(c)]
        if not out:
            return s
        debug_print(1, f"pyhalide: hoist invariant if: loop {s.name}")
        for rest in ([c for c in tests if not any(c is o for o in out)],
                     [c for c in outer if not any(c is o for o in out)]):
            if rest:
                inner = ir.IfThenElse(conjunction(rest), inner, None)
        loop = ir.For(s.name, s.min, s.extent, s.kind, inner)
        inner = ir.IfThenElse(conjunction(out), loop, None)
        return ir.IfThenElse(ir.LT(ir.index(0), s.extent), inner, None)


def _invariant(c, var, stored) -> bool:
    loads = _loads(c, var)
    return loads is not None and not loads & stored


def _marked(c) -> bool:
    """Whether c loads only inside loop_invariant marks, and some."""
    return any(is_loop_invariant(n) for n in ir.find_calls(c)) and \
        not any(isinstance(n, ir.Load) for n in _outside_marks(c))


def _outside_marks(c):
    todo = [c]
    while todo:
        n = todo.pop()
        if is_loop_invariant(n):
            continue
        yield n
        todo.extend(ir.children(n))


def _loads(c, var):
    """The buffers c loads from outside loop_invariant marks, or None where
    c uses `var` or a node that is not plain (_PLAIN)."""
    out = set()
    todo = [c]
    while todo:
        n = todo.pop()
        if is_loop_invariant(n):
            if var in ir.free_vars(n):
                return None
            continue
        if not isinstance(n, _PLAIN) or (isinstance(n, ir.Variable) and n.name == var):
            return None
        if isinstance(n, ir.Load):
            out.add(n.name)
        todo.extend(ir.children(n))
    return out


def _stores(s) -> set:
    """The buffers stored to in statement s."""
    out = set()

    class _V(ir.Visitor):
        def visit_Store(self, st):
            out.add(st.name)

        def visit_Provide(self, st):
            out.add(st.name)
    _V().visit(s)
    return out
