"""Constant upper bounds of allocation sizes, for codegen (which puts an
allocation with a small bound on the stack).

    allocation_bounds(stmt) -> {id(Allocate node): int}

maps each Allocate whose element count prod(extents) has a constant upper
bound to that bound (in elements of its type); others are absent. The usual
case is the storage of a Func computed at a tile of its consumer: its
extent, e.g. `min(t + 255, last) - max(t, 0) + 1` with t the tile's start,
is symbolic but never above the tile size. Interval arithmetic loses that
(it bounds t and t separately); here a difference a - b is bounded by
comparing the expressions known to be >= a (the arms of a min, through lets
and added terms) with those known to be <= b (the arms of a max), as linear
forms: `(t + 255) - t` is the constant 255. A difference one side of which
is a select is bounded over the select's two arms.

The bounds assume, as bounds inference does, that index arithmetic does not
overflow int32; codegen checks the actual size against the bound at run
time anyway, so a bound that does not hold costs only a heap allocation.
"""
from __future__ import annotations

from pyhalide import ir

from .linear import linear_form

MAX_FORMS = 16          # expressions kept per side when bounding a difference
# differences bounded per extent (pairs of select arms): past it, the rest
# have no bound (a heap allocation). Bounds inference's regions of a phase-mode
# nest (cma_pt) are selects of selects on both sides of a difference: 10,514
# pairs per extent, 16 extents, ~1 s of codegen, none of them bounded.
MAX_DIFFERENCES = 1000
_I32 = ir.Int(32)


def allocation_bounds(stmt: ir.Stmt) -> dict:
    """{id(Allocate): constant upper bound of its element count}."""
    w = _Walker()
    w.walk(stmt)
    return w.bounds


class _Walker:
    def __init__(self):
        self.lets: dict = {}        # name -> stack of let values (None: not a let)
        self.bounds: dict = {}

    def walk(self, s):
        if isinstance(s, (ir.LetStmt, ir.For)):
            name = s.name
            value = s.value if isinstance(s, ir.LetStmt) else None
            self.lets.setdefault(name, []).append(value)
            try:
                self.walk(s.body)
            finally:
                stack = self.lets[name]
                stack.pop()
                if not stack:
                    del self.lets[name]
            return
        if isinstance(s, ir.Allocate):
            total = 1
            for e in s.extents:
                b = _Bounds(self.lets).upper(e)
                if b is None:
                    total = None
                    break
                total *= max(b, 0)
            if total is not None:
                old = self.bounds.get(id(s))
                self.bounds[id(s)] = total if old is None else max(old, total)
            self.walk(s.body)
            return
        for c in ir.children(s):
            if isinstance(c, ir.Stmt):
                self.walk(c)


