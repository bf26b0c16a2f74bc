"""Loop collapsing: two perfectly nested serial loops over a dense region
become one loop.

    for y in [0, Y): for x in [0, X): body
        -->  if (conds) { for t in [0, Y*X): body' } else { the two loops }

applies when the inner extent X is not a constant (a constant short inner
loop is unrolled by LLVM; a symbolic one pays its loop overhead on every
outer iteration: the argmin of a [64, 64, 64, 64] array over symbolic
extents walks 2^18 rows of 4 vectors) and every use of x and y in the body
lies in a scalar int32 expression of the form `y*A + x*B + R` (A, B and R
free of x and y; A and B also free of every name bound inside the loops)
with A == X*B: then that expression equals `t*B + R` for t = y*X + x,
which enumerates the iterations in the same order. `conds` are the equalities A == X*B that the
simplifier cannot decide, plus X >= 0 (so that Y*X is not positive when no
iteration runs) and Y*X < 2^31 computed in 64 bits, where these are not
constants. An equality the simplifier finds false, a use of x or y in any
other form (a bare x, a guard comparing x, a coefficient computed in the
loop), a non-zero loop minimum or a non-serial loop leaves the loops alone.
So does a buffer loaded at two points of one row (`a[y*A + x*B + R1]` and
`a[y*A + x*B + R2]` with R1 - R2 not 0 and free of the names in A and of
input strides (not another plane): a read at several x offsets, a stencil): its rows are wider than the loop's
extent, so A == X*B never holds for arrays laid out as NumPy's and
the copy would only cost compile time (harris's gradients).

Chains collapse from the outside in: z, y, x over a dense 3-D region become
one loop under the conjunction of both pairs' conditions. The else copy is
the original nest as it was. PYHALIDE_DEBUG=1 reports each collapse."""
from __future__ import annotations

import dataclasses

from pyhalide import ir
from pyhalide.ir.config import debug_print

from .simplify import simplify

_INT32 = ir.Int(32)
_INT64 = ir.Int(64)
_INT32_MAX = (1 << 31) - 1


def collapse_loops(stmt: ir.Stmt) -> ir.Stmt:
    """Collapse dense loop nests of symbolic inner extent (module docstring)."""
    return _Collapser().mutate(stmt)


class _Collapser(ir.Mutator):
    stmts_only = True

    def visit_For(self, s):
        loop, conds = s, []
        while True:
            step = _collapse_pair(loop)
            if step is None:
                break
            loop, new_conds = step
            conds += new_conds
        if loop is s:
            body = self.mutate(s.body)
            return s if body is s.body else dataclasses.replace(s, body=body)
        loop = dataclasses.replace(loop, body=self.mutate(loop.body))
        original = s          # (the conditions usually fail together: one copy more is enough)
        debug_print(1, f"collapse loops: {s.name} ... into {loop.name} "
                       f"({len(conds)} run-time conditions)")
        cond = ir.conjunction(conds)
        return loop if cond is None else ir.IfThenElse(cond, loop, original)


def _collapse_pair(outer: ir.For):
    """(the collapsed loop, its run-time conditions) for `outer` and the loop
    that is its whole body, or None."""
    inner = outer.body
    if not (isinstance(inner, ir.For) and outer.kind == ir.ForKind.SERIAL
            and inner.kind == ir.ForKind.SERIAL and ir.is_const(outer.min, 0)
            and ir.is_const(inner.min, 0)):
        return None
    X, Y = inner.extent, outer.extent
    if isinstance(simplify(X), ir.Const) or ir.uses_var(X, outer.name):
        return None
    bound = _names_bound_in(inner)
    if any(n in bound for n in ir.free_vars([X, Y])):
        return None
    t = ir.Variable(_INT32, f"{outer.name}*{inner.name}")
    rewrite = _Rewrite(outer.name, inner.name, t, X, bound)
    body = rewrite.mutate(inner.body)
    if rewrite.failed or not rewrite.used or rewrite.row_offsets():
        return None
    conds = []
    for c in rewrite.equalities + [ir.GE(X, ir.index(0)), _no_overflow(X, Y)]:
        c = simplify(c)
        if ir.is_const(c, False):
            return None
        if not ir.is_const(c, True):
            conds.append(c)
    extent = simplify(ir.Mul(Y, X))
    return ir.For(t.name, ir.index(0), extent, ir.ForKind.SERIAL, body), conds


