"""Simplify clamps and comparisons in exiting loops from what the loop
ranges and the enclosing conditions say.

    loop_range_facts(stmt) -> stmt

Inside `for (v, lo, ext)` the body runs with lo <= v <= lo + ext - 1 and
ext >= 1 (for ext = max(X, 0): v <= lo + X - 1 and X >= 1). Inside the then
branch of `if (c)`, the true arm of `select(c, a, b)` / `if_then_else(c, a,
b)` and the false arms of the same (`!c`), the integer comparisons of c
hold (a conjunction gives each conjunct; `select(c, a, c)` and `select(c,
a, false)` give c and a).
Each fact is kept as `p >= 0` with p an int32 linear expression; facts
reading memory are dropped (a store in the branch could change them).

An int32 `min(a, b)` / `max(a, b)` becomes the side the facts prove
smaller / larger, and an int32 order comparison proven true or false
becomes that constant. A proof of `p >= 0`: p minus at most two facts,
each loop variable then replaced by the end of its range that lowers the
sum (by the sign of its coefficient in the linear form), and each term
`max(X, k)` / `min(X, k)` with k a constant by k where that lowers it
(an argument assumed >= 0 is `max(P, 0)`: frontend_ast/nonneg_params.py),
must simplify to a constant >= 0. As bounds inference, it reasons about index arithmetic as
if it did not overflow (the Funcs' index overflow asserts check it).

It runs only on statements that hold a `LoopExit` (the shifting `while`
loops of frontend_ast/while_exit_write.py): there the merged Func's
positions are clamped with `max(min(t, n - 1), 0)` and Python's
negative-index wrap is a select, both provable from the loop bounds (t <=
i - 2 with i <= n - 1) and the loop's own test (`t >= 0`), which LLVM does
not derive because the extent's sign is not known. Insertion sort's
shift then loads and stores `a[t]` with no clamp."""
from __future__ import annotations

import itertools

from pyhalide import ir
from pyhalide.ir.mutator import Mutator
from pyhalide.ir.ops import reads_memory

from .linear import linear_form
from .simplify import simplify

_I32 = ir.Int(32)
_MAX_SCOPES = 2000    # scopes (each with its own memo) past these add no facts
_MAX_PROOFS = 20000   # proofs past these fail (compile time on large loop nests)
_MAX_FACTS = 6        # facts in scope beyond these are not used (proofs only get weaker)
_ORDER = (ir.LT, ir.LE, ir.GT, ir.GE)


def loop_range_facts(stmt: ir.Stmt) -> ir.Stmt:
    if not has_loop_exit(stmt):
        return stmt
    return _Facts().mutate(stmt)


def has_loop_exit(s) -> bool:
    """Whether the statement s holds a LoopExit."""
    if isinstance(s, ir.LoopExit):
        return True
    return any(isinstance(c, ir.Stmt) and has_loop_exit(c) for c in ir.children(s))


def _k(v: int) -> ir.Expr:
    return ir.Const(_I32, v)


def _minus(a, b) -> ir.Expr:
    return ir.Sub(a, b)


def _is_i32(e) -> bool:
    return e.type == _I32


def _nonneg(cmp, truth: bool):
    """p with `cmp == truth` <=> p >= 0, for an int32 order comparison."""
    a, b = cmp.a, cmp.b
    if isinstance(cmp, ir.LT):
        p, q = _minus(_minus(b, a), _k(1)), _minus(a, b)    # a < b  /  a >= b
    elif isinstance(cmp, ir.LE):
        p, q = _minus(b, a), _minus(_minus(a, b), _k(1))
    elif isinstance(cmp, ir.GT):
        p, q = _minus(_minus(a, b), _k(1)), _minus(b, a)
    else:
        p, q = _minus(a, b), _minus(_minus(b, a), _k(1))
    return p if truth else q


