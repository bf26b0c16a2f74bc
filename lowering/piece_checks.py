"""A loop's iterations where its index checks hold, as their own loop.

    split_at_checks(loop) -> stmt

A piece of a split loop (split_permuted_loops.py) still holds the access
checks of the update it was cut from: LU's `assert(j + 1 < a.extent.0,
IndexError ...)` (the array is not known square) and the clamp
`max(min(select(j + 1 < a.extent.0, j + 1, -1), a.extent.0 - 1), 0)`
beside each load and store. An assert in a loop stops LLVM's vectorizer.
Every assert of the body whose condition (its lets substituted) is an
integer comparison of `v + r` with a bound (r and the bound not reading v
nor memory) holds for v in one range [L, U); their intersection with the
loop's range [min, end) runs as its own loop, in which those asserts are
removed and every comparison equal to one of their conditions (after
substituting the lets) is true; the iterations before and after it run the
body as it was. Asserts whose condition and arguments do not read v nor
memory nor a name bound in the body are made once before that middle loop
(where it runs): every assert of its body comes before its first store,
and the removed ones hold, so its first iteration would have stopped at
the first of them that fails, having stored nothing."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.ops import reads_memory, substitute_exprs

from .hoist_piece_loads import inline_lets
from .simplify import simplify

_ORDER = (ir.LT, ir.LE, ir.GT, ir.GE)


def split_at_checks(loop: ir.For) -> ir.Stmt:
    walk = _Body()
    walk.visit(loop.body)
    if not walk.ok or not walk.asserts:
        return loop
    v = loop.name
    inline = _inliner(walk.lets)
    var = ir.Variable(loop.min.type, v)
    lo, hi = loop.min, ir.Add(loop.min, loop.extent)
    facts, moved, lows, highs = [], [], [loop.min], []
    for a in walk.asserts:
        c = inline(a.condition)
        if c is None:
            return loop
        rng = _range(c, var)
        if rng is not None:
            facts.append(c)
            if rng[0] is not None:
                lo = ir.Max(lo, rng[0])
                lows.append(rng[0])
            if rng[1] is not None:
                hi = ir.Min(hi, rng[1])
                highs.append(rng[1])
        elif not reads_memory(c) and _invariant([c] + [inline(x) for x in a.args], v,
                                                walk.bound):
            moved.append((a, ir.AssertStmt(c, a.error, a.message,
                                           tuple(inline(x) for x in a.args))))
        else:
            return loop
    if not facts:
        return loop
    if len(lows) > 1:
        lo = ir.Min(lo, ir.Add(loop.min, loop.extent))
    lo = simplify(lo)
    hi = simplify(ir.Max(hi, lo))
    end = ir.Add(loop.min, loop.extent)
    # (the moved asserts' conditions hold in the middle loop too)
    body = _Checked(facts + [m.condition for _, m in moved], inline,
                    {id(a) for a in walk.asserts}, var, lows, highs).mutate(loop.body)
    ext = simplify(ir.Sub(hi, lo))
    middle = ir.For(v, lo, ext, loop.kind, body)
    if moved:
        middle = ir.block(*[m for _, m in moved], middle)
    middle = ir.IfThenElse(ir.GT(ext, ir.Const(ext.type, 0)), middle, None)
    return ir.block(ir.For(v, loop.min, simplify(ir.Sub(lo, loop.min)), loop.kind, loop.body),
                    middle,
                    ir.For(v, hi, simplify(ir.Sub(end, hi)), loop.kind, loop.body))


def _inliner(lets):
    return lambda e: inline_lets(e, lets)


def _invariant(exprs, v, bound) -> bool:
    for e in exprs:
        if e is None:
            return False
        names = ir.free_vars(e)
        if v in names or any(n in bound for n in names):
            return False
    return True


def _range(c, var):
    """(L or None, U or None): c holds exactly for L <= v < U, where c is an
    int32 comparison of v + r with a bound not reading v (None: not such)."""
    if not isinstance(c, _ORDER) or not c.a.type.is_scalar() or not c.a.type.is_int() or \
            c.a.type != var.type or reads_memory(c):
        return None
    a, b, op = c.a, c.b, type(c)
    v = var.name
    if v in ir.free_vars(b):            # bound on the left: mirror the comparison
        a, b = b, a
        op = {ir.LT: ir.GT, ir.LE: ir.GE, ir.GT: ir.LT, ir.GE: ir.LE}[op]
    if v in ir.free_vars(b):
        return None
    r = simplify(ir.Sub(a, var))
    if v in ir.free_vars(r):
        return None
    k = simplify(ir.Sub(b, r))           # v op k
    one = ir.Const(k.type, 1)
    if op is ir.LT:
        return None, k
    if op is ir.LE:
        return None, simplify(ir.Add(k, one))
    if op is ir.GT:
        return simplify(ir.Add(k, one)), None
    return k, None


def _at_most(a, b) -> bool:
    """a <= b, proven: their difference simplifies to a constant, or their
    constant bounds (_least / _most) order them."""
    d = simplify(ir.Sub(b, a))
    if isinstance(d, ir.Const):
        return d.value >= 0
    hi, lo = _most(a), _least(b)
    return hi is not None and lo is not None and hi <= lo


def _least(e):
    """A constant lower bound of e from its max/min/+ constant structure."""
    return _const_bound(e, 1)


def _most(e):
    """A constant upper bound of e (as _least)."""
    return _const_bound(e, -1)


def _const_bound(e, sign):
    """sign 1: a constant lower bound of e; -1: an upper bound (None: not
    found). Over `sign * e` a max (min for -1) takes the better bound
    known, a min (max) needs both."""
    e = simplify(e)
    if isinstance(e, ir.Const):
        return e.value
    wide, narrow = (ir.Max, ir.Min) if sign > 0 else (ir.Min, ir.Max)
    pick = max if sign > 0 else min
    other = min if sign > 0 else max
    if isinstance(e, wide):
        got = [x for x in (_const_bound(e.a, sign), _const_bound(e.b, sign)) if x is not None]
        return pick(got) if got else None
    if isinstance(e, narrow):
        a, b = _const_bound(e.a, sign), _const_bound(e.b, sign)
        return None if a is None or b is None else other(a, b)
    if isinstance(e, ir.Add) and isinstance(e.b, ir.Const):
        a = _const_bound(e.a, sign)
        return None if a is None else a + e.b.value
    return None


class _Body(ir.Visitor):
    """The body's asserts (in order, each before any store, outside any
    conditional part) and lets; ok: no loop, no `if`."""

    def __init__(self):
        super().__init__()
        self.asserts, self.lets, self.bound, self.ok, self.stored = [], {}, set(), True, False

    def visit_AssertStmt(self, op):
        self.ok = self.ok and not self.stored
        self.asserts.append(op)

    def visit_Store(self, op):
        self.stored = True
        self.visit_children(op)

    def visit_LetStmt(self, op):
        self.ok = self.ok and op.name not in self.lets
        self.lets[op.name] = op.value
        self.bound.add(op.name)
        self.visit_children(op)

    def visit_Let(self, op):
        self.ok = self.ok and op.name not in self.lets
        self.lets[op.name] = op.value
        self.bound.add(op.name)
        self.visit_children(op)

    def visit_Call(self, op):
        if op.call_type != ir.INTRINSIC:
            self.ok = False
        self.visit_children(op)

    def visit_IfThenElse(self, op):
        self.ok = False

    def visit_For(self, op):
        self.ok = False


class _Checked(ir.Mutator):
    """The asserts `drop` removed; comparisons equal to a fact (lets
    substituted) true; `min(A, B - 1)` for a fact `A < B` not reading v, A;
    `min(v + r, B)` (`max(v + r, A)`) whose v + r is
    proven <= B (>= A) over the middle loop's range, from v < U for a U of
    `highs` (v >= L for an L of `lows`), that side."""

    def __init__(self, facts, inline, drop, var, lows, highs):
        super().__init__()
        self.facts, self.inline, self.drop = facts, inline, drop
        self.var, self.lows, self.highs = var, lows, highs

    def _known(self, e):
        """e with its lets substituted and the facts true, simplified (None:
        too deep or reading memory)."""
        e = self.inline(e)
        if e is None or reads_memory(e):
            return None
        return simplify(substitute_exprs(e, [(f, ir.Const(ir.Bool(), True))
                                             for f in self.facts]))

    def _offset(self, e):
        """r where e (lets substituted, the facts true) is v + r, else None."""
        e = self._known(e)
        if e is None or e.type != self.var.type:
            return None
        r = simplify(ir.Sub(e, self.var))
        return None if self.var.name in ir.free_vars(r) else r

    def _bound(self, e):
        e = self.inline(e)
        ok = e is not None and not reads_memory(e) and self.var.name not in ir.free_vars(e)
        return e if ok else None

    def visit_Min(self, op):
        op = self.mutate_children(op)
        for f in self.facts:        # min(A, B - 1) where A < B holds
            if isinstance(f, ir.LT) and self.var.name not in ir.free_vars(f) and \
                    ir.equal(self._known(op.a), f.a) and \
                    _at_most(op.b, ir.Sub(f.b, ir.Const(f.b.type, 1))) and \
                    _at_most(ir.Sub(f.b, ir.Const(f.b.type, 1)), op.b):
                return op.a
        for a, b in ((op.a, op.b), (op.b, op.a)):
            r, bound = self._offset(a), self._bound(b)
            if r is not None and bound is not None and any(
                    _at_most(ir.Sub(ir.Add(u, r), ir.Const(r.type, 1)), bound)
                    for u in self.highs):
                return a
        return op

    def visit_Max(self, op):
        op = self.mutate_children(op)
        for a, b in ((op.a, op.b), (op.b, op.a)):
            r, bound = self._offset(a), self._bound(b)
            if r is not None and bound is not None and any(
                    _at_most(bound, ir.Add(low, r)) for low in self.lows):
                return a
        return op

    def visit_AssertStmt(self, op):
        return ir.Evaluate(ir.Const(ir.Int(32), 0)) if id(op) in self.drop else op  # (no-op)

    def _compare(self, op):
        op = self.mutate_children(op)
        e = self.inline(op)
        if e is not None and any(ir.equal(e, f) for f in self.facts):
            return ir.Const(ir.Bool(), True)
        return op

    visit_LT = visit_LE = visit_GT = visit_GE = _compare
