"""Unrolling: every For(kind="unrolled") of constant extent N becomes a
Block of N copies of its body, copy i under `LetStmt(name, min + i)`,
unless its body holds, outside any inner loop, an `if` with a `fallback`
loop (the vectorizer's scalar copy of a vector loop whose guards depend
on the lanes) directly in a branch: that is the guarded copy of a
partitioned loop, which runs at the edges of the iteration space only, choosing per iteration
between vector code and its scalar fallback; such a loop stays a loop, a
`fallback` one (LLVM neither unrolls nor vectorizes it), so that its body
is compiled once and not N times (the default `a @ b`'s edge tiles: 6
rows of [2 vectors or 2 x 4 scalar lanes] before). A body of fallback
loops alone is still unrolled (each copy's guards fold with its
constants). Either way the same operations run in the same order; a
serial loop of constant extent 1 becomes its body under `LetStmt(name,
min)` (a split whose factor is the whole extent leaves such loops: LLVM
would get a loop to delete), unless the body leaves the loop early (a
LoopExit of it, which ends the body there).

    unroll_loops(stmt) -> stmt

Binding the loop variable with a LetStmt (rather than substituting it)
keeps every scoping rule of the body intact; the simplifier that follows
substitutes the constant ones. Inner loops are unrolled first, so nested
unrolled loops multiply out. An unrolled loop whose extent is not a
constant after simplification is a CompileError naming its variable.
PYHALIDE_DEBUG=1 reports each unrolled loop kept as a loop."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.config import debug_print
from pyhalide.ir.mutator import children

from .simplify import simplify


def unroll_loops(stmt: ir.Stmt) -> ir.Stmt:
    return _Unroll().mutate(stmt)


class _Unroll(ir.Mutator):
    def visit_For(self, s):
        body = self.mutate(s.body)
        if s.kind == ir.ForKind.SERIAL and ir.is_const(simplify(s.extent), 1) and \
                not _exits(body, s.name):
            return ir.LetStmt(s.name, simplify(s.min), body)
        if s.kind != ir.ForKind.UNROLLED:
            if body is s.body:
                return s
            return ir.For(s.name, s.min, s.extent, s.kind, body)
        extent = simplify(s.extent)
        if isinstance(extent, ir.Const) and extent.value > 1 and _branches_to_fallback(body):
            debug_print(1, f"pyhalide: unroll: loop {s.name} kept as a fallback loop (its body "
                           f"branches to a fallback loop)")
            return ir.For(s.name, s.min, s.extent, ir.ForKind.FALLBACK, body)
        if not isinstance(extent, ir.Const):
            raise ir.CompileError(
                f"cannot unroll loop {s.name}: its extent {ir.expr_to_str(extent)} is not a "
                f"constant (split it by a constant factor first)")
        if extent.value <= 0:
            return ir.Evaluate(ir.index(0))
        lo = simplify(s.min)
        return ir.block(*[ir.LetStmt(s.name, simplify(ir.Add(lo, ir.index(i))), body)
                          for i in range(extent.value)])


def _branches_to_fallback(s: ir.Stmt) -> bool:
    """Whether s holds, outside any loop, an `if` with a `fallback` loop in
    one of its branches (a test made once per iteration of the loop whose
    body s is)."""
    if isinstance(s, ir.For):
        return False
    if isinstance(s, ir.IfThenElse) and any(_has_fallback(x) for x in _stmts(s)):
        return True
    return any(_branches_to_fallback(x) for x in _stmts(s))


def _has_fallback(s: ir.Stmt) -> bool:
    """Whether s holds a `fallback` loop outside any other loop."""
    if isinstance(s, ir.For):
        return s.kind == ir.ForKind.FALLBACK
    return any(_has_fallback(x) for x in _stmts(s))


def _stmts(s: ir.Stmt) -> list:
    """The statements directly inside s."""
    return [x for x in children(s) if isinstance(x, ir.Stmt)]


def _exits(s: ir.Stmt, loop: str) -> bool:
    """Whether s holds a LoopExit of loop `loop`."""
    found = []

    class _Find(ir.Visitor):
        def visit_LoopExit(self, x):
            if x.loop == loop:
                found.append(x)

    _Find().visit(s)
    return bool(found)