def _facts_of(c, truth: bool) -> list:
    """Facts p >= 0 that hold where the bool c is `truth`."""
    if isinstance(c, ir.Not):
        return _facts_of(c.a, not truth)
    if isinstance(c, ir.And) and truth or isinstance(c, ir.Or) and not truth:
        return _facts_of(c.a, truth) + _facts_of(c.b, truth)
    if truth and isinstance(c, ir.Select) and (ir.equal(c.condition, c.false_value) or (
            isinstance(c.false_value, ir.Const) and not c.false_value.value)):
        return _facts_of(c.condition, True) + _facts_of(c.true_value, True)
    if isinstance(c, _ORDER) and _is_i32(c.a) and not reads_memory(c):
        return [_nonneg(c, truth)]
    return []


def _min_operands(e) -> list:
    """The operands X_k of an extent min(X_1, X_2, ...) (through `+ c` /
    `- c` with c a constant): the loop runs at most X_k times for each k."""
    if isinstance(e, ir.Min):
        return _min_operands(e.a) + _min_operands(e.b)
    if isinstance(e, (ir.Add, ir.Sub)) and isinstance(e.b, ir.Const):
        return [type(e)(x, e.b) for x in _min_operands(e.a)]
    return [e]


class _Facts(Mutator):
    def __init__(self):
        super().__init__()
        self.ranges = {}          # loop name -> (lo, hi)
        self.facts = []           # p (int32) with p >= 0
        self.key = ()             # the scope: the conditions (and loops) entered
        self.memos = {(): self.memo}  # scope -> its memo (a node is rewritten once per scope)
        self.fact_memo = {}       # (id(condition), truth) -> (condition, its facts)
        self.proofs = 0

    def _facts(self, c, truth: bool) -> list:
        hit = self.fact_memo.get((id(c), truth))
        if hit is None or hit[0] is not c:
            hit = (c, _facts_of(c, truth))
            self.fact_memo[(id(c), truth)] = hit
        return hit[1]

    # ---- scopes ------------------------------------------------------------------------
    def _under(self, facts, fn, node, ranges=None, why=None):
        """fn(node) with facts and ranges added (past _MAX_SCOPES, with this
        scope's: fewer facts, still true there)."""
        if not facts and not ranges or len(self.memos) >= _MAX_SCOPES:
            return fn(node)
        old_f, old_r, old_m, old_k = self.facts, self.ranges, self.memo, self.key
        self.facts = (facts + old_f)[:_MAX_FACTS]
        if ranges:
            self.ranges = {**old_r, **ranges}
        self.key = old_k + (why,)
        self.memo = self.memos.setdefault(self.key, {})
        try:
            return fn(node)
        finally:
            self.facts, self.ranges, self.memo, self.key = old_f, old_r, old_m, old_k

    def visit_For(self, s):
        lo, ext = self.mutate(s.min), self.mutate(s.extent)     # (outside the loop)
        facts, ranges = [], None
        if _is_i32(lo) and _is_i32(ext):
            if isinstance(ext, ir.Max) and isinstance(ext.b, ir.Const) and ext.b.value == 0:
                ext = ext.a
            exts = _min_operands(ext)
            ranges = {s.name: (lo, _minus(ir.Add(lo, exts[0]), _k(1)))}
            v = ir.Variable(_I32, s.name)
            for k, e in enumerate(exts):
                if not reads_memory(e):
                    facts.append(_minus(e, _k(1)))
                    if k:           # (v <= lo + e - 1: another bound of the range)
                        facts.append(_minus(_minus(ir.Add(lo, e), _k(1)), v))
        body = self._under(facts, self.mutate, s.body, ranges, ('for', s.name))
        if body is s.body and lo is s.min and ext is s.extent:
            return s
        return ir.For(s.name, lo, self.mutate(s.extent), s.kind, body)

    def visit_IfThenElse(self, s):
        cond = self.mutate(s.condition)
        then = self._under(self._facts(cond, True), self.mutate, s.then_case,
                           why=(id(s.condition), True))
        other = None if s.else_case is None else \
            self._under(self._facts(cond, False), self.mutate, s.else_case,
                        why=(id(s.condition), False))
        if cond is s.condition and then is s.then_case and other is s.else_case:
            return s
        return ir.IfThenElse(cond, then, other)

    def visit_Select(self, e):
        c = self.mutate(e.condition)
        a = self._under(self._facts(c, True), self.mutate, e.true_value,
                        why=(id(e.condition), True))
        b = self._under(self._facts(c, False), self.mutate, e.false_value,
                        why=(id(e.condition), False))
        if c is e.condition and a is e.true_value and b is e.false_value:
            return e
        return ir.Select(c, a, b)

    def visit_Call(self, e):
        if e.name != "if_then_else" or len(e.args) != 3:
            return self.mutate_children(e)
        c0, a0, b0 = e.args
        c = self.mutate(c0)
        a = self._under(self._facts(c, True), self.mutate, a0, why=(id(c0), True))
        b = self._under(self._facts(c, False), self.mutate, b0, why=(id(c0), False))
        if c is c0 and a is a0 and b is b0:
            return e
        return ir.Call(e.type, e.name, (c, a, b), e.call_type, e.value_index, e.func)

    # ---- rewrites ----------------------------------------------------------------------
    def _minmax(self, e, is_min: bool):
        e = self.mutate_children(e)
        if not (self.ranges and _is_i32(e)):
            return e
        small, big = (e.a, e.b) if is_min else (e.b, e.a)
        if self._proves(_minus(big, small)):       # a <= b: min is a, max is b
            return e.a
        if self._proves(_minus(small, big)):
            return e.b
        return e

    def visit_Min(self, e):
        return self._minmax(e, True)

    def visit_Max(self, e):
        return self._minmax(e, False)

    def _compare(self, e):
        e = self.mutate_children(e)
        if not (self.ranges and _is_i32(e.a)) or reads_memory(e):
            return e
        if self._proves(_nonneg(e, True)):
            return ir.Const(ir.Bool(), True)
        if self._proves(_nonneg(e, False)):
            return ir.Const(ir.Bool(), False)
        return e

    visit_LT = visit_LE = visit_GT = visit_GE = _compare

    # ---- proofs ------------------------------------------------------------------------
    def _proves(self, p) -> bool:
        self.proofs += 1
        if self.proofs > _MAX_PROOFS or reads_memory(p):
            return False
        for k in range(3):
            for fs in itertools.combinations(self.facts, k):
                q = p
                for f in fs:
                    q = _minus(q, f)
                if self._lowest(q) >= 0:
                    return True
        return False

    def _lowest(self, q) -> float:
        """A constant lower bound of q from the loop ranges (-inf if none)."""
        for _ in range(4):
            q = simplify(q, assume_no_overflow=True)
            if isinstance(q, ir.Const):
                return q.value
            lf = linear_form(q)
            out = _k(lf.const)
            moved = False
            for atom, c in lf.terms.values():
                if c == 0:
                    continue
                term = atom
                if isinstance(atom, ir.Variable) and atom.name in self.ranges:
                    lo, hi = self.ranges[atom.name]
                    term = lo if c > 0 else hi
                    moved = True
                elif (k := _const_side(atom, ir.Max if c > 0 else ir.Min)) is not None:
                    term = k            # (max(X, k) >= k, min(X, k) <= k)
                    moved = True
                out = ir.Add(out, term if c == 1 else ir.Mul(term, _k(c)))
            if not moved:
                return float("-inf")
            q = out
        return float("-inf")


def _const_side(e, kind):
    """k where e is `kind(X, k)` (Max or Min) with k a constant, else None."""
    if isinstance(e, kind):
        for side in (e.b, e.a):
            if isinstance(side, ir.Const):
                return side
    return None
