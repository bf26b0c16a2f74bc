"""Clamp unswitching: an innermost loop whose body clamps an index that moves
with the loop gets a clamp-free copy for the iterations where every such clamp
is the identity.

A NumPy operation on arrays whose shapes broadcast only at call time (`u[1:-1,
1:-1] * v[1:-1, 1:-1]` of two arguments: either slice may have length 1)
reads each operand at `max(min(x, n - 1), 0)` (frontend_ast/arrayexpr.py
broadcast_index): x itself unless the operand's length n is 1. In the loop
over x the clamp makes every load a gather. This pass rewrites an innermost
loop (serial or vectorized)

    for (x, lo, extent) { body }

where body holds integer clamps `min(e, B)` / `max(e, A)` with e linear in x
(through the lets of the body, themselves such clamps: the chains of
broadcast_index) and A, B independent of x, into

    if (safe) { for (x, lo, extent) { body with those clamps replaced by e } }
    else { for (x, lo, extent) { body } }

with `safe` the conjunction of `e <= B` and `e >= A` at the end of x's range
where each is hardest (e is linear in x), over the names in scope outside the
loop (a let of the body that does not depend on x is substituted). Both copies
compute the same values; the first has dense loads. The test is made once per
execution of the loop (per row of a 2-D operation). Under the assumption of
bounds inference and partition_loops: 32-bit index arithmetic of loop
variables does not overflow.

PYHALIDE_DEBUG=1 reports each loop unswitched."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.config import debug_print

from .partition_loops import coefficient
from .simplify import simplify

KINDS = ("serial", "vectorized")


def unswitch_clamps(stmt: ir.Stmt) -> ir.Stmt:
    return _Loops().mutate(stmt)


def _has_loop(s) -> bool:
    found = []

    class _Find(ir.Visitor):
        def visit_For(self, n):
            found.append(n)
    _Find().visit(s)
    return bool(found)


class _Loops(ir.Mutator):
    def visit_For(self, s):
        body = self.mutate(s.body)
        loop = s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        if s.kind not in KINDS or ir.is_const(s.extent, 1) or _has_loop(body):
            return loop
        hi = ir.Sub(ir.Add(s.min, s.extent), ir.index(1))
        finder = _Clamps(s.name)
        fast = finder.mutate(body)
        if not finder.conds or finder.failed:
            return loop
        safe = []
        for c in finder.conds:
            coef = coefficient(c, s.name)
            at = {s.name: hi if coef > 0 else s.min}
            c = simplify(type(c)(ir.substitute(c.a, at), ir.substitute(c.b, at)),
                         assume_no_overflow=True)
            if ir.is_const(c, False) or ir.is_const(c, 0):
                return loop
            if not ir.is_const(c):
                safe.append(c)
        if any(n in finder.inner for n in ir.free_vars(safe)):
            return loop
        debug_print(1, f"pyhalide: unswitch clamps: loop {s.name} has a clamp-free copy "
                       f"({len(finder.conds)} clamps)")
        fast_loop = ir.For(s.name, s.min, s.extent, s.kind, fast)
        if not safe:
            return fast_loop
        return ir.IfThenElse(ir.conjunction(safe), fast_loop, loop)


class _Clamps(ir.Mutator):
    """The body with each integer clamp of an x-dependent value by an
    x-independent bound replaced by the value; `conds` the comparisons that
    make the replacements exact, over x and the names outside the loop (the
    body's x-independent lets substituted, x-dependent ones expanded)."""

    memoize = False

    def __init__(self, var: str):
        super().__init__()
        self.var = var
        self.conds = []
        self.moving = {}        # let name -> its value (expanded), for lets using x
        self.fixed = {}         # let name -> its value (expanded), for the others
        self.inner = set()      # names bound in the body
        self.failed = False

    def _expand(self, e):
        return ir.substitute(e, {**self.fixed, **self.moving}) if self.fixed or self.moving \
            else e

    def _moves(self, e) -> bool:
        return ir.uses_var(e, self.var) or any(ir.uses_var(e, n) for n in self.moving)

    def _clamp(self, e, is_min: bool):
        r = self.mutate_children(e)
        if not (r.type.is_scalar() and r.type.is_int()):
            return r
        for keep, bound in ((r.a, r.b), (r.b, r.a)):
            if self._moves(keep) and not self._moves(bound) and \
                    not ir.reads_memory(keep) and not ir.reads_memory(bound):
                k, b = self._expand(keep), self._expand(bound)
                cond = ir.LE(k, b) if is_min else ir.GE(k, b)
                if coefficient(cond, self.var) is None:
                    return r            # not linear in x: kept
                self.conds.append(cond)
                return keep
        return r

    def visit_Min(self, e):
        return self._clamp(e, True)

    def visit_Max(self, e):
        return self._clamp(e, False)

    def visit_LetStmt(self, s):
        value = self.mutate(s.value)
        self.inner.add(s.name)
        expanded = self._expand(value)
        (self.moving if self._moves(value) else self.fixed)[s.name] = expanded
        body = self.mutate(s.body)
        return s if value is s.value and body is s.body else ir.LetStmt(s.name, value, body)

    def visit_Let(self, e):
        self.failed = True          # an expression let: left alone
        return e