def _no_overflow(X, Y) -> ir.Expr:
    wide = ir.Mul(ir.Cast(_INT64, Y), ir.Cast(_INT64, X))
    return ir.LE(wide, ir.const(_INT64, _INT32_MAX))


def _names_bound_in(s) -> set:
    names = set()

    class V(ir.Visitor):
        def visit_For(self, n):
            names.add(n.name)
            self.visit_children(n)

        def visit_LetStmt(self, n):
            names.add(n.name)
            self.visit_children(n)

        def visit_Let(self, n):
            names.add(n.name)
            self.visit_children(n)

    V().visit(s)
    return names


class _Rewrite(ir.Mutator):
    """Rewrites each maximal int32 expression `y*A + x*B + R` of the body to
    `t*B + R`, recording A == X*B; `failed` when x or y appear otherwise."""

    def __init__(self, y: str, x: str, t: ir.Variable, X: ir.Expr, bound: set):
        super().__init__()
        self.y, self.x, self.t, self.X, self.bound = y, x, t, X, bound
        self.equalities: list = []
        self.failed = False
        self.used = False
        self._pair = frozenset((x, y))
        self._names: dict = {}          # ir.mentioned_names memo
        self._loads: dict = {}          # buffer name -> [(A, B, R)] of its loads

    def row_offsets(self) -> bool:
        """Whether a buffer is loaded at two points of one row: the same A
        and B, remainders differing by a non-zero amount free of A's names."""
        for parts in self._loads.values():
            for i, (a1, b1, r1) in enumerate(parts):
                for a2, b2, r2 in parts[i + 1:]:
                    if not (ir.equal(a1, a2) and ir.equal(b1, b2)):
                        continue
                    d = simplify(ir.Sub(r1, r2))
                    names = set(ir.free_vars([d]))
                    if not ir.is_const(d, 0) and names.isdisjoint(ir.free_vars([a1])) and \
                            not any(".stride." in n for n in names):
                        return True
        return False

    def uses(self, e) -> bool:
        """Whether e mentions x or y."""
        return not self._pair.isdisjoint(ir.mentioned_names(e, self._names))

    def mutate(self, n):
        if self.failed or not isinstance(n, ir.Expr):
            return super().mutate(n)
        if not self.uses(n):
            return n
        if isinstance(n, ir.Load) and n.index.type == _INT32:
            parts = self.split(n.index)
            if parts is not None and None not in parts[:2]:
                self._loads.setdefault(n.name, []).append(
                    (simplify(parts[0]), simplify(parts[1]),
                     ir.index(0) if parts[2] is None else parts[2]))
        if n.type == _INT32:
            parts = self.split(n)
            if parts is not None:
                return self._collapsed(*parts)
        if isinstance(n, ir.Variable):           # a bare use in another type
            self.failed = True
            return n
        return super().mutate(n)

    def _collapsed(self, A, B, R):
        if A is None or B is None or any(name in self.bound for name in ir.free_vars([A, B])):
            self.failed = True
            return R if R is not None else ir.index(0)
        self.used = True
        self.equalities.append(ir.EQ(A, ir.Mul(self.X, B)))
        term = ir.Mul(self.t, B)
        return term if R is None else ir.Add(term, R)

    def split(self, e):
        """(A, B, R) with e == y*A + x*B + R and A, B, R free of x and y
        (None for zero), or None where e is not of that form."""
        if not self.uses(e):
            return None, None, e
        if isinstance(e, ir.Variable):
            return (ir.index(1), None, None) if e.name == self.y else (None, ir.index(1), None)
        if isinstance(e, (ir.Add, ir.Sub)):
            a, b = self.split(e.a), self.split(e.b)
            if a is None or b is None:
                return None
            op = ir.Add if isinstance(e, ir.Add) else ir.Sub
            return tuple(_combine(op, p, q) for p, q in zip(a, b))
        if isinstance(e, ir.Mul):
            for var_side, k in ((e.a, e.b), (e.b, e.a)):
                if not self.uses(k):
                    parts = self.split(var_side)
                    if parts is None:
                        return None
                    return tuple(None if p is None else ir.Mul(p, k) for p in parts)
        return None


def _combine(op, p, q):
    if q is None:
        return p
    if p is None:
        return q if op is ir.Add else ir.Sub(ir.index(0), q)
    return op(p, q)