class _Bounds:
    """Constant bounds of int32 expressions under the enclosing lets. A let
    is looked through only while its name is bound once (not shadowed), so
    that the names its value uses mean what they meant at the let."""

    def __init__(self, lets: dict):
        self.lets = lets
        self.memo: dict = {}
        self.budget = MAX_DIFFERENCES

    def _let(self, e):
        if isinstance(e, ir.Variable):
            stack = self.lets.get(e.name)
            if stack and len(stack) == 1 and stack[0] is not None \
                    and stack[0].type == e.type:
                return stack[0]
        return None

    def upper(self, e):
        return self._bound(e, True)

    def lower(self, e):
        return self._bound(e, False)

    def _bound(self, e, up: bool):
        if e.type != _I32:
            return None
        key = (id(e), up)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        v = self._compute(e, up)
        self.memo[key] = (e, v)
        return v

    def _compute(self, e, up):
        same, other = (self.upper, self.lower) if up else (self.lower, self.upper)
        if isinstance(e, ir.Const):
            return e.value
        value = self._let(e)
        if value is not None:
            return self._bound(value, up)
        if isinstance(e, ir.Add):
            a, b = same(e.a), same(e.b)
            return None if a is None or b is None else a + b
        if isinstance(e, ir.Sub):
            return self._sub(e.a, e.b, up)
        if isinstance(e, ir.Mul) and isinstance(e.b, ir.Const):
            a = (same if e.b.value >= 0 else other)(e.a)
            return None if a is None else a * e.b.value
        if isinstance(e, (ir.Min, ir.Max)):
            a, b = same(e.a), same(e.b)
            if (isinstance(e, ir.Min) == up):       # an upper bound of a min, a lower of a max
                known = [x for x in (a, b) if x is not None]
                return (min(known) if up else max(known)) if known else None
            if a is None or b is None:
                return None
            return max(a, b) if up else min(a, b)
        if isinstance(e, ir.Select):
            a, b = same(e.true_value), same(e.false_value)
            if a is None or b is None:
                return None
            return max(a, b) if up else min(a, b)
        if isinstance(e, ir.Div) and isinstance(e.b, ir.Const) and e.b.value > 0:
            a = same(e.a)
            return None if a is None else a // e.b.value
        return None

    def _sub(self, a, b, up):
        """The bound of a - b, memoized by the operands (the differences over
        select arms are pairs of existing nodes: nested selects on both
        sides are bounded once per pair of arms, not once per path to it)."""
        key = (id(a), id(b), up)
        hit = self.memo.get(key)
        if hit is not None and hit[0] is a and hit[1] is b:
            return hit[2]
        self.budget -= 1
        v = self._sub_compute(a, b, up) if self.budget >= 0 else None
        self.memo[key] = (a, b, v)
        return v

    def _sub_compute(self, a, b, up):
        x, y = self._bound(a, up), self._bound(b, not up)
        if x is not None and y is not None:
            return x - y
        arms = self._select_arms(a, b)
        if arms is not None:
            bounds = [self._sub(p, q, up) for p, q in arms]
            return None if None in bounds else (max(bounds) if up else min(bounds))
        return self._difference(a, b, up)

    def _select_arms(self, a, b):
        """((a', b'), (a'', b'')): the operands of a - b over the two arms of
        a select that a or b is (through lets), or None. The extent of a
        Func computed per iteration of a loop over r is `select(c, r, r - 1)
        - r + 1` (c: the loop runs at all): each arm's difference is a
        constant."""
        for e, left in ((a, True), (b, False)):
            value = e
            while value is not None and not isinstance(value, ir.Select):
                value = self._let(value)
            if value is not None:
                arms = (value.true_value, value.false_value)
                return tuple((x, b) if left else (a, x) for x in arms)
        return None

    def _difference(self, a, b, up):
        """A constant bound of a - b from forms u >= a, l <= b (up) or
        u <= a, l >= b (not up) whose difference is a constant: u and l
        have the same non-constant part as linear forms."""
        lows = {}
        for l in self._forms(b, not up):
            lf = linear_form(l)
            lows.setdefault(lf.nonconst_key(), []).append(lf.const)
        best = None
        pick = min if up else max
        for u in self._forms(a, up):
            lf = linear_form(u)
            for c in lows.get(lf.nonconst_key(), ()):
                d = lf.const - c
                best = d if best is None else pick(best, d)
        return best

    def _forms(self, e, up):
        """Expressions f with e <= f (up) or e >= f (not up), e first."""
        key = (id(e), up, "forms")
        hit = self.memo.get(key)
        if hit is not None and hit[0] is e:
            return hit[1]
        out = self._forms_of(e, up)[:MAX_FORMS]
        self.memo[key] = (e, out)
        return out

    def _forms_of(self, e, up):
        out = [e]
        value = self._let(e)
        if value is not None:
            out += self._forms(value, up)
        elif isinstance(e, ir.Min if up else ir.Max):
            out += self._forms(e.a, up) + self._forms(e.b, up)
        elif isinstance(e, ir.Add):
            out += [ir.Add(f, e.b) for f in self._forms(e.a, up)[1:]]
            out += [ir.Add(e.a, f) for f in self._forms(e.b, up)[1:]]
        elif isinstance(e, ir.Sub):
            out += [ir.Sub(f, e.b) for f in self._forms(e.a, up)[1:]]
            out += [ir.Sub(e.a, f) for f in self._forms(e.b, not up)[1:]]
        return out
