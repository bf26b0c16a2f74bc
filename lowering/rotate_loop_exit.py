"""Test a loop's exit at the end of each iteration instead of at the start
of the next.

    rotate_loop_exit(stmt) -> stmt

A serial `for (v, lo, ext) { if (c) exit loop v else B }` whose test c
does not read v and loads only one-element scratch buffers allocated
around the loop (the stop flags carry_loop_state keeps in registers)
becomes

    if (!c) { for (v, lo, ext) { B; if (c) exit loop v } }

c at the start of iteration x + 1 reads the memory B left at the end of
iteration x (nothing runs between), and the exit after the last iteration
leaves a loop that ends anyway; the test before the first iteration is
the guard. Evaluating c once when ext <= 0 loads a scratch that exists.

Insertion sort's shift then leaves the loop where its flag is computed
(`!(a[t] > key)`) rather than one iteration later: once LLVM promotes the
flag to a register the staying path is the compare, the store of a[t] and
the branch, as Numba's loop.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import Mutator


def rotate_loop_exit(stmt: ir.Stmt) -> ir.Stmt:
    return _Rotate().mutate(stmt)


class _Rotate(Mutator):
    stmts_only = True
    memoize = False          # a decision depends on the scratches in scope

    def __init__(self):
        super().__init__()
        self.scratch = set()     # one-element buffers allocated in scope

    def visit_Allocate(self, s):
        one = len(s.extents) == 1 and isinstance(s.extents[0], ir.Const) and \
            s.extents[0].value == 1 and s.reuse_if is None
        if not one or s.name in self.scratch:
            return self.mutate_children(s)
        self.scratch.add(s.name)
        try:
            return self.mutate_children(s)
        finally:
            self.scratch.discard(s.name)

    def visit_For(self, s):
        s = self.mutate_children(s)
        b = s.body
        if not (s.kind == ir.ForKind.SERIAL and isinstance(b, ir.IfThenElse) and
                isinstance(b.then_case, ir.LoopExit) and b.then_case.loop == s.name and
                b.else_case is not None and self._scratch_only(b.condition, s.name)):
            return s
        c = b.condition
        body = ir.Block([b.else_case, ir.IfThenElse(c, ir.LoopExit(s.name))])
        loop = ir.For(s.name, s.min, s.extent, s.kind, body)
        return ir.IfThenElse(ir.Not(c), loop)

    def _scratch_only(self, c: ir.Expr, var: str) -> bool:
        if var in ir.free_vars(c):
            return False
        stack = [c]
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Load):
                if x.name not in self.scratch or not (
                        isinstance(x.index, ir.Const) and x.index.value == 0):
                    return False
            elif isinstance(x, ir.Call):
                return False
            stack.extend(k for k in ir.children(x) if isinstance(k, ir.Expr))
        return True
