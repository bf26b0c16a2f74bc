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
loop (a let of the body that does not depend on x is substituted), computed in
int64 with e's value at both ends inside int32's range (an int32 e that wraps,
`min(x + off, 5)` with off near 2^31, keeps its clamp: the else copy). Both
copies compute the same values; the first has dense loads. The test is made
once per execution of the loop (per row of a 2-D operation). Only int32
clamps are rewritten.

PYHALIDE_DEBUG=1 reports each loop unswitched."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.config import debug_print

from .linear import linear_form
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


I64 = ir.Int(64)


def _wide(lf, var: str, at: ir.Expr) -> ir.Expr:
    """The int64 value of linear form lf (of an int32 expression) at var = at
    (an int64 expression): its int32 computation wraps to this value, and
    equals it where it lies in int32's range."""
    out = ir.Const(I64, lf.const)
    for atom, coef in lf.terms.values():
        if coef == 0:
            continue
        v = at if isinstance(atom, ir.Variable) and atom.name == var else ir.Cast(I64, atom)
        out = ir.Add(out, ir.Mul(ir.Const(I64, coef), v))
    return out


def _in_int32(e: ir.Expr) -> ir.Expr:
    return ir.And(ir.GE(e, ir.Const(I64, -2 ** 31)), ir.LE(e, ir.Const(I64, 2 ** 31 - 1)))


def _safe(var: str, lo: ir.Expr, hi: ir.Expr, keep: ir.Expr, bound: ir.Expr, is_min: bool):
    """The condition that clamp min(keep, bound) (max if not is_min) is keep
    for every var in [lo, hi] (int64 ends): keep's value at both ends in
    int32's range (keep is linear in var: then everywhere between, with no
    wrap-around), and keep <= bound (>=) at the end where that is hardest."""
    lf = linear_form(keep)
    coef = sum(c for a, c in lf.terms.values() if isinstance(a, ir.Variable) and a.name == var)
    at_lo, at_hi = _wide(lf, var, lo), _wide(lf, var, hi)
    hard = at_hi if (coef > 0) == is_min else at_lo
    b = ir.Cast(I64, bound)
    return ir.And(ir.And(_in_int32(at_lo), _in_int32(at_hi)),
                  ir.LE(hard, b) if is_min else ir.GE(hard, b))


class _Loops(ir.Mutator):
    def visit_For(self, s):
        body = self.mutate(s.body)
        loop = s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        if s.kind not in KINDS or ir.is_const(s.extent, 1) or _has_loop(body):
            return loop
        finder = _Clamps(s.name)
        fast = finder.mutate(body)
        if not finder.conds or finder.failed:
            return loop
        lo = ir.Cast(I64, s.min)
        hi = ir.Sub(ir.Add(lo, ir.Cast(I64, s.extent)), ir.Const(I64, 1))
        safe = []
        for keep, bound, is_min in finder.conds:
            c = simplify(_safe(s.name, lo, hi, keep, bound, is_min))
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
    """The body with each int32 clamp of an x-dependent value linear in x by
    an x-independent bound replaced by the value; `conds` the (value, bound,
    is_min) of each, over x and the names outside the loop (the body's
    x-independent lets substituted, x-dependent ones expanded)."""

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
        if r.type != ir.Int(32):
            return r
        for keep, bound in ((r.a, r.b), (r.b, r.a)):
            if self._moves(keep) and not self._moves(bound) and \
                    not ir.reads_memory(keep) and not ir.reads_memory(bound):
                k, b = self._expand(keep), self._expand(bound)
                if coefficient(ir.LE(k, b), self.var) is None:
                    return r            # not linear in x: kept
                self.conds.append((k, b, is_min))
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
