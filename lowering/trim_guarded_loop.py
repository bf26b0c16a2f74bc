"""The tail of an exiting loop whose update is guarded by an upper bound of
the loop variable, cut from the loop's range.

    trim_guarded_loop(stmt) -> stmt

A serial loop whose body is

    for (x, lo, ext) { if (c) exit loop x else { if (p) B } }

(or `if (p) B` alone) with p a conjunction of int32 order comparisons, each
`q >= 0` with q linear in x with a negative coefficient -k (`x <= h`, h =
floor((q + k*x) / k)), reading no memory and no other name bound in the
loop, does nothing at an iteration
where p fails but perhaps leave the loop, and p fails at every later one:
the loop becomes `for (x, lo, min(ext, h - lo + 1, ...)) { if (c) exit
loop x else B }` (a loop left at such an iteration ends there too; an
extent below 1 runs no iteration).

The guard is the range predicate of a shifting `while` loop run relative
to its start (frontend_ast/while_exit_range.py: `t > min(-1, first) - 1`,
t = first - x): as the loop's extent, loop_range_facts.py proves the
clamps of the positions (`max(t + 1, 0)`) from it, and carry_loop_state.py
finds the stores at the body's tail. As loop_range_facts, it runs only on
statements that hold a LoopExit and reasons about index arithmetic as if
it did not overflow (the Funcs' index overflow asserts check it)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import Mutator
from pyhalide.ir.ops import reads_memory

from .branch_facts import conjuncts
from .linear import linear_form
from .loop_range_facts import has_loop_exit
from .simplify import simplify

_I32 = ir.Int(32)


def trim_guarded_loop(stmt: ir.Stmt) -> ir.Stmt:
    return _Trim().mutate(stmt) if has_loop_exit(stmt) else stmt




def _at_least_zero(cmp):
    """q with `cmp` <=> q >= 0 (an int32 order comparison), else None."""
    a, b = cmp.a, cmp.b
    one = ir.Const(_I32, 1)
    if isinstance(cmp, ir.LT):
        return ir.Sub(ir.Sub(b, a), one)
    if isinstance(cmp, ir.LE):
        return ir.Sub(b, a)
    if isinstance(cmp, ir.GT):
        return ir.Sub(ir.Sub(a, b), one)
    if isinstance(cmp, ir.GE):
        return ir.Sub(a, b)
    return None


def _upper_bounds(p, x: str):
    """The bounds h (IR, free of x) with p <=> x <= h for each, or None."""
    out = []
    for c in conjuncts(p):
        if not isinstance(c, (ir.LT, ir.LE, ir.GT, ir.GE)) or c.a.type != _I32 or \
                reads_memory(c):
            return None
        q = _at_least_zero(c)
        coef = 0
        for atom, k in linear_form(simplify(q)).terms.values():
            if isinstance(atom, ir.Variable) and atom.name == x:
                coef += k
            elif x in ir.free_vars(atom):
                return None
        if coef >= 0:
            return None
        r = simplify(ir.Add(q, ir.Mul(ir.Variable(_I32, x), ir.Const(_I32, -coef))))
        # (r - k*x >= 0 <=> x <= floor(r / k) for k >= 1: Div is floor division there)
        out.append(r if coef == -1 else simplify(ir.Div(r, ir.Const(_I32, -coef))))
    return out


class _Trim(Mutator):
    def visit_For(self, s):
        body = self.mutate(s.body)
        out = self._trimmed(s, body)
        if out is not None:
            return out
        if body is s.body:
            return s
        return ir.For(s.name, s.min, s.extent, s.kind, body)

    def _trimmed(self, s, body):
        if s.kind != ir.ForKind.SERIAL or s.min.type != _I32 or s.extent.type != _I32:
            return None
        exit_test = isinstance(body, ir.IfThenElse) and isinstance(body.then_case, ir.LoopExit) \
            and body.then_case.loop == s.name
        guard = body.else_case if exit_test else body
        if not (isinstance(guard, ir.IfThenElse) and guard.else_case is None):
            return None
        his = _upper_bounds(guard.condition, s.name)
        if not his:
            return None
        ext = s.extent
        for h in his:
            ext = ir.Min(ext, ir.Add(ir.Sub(h, s.min), ir.Const(_I32, 1)))
        inner = guard.then_case
        new = ir.IfThenElse(body.condition, body.then_case, inner) if exit_test else inner
        return ir.For(s.name, s.min, simplify(ext), s.kind, new)
