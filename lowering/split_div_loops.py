"""Repeated indices: an innermost serial loop over v whose body reads at
`v / d` or `min(v, K) / d` (np.repeat's `x[j // r]`, d and K invariant in
the loop, d >= 1) runs as a loop over the quotient q around a loop over the
v of that quotient, so the read is invariant in the inner loop (a broadcast
instead of a gather per vector).

    split_div_loops(stmt) -> stmt

For `for (v, m, e) body` with such int32 terms of one divisor d (`max(X,
c)` with a constant c >= 1, or a constant >= MIN_D; Div is floor division
for d >= 1, so `min(v, K) / d == min(v / d, K / d)`):

    let v.dv_d = d
    if (MIN_D <= v.dv_d) {                (no test for a constant d)
      let v.dv_end = m + max(e, 0)
      for (v.dv_q, m / d, select(0 < e, (v.dv_end - 1) / d - m / d + 1, 0)) {
        let v.dv_lo = int32(max(int64(q) * int64(d), int64(m)))
        let v.dv_hi = int32(min(int64(q) * int64(d) + int64(d), int64(v.dv_end)))
        for (v, v.dv_lo, v.dv_hi - v.dv_lo) {body, v / d -> q,
                                             min(v, K) / d -> min(q, K / d)}
      }
    } else {the loop unchanged}

The inner loops cover [m, m + e) once, in order, so every statement of the
body (its checks included) runs as before. Where m is a constant >= 0, v >=
0 in the body, and `min(v, c)` (c <= 0, the frontend's anchor of a clamped
index: frontend_ast/array_shape.clamp_index) is c, `min(min(v, X), c)` is
`min(X, c)`. A divisor below MIN_D leaves inner loops too short to pay;
loops whose body exceeds split_mod_loops' node limit, or leaves a loop
early (LoopExit), are left alone.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.ops import equal, reads_memory, substitute_exprs

from .simplify import simplify
from .split_mod_loops import InnermostLoops, bound_names

MIN_D = 16
_I64 = ir.Int(64)
_I32 = ir.Int(32)


def split_div_loops(stmt: ir.Stmt) -> ir.Stmt:
    return _Split().mutate(stmt)


class _Split(InnermostLoops):
    """Splits the innermost serial loops."""

    KINDS = (ir.ForKind.SERIAL,)

    def split(self, s):
        divs = _Divs(s.name)
        divs.visit(s.body)
        if not divs.found or divs.exits:
            return s
        bound = bound_names(s)
        if bound is None:
            return s
        terms = _terms(divs.found, s.name, bound)
        return _pieces(s, terms) if terms else s


class _Divs(ir.Visitor):
    """The int32 scalar Divs whose dividend mentions the loop variable, and
    whether the body leaves a loop early (LoopExit: the outer loop of the
    split would go on)."""

    def __init__(self, v: str):
        super().__init__()
        self.v, self.found, self.exits = v, [], False

    def visit_LoopExit(self, s):
        self.exits = True

    def visit_Div(self, e):
        if e.type == _I32 and self.v in ir.free_vars(e.a):
            self.found.append(e)
        self.visit_children(e)


def _positive(d) -> bool:
    """d >= 1 for any value of its operands: a constant >= MIN_D, or
    max(X, c) with a constant c >= 1."""
    if isinstance(d, ir.Const):
        return d.value >= MIN_D
    return isinstance(d, ir.Max) and any(isinstance(x, ir.Const) and x.value >= 1
                                         for x in (d.a, d.b))


def _terms(divs: list, v: str, bound: set) -> list:
    """[(div, K or None)] of the divisions v / d and min(v, K) / d by the
    first such divisor d (K and d depend on nothing the loop binds)."""
    out, d = [], None
    for t in divs:
        if d is not None and not equal(t.b, d):
            continue
        a, k = t.a, None
        if isinstance(a, ir.Min):
            for x, y in ((a.a, a.b), (a.b, a.a)):
                if isinstance(x, ir.Variable) and x.name == v:
                    a, k = x, y
                    break
        if not (isinstance(a, ir.Variable) and a.name == v):
            continue
        if k is not None and (reads_memory(k) or set(ir.free_vars(k)) & bound):
            continue
        if d is None:
            if not _positive(t.b) or reads_memory(t.b) or set(ir.free_vars(t.b)) & bound:
                continue
            d = t.b
        out.append((t, k))
    return out


def _pieces(s: ir.For, terms: list) -> ir.Stmt:
    v = s.name
    d_name, end_name, q_name = f"{v}.dv_d", f"{v}.dv_end", f"{v}.dv_q"
    lo_name, hi_name = f"{v}.dv_lo", f"{v}.dv_hi"
    d, end = ir.Variable(_I32, d_name), ir.Variable(_I32, end_name)
    q, lo, hi = (ir.Variable(_I32, n) for n in (q_name, lo_name, hi_name))
    subs = [(t, q if k is None else ir.Min(q, ir.Div(k, d))) for t, k in terms]
    inner = substitute_exprs(s.body, subs)
    if isinstance(s.min, ir.Const) and s.min.value >= 0:
        inner = _NonNegative(v).mutate(inner)
    first = ir.index(0) if ir.is_const(s.min, 0) else simplify(ir.Div(s.min, d))
    count = simplify(ir.Select(ir.LT(ir.index(0), s.extent),
                      ir.Add(ir.Sub(ir.Div(ir.Sub(end, ir.index(1)), d), first), ir.index(1)),
                      ir.index(0)))
    qd = ir.Mul(ir.Cast(_I64, q), ir.Cast(_I64, d))
    lo_v = simplify(ir.Cast(_I32, ir.Max(qd, ir.Cast(_I64, s.min))))
    hi_v = simplify(ir.Cast(_I32, ir.Min(ir.Add(qd, ir.Cast(_I64, d)), ir.Cast(_I64, end))))
    inner_loop = ir.For(v, lo, ir.Sub(hi, lo), s.kind, inner)
    outer = ir.For(q_name, first, count, ir.ForKind.SERIAL,
                   ir.LetStmt(lo_name, lo_v, ir.LetStmt(hi_name, hi_v, inner_loop)))
    split = ir.LetStmt(end_name, simplify(ir.Add(s.min, ir.Max(s.extent, ir.index(0)))), outer)
    if not isinstance(terms[0][0].b, ir.Const):
        split = ir.IfThenElse(ir.LE(ir.index(MIN_D), d), split, s)
    return ir.LetStmt(d_name, terms[0][0].b, split)


class _NonNegative(ir.Mutator):
    """The body of a loop over v >= 0: min(v, c) with a constant c <= 0 is
    c, and min(min(v, X), c) is min(X, c)."""

    memoize = False

    def __init__(self, v: str):
        super().__init__()
        self.v = v

    def _is_v(self, e) -> bool:
        return isinstance(e, ir.Variable) and e.name == self.v

    def visit_Min(self, e):
        r = self.mutate_children(e)
        if not isinstance(r, ir.Min):
            return r
        for x, c in ((r.a, r.b), (r.b, r.a)):
            if not (isinstance(c, ir.Const) and c.value <= 0):
                continue
            if self._is_v(x):
                return c
            if isinstance(x, ir.Min):
                for y, z in ((x.a, x.b), (x.b, x.a)):
                    if self._is_v(y):
                        return ir.Min(z, c)
        return r
