"""The copies of loop nests for regions smaller than one chunk that codegen
compiles cold, found before it, so that optimizing passes can leave them
as they are.

    cold_copies(stmt) -> {id(IfThenElse): IfThenElse}
    then_only(mutator, s) -> Stmt   if s with its then branch mutated only
    small_extent_test(cond) -> bool  cond is a ShiftInwards split's `extent >= k`
    exits_outside(stmt) -> bool      a LoopExit in stmt leaves a loop around it

A ShiftInwards split's `if (f.rD.extent >= k) {whole chunks} else {copy}`
(small_extent_test) outside every loop of its function (a parallel loop's
body is a function of its own), whose else branch leaves no loop around it
(exits_outside), is the test codegen outlines the else branch of into a
cold function, `optnone`, emitted by LLVM without optimization
(codegen_llvm._emit_cold): it runs only for images or pyramid levels
smaller than one chunk. Those copies are most of a tiled pipeline's code
(interpolate: 58% of the nodes of its final Stmt), and every pass after
loop synthesis walked them. Passes that only make code faster
(promote_accumulators, partition_loops, unswitch_clamps, trim_no_ops,
trim_loop_guard, peel_shift_inwards, assert_fast_path) leave such an else
branch as it is: it computes the same values, and LLVM would not optimize
it anyway. The ids are of the nodes of the Stmt given; a pass that
rebuilds a node before it walks it finds no entry, and optimizes that
copy as before.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import children

from .context import is_required_extent


def cold_copies(stmt: ir.Stmt) -> dict:
    """{id(if): if} of the ifs whose else branch codegen compiles cold."""
    out: dict = {}
    stack = [(stmt, False)]             # (statement, inside a loop of its function)
    while stack:
        s, in_loop = stack.pop()
        if isinstance(s, ir.For):
            stack.append((s.body, s.kind != ir.ForKind.PARALLEL))
            continue
        if isinstance(s, ir.IfThenElse) and s.else_case is not None and not in_loop and \
                small_extent_test(s.condition) and not exits_outside(s.else_case):
            out[id(s)] = s
            stack.append((s.then_case, in_loop))      # (the else branch is cold throughout)
            continue
        stack.extend((c, in_loop) for c in children(s) if isinstance(c, ir.Stmt))
    return out


class LeavesColdCopies:
    """Mixin of a Mutator whose pass leaves the cold copies (the else branches
    of cold_copies' ifs, passed as `cold`) as they are."""

    def __init__(self, cold: dict):
        super().__init__()
        self.cold = cold

    def visit_IfThenElse(self, s):
        if id(s) in self.cold:
            return then_only(self, s)
        return self.mutate_children(s)


def then_only(m, s: ir.IfThenElse) -> ir.Stmt:
    """`if` s (a cold copy's test) with its then branch mutated by Mutator m
    and its condition and else branch as they are."""
    then_case = m.mutate(s.then_case)
    return s if then_case is s.then_case else ir.IfThenElse(s.condition, then_case, s.else_case)


def small_extent_test(cond) -> bool:
    """Whether cond is `extent >= k` (k > 1 a constant; the extent an
    expression of required extents `f.rD.extent` only): the test a
    ShiftInwards split of factor k makes (stage_loops, loop_synthesis),
    whose else branch, the copy for regions smaller than one chunk, runs
    only on small images and small pyramid levels."""
    if not (isinstance(cond, ir.GE) and isinstance(cond.b, ir.Const) and cond.b.value > 1):
        return False
    names = ir.free_vars(cond.a)
    return bool(names) and all(is_required_extent(n) for n in names)


def exits_outside(stmt) -> bool:
    """Whether a LoopExit in stmt leaves a loop around stmt (which an
    outlined function could not reach)."""
    inside, exits = set(), set()
    stack = [stmt]
    while stack:
        s = stack.pop()
        if isinstance(s, ir.For):
            inside.add(s.name)
        elif isinstance(s, ir.LoopExit):
            exits.add(s.loop)
        stack.extend(c for c in children(s) if isinstance(c, ir.Stmt))
    return bool(exits - inside)
