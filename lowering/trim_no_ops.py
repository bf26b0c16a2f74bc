"""Trim serial loops to the iterations where their bodies can do something
(Halide's TrimNoOps), peeling the iterations their bodies single out.

A loop is eligible when it is serial, its extent is not a constant (a
tile's inner loop keeps its constant trip count for LLVM) and its body has
conditions without which it does nothing (`_conds`): under lets, an `if`
without else whose condition reads no memory (an RDom predicate, or the
slots of an imperative nest, frontend_ast/imperative_nests.py:
`q == m - 1 || q == m + E ? ... : q < i`), the conditions every statement
of a block shares, or those of an inner loop's body that do not use its
variable (LU's row loop: a peeled slot and the column loop, both under
`k < i`). Its range [lo, hi] is cut into pieces, each run in order:

- peel: where the body compares the loop variable for equality (== or !=)
  with a value e that does not change in the loop and e is lo (or hi),
  iteration lo (hi) becomes a piece of its own with the variable replaced
  by its value (run when lo <= hi); otherwise, once per loop, the range is
  split around e ([lo, e - 1], e, [e + 1, hi]: Gauss-Seidel's `j != i`);
- split where an index check changes: a comparison of the loop variable
  choosing a value inside `likely(...)` (pyhalide/checks.py: the index of a
  check image, 0 while the index is in range), or choosing a branch of a
  lazy select of the guard (imperative_writes.py's slots: `q < E ? <the
  loop's condition> : <the write's>`), cuts the range where it changes (at
  most MAX_PEELS peels and splits along one path);
- narrow: in a piece's body, what the piece's range decides is decided
  (`q == e` false for e outside [lo, hi], a comparison of q + k with an
  invariant true or false at both ends, `min(q + k, B)` -> `q + k` where
  hi + k <= B, `max(q + k, A)` likewise; `_le` proves through min/max),
  and the body is simplified;
- trim: the conditions that bound the loop variable (q + k compared with an
  invariant, lets substituted) shrink the piece's range; those of a single
  guard leave it, the others stay;
- drop: a piece whose body the narrowing makes a no-op is left out (a
  peeled `y == 0` leaves no loop over [1, hi] doing nothing);
- unrolled loops: one of a few iterations over serial loops is unrolled
  here when that lets its copies trim (trim_unrolled.py: phase mode's
  phase loop, whose selects on the phase hid each phase's guard);
- a loop with an exit of its own (LoopExit) is left alone: a piece
  would leave only itself;
- each piece loop loses its check-image selects (`select(check[i] != 0,
  0, v)` is v: the image holds 0 and the access check before the statement
  raises where the read would leave it) and is unswitched on lazy-select
  and `if` conditions that do not change in it (at most MAX_UNSWITCH deep).

Each step is exact for every range, empty ones included, under the
assumption bounds inference and partition_loops also make: 32-bit index
arithmetic of loop variables does not overflow. Pieces run the iterations
of the loop in the loop's order, so any body may be split this way; an
iteration dropped by the trim is one where the conditions are false (its
body does nothing).

PYHALIDE_DEBUG=1 reports each loop trimmed or peeled."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.check_images import CHECK_PREFIX
from pyhalide.ir.config import debug_print
from pyhalide.ir.ops import substitute_exprs

from .branch_facts import as_upper, conjuncts, int_compare
from .cold_copies import cold_copies, then_only
from .int_ranges import exact_range, loop_range
from .linear import atom_key, constant_difference
from .partition_loops import coefficient
from .simplify import is_noop, simplify
from .trim_limits import limit_of, split_guard, trim_forms
from .trim_unrolled import unrolled_copies

_INDEX = ir.index(0).type   # loop variables and the comparisons reasoned about
MAX_UNSWITCH = 2     # conditions a piece is unswitched on
MAX_PEELS = 6        # iterations peeled off, or splits, along one path of a loop


def trim_no_ops(stmt: ir.Stmt) -> ir.Stmt:
    """Trim and peel the eligible loops of stmt (see the module doc)."""
    return _Trimmer(cold_copies(stmt)).mutate(stmt)


def _s(e):
    return simplify(e, assume_no_overflow=True)


class _Trimmer(ir.Mutator):
    memoize = False

    def __init__(self, cold: dict):
        super().__init__()
        self.cold = cold
        # the ranges of the enclosing loops' variables and lets (int_ranges)
        self.scope = {}

    def visit_IfThenElse(self, s):
        if id(s) in self.cold:          # (cold_copies: left as it is)
            return then_only(self, s)
        return self.mutate_children(s)

    def mutate(self, n):
        # only loops change: expressions (DAGs that may share much) are not walked
        return n if isinstance(n, ir.Expr) else super().mutate(n)

    def _within(self, name, rng, stmt):
        """stmt mutated with `name` in the scope at rng."""
        old = self.scope.get(name)
        self.scope[name] = rng
        try:
            return self.mutate(stmt)
        finally:
            if old is None:
                del self.scope[name]
            else:
                self.scope[name] = old

    def visit_LetStmt(self, s):
        rng = exact_range(s.value, self.scope) if s.value.type.is_integer() else None
        if rng is None:
            return self.mutate_children(s)
        body = self._within(s.name, rng, s.body)
        return s if body is s.body else ir.LetStmt(s.name, s.value, body)

    def visit_For(self, s):
        copies = unrolled_copies(s, self.mutate)
        if copies is not None:
            debug_print(1, f"pyhalide: trim no-ops: unrolled loop {s.name}: {len(copies)} "
                           f"copies trimmed")
            return ir.block(*copies)
        body = self._within(s.name, loop_range(s.min, s.extent, self.scope), s.body)
        loop = s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        if not _eligible(loop):
            return loop
        lo = loop.min
        hi = _s(ir.Sub(ir.Add(loop.min, loop.extent), ir.index(1)))
        pieces = _pieces(dict(self.scope), loop, lo, hi, loop.body, MAX_PEELS)
        if len(pieces) == 1 and pieces[0] is None:
            return loop
        out = [p for p in pieces if p is not None]
        debug_print(1, f"pyhalide: trim no-ops: loop {loop.name}: {len(out)} piece(s)")
        return ir.block(*out) if out else ir.Evaluate(ir.index(0))


_PURE = ("if_then_else", "likely")


class _Reads(ir.Visitor):
    def __init__(self):
        super().__init__()
        self.found = False

    def visit_Load(self, n):
        self.found = True

    def visit_Call(self, n):
        if n.call_type == ir.INTRINSIC and n.name in _PURE:
            self.visit_children(n)
        else:
            self.found = True


def _reads_memory(e) -> bool:
    """Whether e loads or calls anything but the lazy select and `likely`."""
    v = _Reads()
    v.visit(e)
    return v.found


def _guard(body):
    """(lets outermost first, the guard's IfThenElse) of an eligible body, or
    None."""
    lets = []
    while isinstance(body, ir.LetStmt):
        lets.append((body.name, body.value))
        body = body.body
    if isinstance(body, ir.IfThenElse) and body.else_case is None and \
            not _reads_memory(body.condition):
        return lets, body
    return None


def _eligible(loop: ir.For) -> bool:
    """A serial loop of symbolic extent whose body has conditions, and no
    exit of its own (a piece would leave only itself: the later pieces
    would run)."""
    return loop.kind == ir.ForKind.SERIAL and not isinstance(_s(loop.extent), ir.Const) and \
        bool(_conds(loop.body)) and not _exits(loop.body, loop.name)


class _Exits(ir.Visitor):
    def __init__(self, name):
        super().__init__()
        self.name, self.found = name, False

    def visit_LoopExit(self, s):
        self.found = self.found or s.loop == self.name


def _exits(body, name: str) -> bool:
    v = _Exits(name)
    v.visit(body)
    return v.found


def _conds(s) -> list:
    """Conditions (reading no memory, over names in scope at s) without
    which Stmt s does nothing: the conjuncts of an `if` without else (with
    those of the `if`s it holds), those shared by every statement of a
    block, those of a loop's body that do not use its variable; lets are
    substituted into them. [] when there is none."""
    if isinstance(s, ir.LetStmt):
        return [ir.substitute(c, {s.name: s.value}) for c in _conds(s.body)]
    if isinstance(s, ir.IfThenElse):
        if s.else_case is not None:
            return []
        # (a conjunct reading memory stays in the `if` only: phase mode's
        # `i < n && r[i] == 0`, carried_zero_ties.py)
        return [c for c in conjuncts(s.condition) if not _reads_memory(c)] + \
            _conds(s.then_case)
    if isinstance(s, ir.For):
        return [c for c in _conds(s.body) if not ir.uses_var(c, s.name)]
    if isinstance(s, ir.Block) and s.stmts:
        shared = None
        for x in s.stmts:
            got = {atom_key(c): c for c in _conds(x)}
            shared = got if shared is None else {k: c for k, c in shared.items() if k in got}
            if not shared:
                return []
        return list(shared.values())
    return []


def _pieces(scope, loop, lo, hi, body, peels, middle=True):
    """The statements running iterations [lo, hi] of `loop` with `body`, in
    order; [None] when nothing was gained (the loop stays as it was)."""
    var = loop.name
    body = _narrow(body, var, lo, hi)
    if is_noop(body):
        return []       # (what the range decides leaves nothing to run)
    if peels:
        split = _split(scope, loop, lo, hi, body, peels - 1, middle)
        if split is not None:
            return split
    trimmed = _trim(scope, body, var, lo, hi)
    if trimmed is None:
        if body is loop.body and lo is loop.min:
            return [None]
        return [_loop(loop, lo, hi, body)]
    lo, hi, body = trimmed
    return [_loop(loop, lo, hi, _narrow(body, var, lo, hi))]


def _split(scope, loop, lo, hi, body, peels, middle):
    """The pieces of [lo, hi] with an iteration the body compares the loop
    variable with peeled off (an end of the range first; one inside the
    range if `middle`, once per loop); None if there is none."""
    var = loop.name
    inside = _bound_names(body)
    found = [e for e in _equalities(body, var) if _invariant(e, var, inside)]

    def one(cond, at):
        """Iteration `at` where cond holds (nothing if its body does nothing)."""
        stmt = _s(ir.substitute(body, {var: at}))
        return [] if is_noop(stmt) else [ir.IfThenElse(_s(cond), stmt, None)]
    for e in found:
        if constant_difference(e, lo) == 0:
            nxt = _s(ir.Add(lo, ir.index(1)))
            rest = _pieces(scope, loop, nxt, hi, body, peels, middle)
            return one(ir.LE(lo, hi), lo) + _whole(loop, nxt, hi, body, rest)
        if constant_difference(e, hi) == 0:
            prev = _s(ir.Sub(hi, ir.index(1)))
            rest = _pieces(scope, loop, lo, prev, body, peels, middle)
            return _whole(loop, lo, prev, body, rest) + one(ir.LE(lo, hi), hi)
    for c in _likely_compares(body, var):
        limit = _limit(scope, c, var, inside)
        if limit is None:
            continue
        # [lo, cut] and [cut + 1, hi]; the comparison holds in the first
        # (an upper bound) or the second (a lower bound), is false in the other
        is_upper, value = limit.is_upper, limit.value
        cut = value if is_upper else _s(ir.Sub(value, ir.index(1)))
        first, second = _s(ir.Min(hi, cut)), _s(ir.Max(lo, ir.Add(cut, ir.index(1))))
        likely_first = peels if is_upper else 0
        pieces = _whole(loop, lo, first, body, _pieces(scope, loop, lo, first, body, likely_first,
                                                       middle)) + \
            _whole(loop, second, hi, body, _pieces(scope, loop, second, hi, body,
                                                   peels - likely_first, middle))
        return _unless_wraps(split_guard(limit), pieces, _loop(loop, lo, hi, body))
    if not found or not middle:
        return None
    # an iteration inside the range: [lo, e - 1], e, [e + 1, hi]
    e = found[0]
    below, above = _s(ir.Min(hi, ir.Sub(e, ir.index(1)))), _s(ir.Max(lo, ir.Add(e, ir.index(1))))
    return _whole(loop, lo, below, body, _pieces(scope, loop, lo, below, body, peels, False)) + \
        one(ir.And(ir.LE(lo, e), ir.LE(e, hi)), e) + \
        _whole(loop, above, hi, body, _pieces(scope, loop, above, hi, body, peels, False))


def _unless_wraps(guard, pieces, whole):
    """pieces, or where guard (a split's cut does not wrap: trim_limits) may
    fail, `if (guard) pieces else whole`."""
    if guard is None:
        return pieces
    return [ir.IfThenElse(guard, ir.block(*pieces) if pieces else ir.Evaluate(ir.index(0)),
                          whole)]


def _whole(loop, lo, hi, body, pieces):
    """pieces, with [None] (nothing gained there) made the loop over [lo, hi]."""
    return [_loop(loop, lo, hi, body)] if pieces == [None] else pieces


def _loop(loop, lo, hi, body):
    """The loop over [lo, hi]: its body without check-image selects, and
    unswitched on conditions that do not change in it. Its extent is
    max(hi + 1, lo) - lo: 0 where hi < lo without the int32 difference hi - lo,
    which wraps where hi is near -2**31 and lo above 0 (`range(hi - i, i +
    lo)` with lo = -2**31 + 2 ran 2**31 iterations: a wrong result). hi + 1
    does not wrap: hi is at most the loop's own last value."""
    extent = _s(ir.Sub(ir.Max(ir.Add(hi, ir.index(1)), lo), lo))
    body = _Unchecked().mutate(body)
    return _unswitched(ir.For(loop.name, lo, extent, loop.kind, body), MAX_UNSWITCH)


class _Unchecked(ir.Mutator):
    """`select(check[i] != 0, 0, v)` -> v (pyhalide/checks.py: a check image
    holds 0; a read outside it raises in the access check before the
    statement, which stays)."""

    def visit_Select(self, e):
        r = self.mutate_children(e)
        c = r.condition
        if isinstance(c, ir.NE) and isinstance(c.a, ir.Load) and \
                c.a.name.startswith(CHECK_PREFIX) and ir.is_const(c.b, 0) and \
                isinstance(r.true_value, ir.Const) and not r.true_value.value:
            return r.false_value
        return r


class _Switches(ir.Visitor):
    """Conditions of lazy selects and ifs that reach no name in `inside`."""

    def __init__(self, inside):
        super().__init__()
        self.inside, self.found = inside, []

    def _take(self, c):
        if not isinstance(c, ir.Const) and not _reads_memory(c) and \
                not any(n in self.inside for n in ir.free_vars(c)):
            self.found.append(c)

    def visit_Call(self, e):
        if ir.is_lazy_select(e):
            self._take(e.args[0])
        self.visit_children(e)

    def visit_IfThenElse(self, s):
        self._take(s.condition)
        self.visit_children(s)


class _Bound(ir.Visitor):
    def __init__(self):
        super().__init__()
        self.names = set()

    def visit_LetStmt(self, s):
        self.names.add(s.name)
        self.visit_children(s)

    def visit_Let(self, e):
        self.names.add(e.name)
        self.visit_children(e)

    def visit_For(self, s):
        self.names.add(s.name)
        self.visit_children(s)


def _bound_names(s) -> set:
    """The names that lets and loops bind inside s."""
    b = _Bound()
    b.visit(s)
    return b.names


def _unswitched(loop: ir.For, budget: int):
    """`if (c) loop[c: true] else loop[c: false]` for a condition c of the
    loop's body that does not change in the loop (at most `budget` deep)."""
    if budget == 0:
        return loop
    v = _Switches(_bound_names(loop))
    v.visit(loop.body)
    if not v.found:
        return loop
    c = v.found[0]
    cases = []
    for value in (True, False):
        body = _s(substitute_exprs(loop.body, [(c, ir.const(ir.Bool(), value))]))
        cases.append(None if is_noop(body) else _unswitched(
            ir.For(loop.name, loop.min, loop.extent, loop.kind, body), budget - 1))
    if cases[0] is None:
        return loop if cases[1] is None else ir.IfThenElse(_s(ir.Not(c)), cases[1], None)
    return ir.IfThenElse(c, cases[0], cases[1])


# ---- what a range decides ------------------------------------------------------------------
def _offset(e, var: str):
    """k when e is var + k (as a linear form), else None."""
    if e.type != _INDEX or not ir.uses_var(e, var):
        return None
    return constant_difference(e, ir.Variable(e.type, var))


def _invariant(e, var: str, bound: set) -> bool:
    return not _reads_memory(e) and not any(n == var or n in bound for n in ir.free_vars(e))


def _le(a, b, depth: int = 4) -> bool:
    """Whether a <= b wherever the integer arithmetic does not overflow: a
    constant difference, or min/max of such (sound, not complete)."""
    d = constant_difference(b, a)
    if d is not None:
        return d >= 0
    if depth == 0:
        return False
    n = depth - 1
    if isinstance(a, ir.Min) and (_le(a.a, b, n) or _le(a.b, b, n)):
        return True
    if isinstance(b, ir.Max) and (_le(a, b.a, n) or _le(a, b.b, n)):
        return True
    if isinstance(a, ir.Max) and _le(a.a, b, n) and _le(a.b, b, n):
        return True
    return isinstance(b, ir.Min) and _le(a, b.a, n) and _le(a, b.b, n)


class _Narrow(ir.Mutator):
    """Decides, in a body run for var in [lo, hi], the comparisons and
    clamps that range decides (see the module doc)."""

    memoize = True

    def __init__(self, var, lo, hi):
        super().__init__()
        self.var, self.lo, self.hi = var, lo, hi

    def _plus(self, e, k: int):
        return _s(ir.Add(e, ir.index(k)))

    def _clamp(self, e, is_min: bool):
        r = self.mutate_children(e)
        for keep, other in ((r.a, r.b), (r.b, r.a)):
            k = _offset(keep, self.var)
            if k is None or ir.uses_var(other, self.var):
                continue
            # min(var + k, other) is var + k where hi + k <= other; max likewise
            if (is_min and _le(self.hi, self._plus(other, -k))) or \
                    (not is_min and _le(self._plus(other, -k), self.lo)):
                return keep
        return r

    def visit_Min(self, e):
        return self._clamp(e, True)

    def visit_Max(self, e):
        return self._clamp(e, False)

    def _outside(self, r) -> bool:
        """Whether the sides of r (an EQ or NE) differ everywhere in the range."""
        for x, other in ((r.a, r.b), (r.b, r.a)):
            k = _offset(x, self.var)
            if k is None or ir.uses_var(other, self.var):
                continue
            at = self._plus(other, -k)         # var == at
            if _le(self._plus(at, 1), self.lo) or _le(self.hi, self._plus(at, -1)):
                return True
        return False

    def visit_EQ(self, e):
        r = self.mutate_children(e)
        return ir.const(ir.Bool(), False) if self._outside(r) else r

    def visit_NE(self, e):
        r = self.mutate_children(e)
        return ir.const(ir.Bool(), True) if self._outside(r) else r

    def _order(self, e):
        r = self.mutate_children(e)
        if not int_compare(r):
            return r
        small, big, strict = as_upper(r)
        if small.type != _INDEX or big.type != _INDEX:
            return r
        d = ir.Sub(small, big)                  # r: d < 0 (strict) or d <= 0
        k = coefficient(r, self.var)
        if k not in (1, -1):
            return r
        rest = _s(ir.Sub(d, ir.Mul(ir.index(k), ir.Variable(d.type, self.var))))
        if not _invariant(rest, self.var, set()):
            return r
        s_true, s_false = (1, 0) if strict else (0, 1)
        if k == 1:      # var + rest
            true = _le(self.hi, _s(ir.Sub(ir.index(-s_true), rest)))
            false = _le(_s(ir.Sub(ir.index(s_false), rest)), self.lo)
        else:           # rest - var
            true = _le(self._plus(rest, s_true), self.lo)
            false = _le(self.hi, self._plus(rest, -s_false))
        if true:
            return ir.const(ir.Bool(), True)
        if false:
            return ir.const(ir.Bool(), False)
        return r

    visit_LT = visit_LE = visit_GT = visit_GE = _order


def _narrow(body, var, lo, hi):
    return simplify(_Narrow(var, lo, hi).mutate(body))


class _Equalities(ir.Visitor):
    def __init__(self, var):
        super().__init__()
        self.var, self.found = var, []

    def visit_EQ(self, e):
        for x, other in ((e.a, e.b), (e.b, e.a)):
            if isinstance(x, ir.Variable) and x.name == self.var and \
                    not ir.uses_var(other, self.var) and not _reads_memory(other):
                self.found.append(other)
        self.visit_children(e)

    visit_NE = visit_EQ


class _LikelyCompares(ir.Visitor):
    """Comparisons of var choosing a select's value inside `likely` (or
    anywhere, with depth 1 at the start: the guard's lazy selects)."""

    def __init__(self, var, depth=0):
        super().__init__()
        self.var, self.found, self.depth = var, [], depth

    def visit_Call(self, e):
        inside = e.call_type == ir.INTRINSIC and e.name == "likely"
        if self.depth and ir.is_lazy_select(e) and int_compare(e.args[0]) and \
                ir.uses_var(e.args[0], self.var):
            self.found.append(e.args[0])
        self.depth += inside
        self.visit_children(e)
        self.depth -= inside

    def visit_Select(self, e):
        if self.depth and int_compare(e.condition) and ir.uses_var(e.condition, self.var):
            self.found.append(e.condition)
        self.visit_children(e)


def _likely_compares(body, var):
    """The comparisons of var choosing a value inside `likely` (the index
    of a run-time index check: in range at every iteration but a failing
    one), and choosing a branch of the guard's lazy selects (the slots of
    imperative_writes.py: `q < E ? <the loop's condition> : <the write's>`)."""
    v = _LikelyCompares(var)
    v.visit(body)
    g = _guard(body)
    if g is not None:
        w = _LikelyCompares(var, 1)
        w.visit(g[1].condition)
        v.found += w.found
    return v.found


def _equalities(body, var):
    """The values the body compares var for equality with."""
    v = _Equalities(var)
    v.visit(body)
    return v.found


# ---- the trim ------------------------------------------------------------------------------
def _trim(scope, body, var, lo, hi):
    """(lo, hi, body) with the guard's bounds on var applied; None if the
    guard bounds nothing."""
    g = _guard(body)
    if g is None:
        return _trim_range(scope, body, var, lo, hi)
    lets, guard = g
    bound = {name for name, _ in lets}
    env = {}
    for name, value in lets:
        env[name] = ir.substitute(value, env)
    keep, used = [], False
    for c in conjuncts(guard.condition):
        full = ir.substitute(c, env)
        limit = _limit(scope, full, var, bound)
        if limit is None:
            keep.append(c)
            continue
        used = True
        lo, hi, invariant = _bounded(lo, hi, limit)
        if invariant is not None:
            keep.append(invariant)
    if not used:
        return None
    cond = ir.conjunction(keep)
    inner = guard.then_case if cond is None else ir.IfThenElse(cond, guard.then_case, None)
    for name, value in reversed(lets):
        inner = ir.LetStmt(name, value, inner)
    return lo, hi, inner


def _trim_range(scope, body, var, lo, hi):
    """(lo, hi, body) with the bounds on var of the conditions of body
    (_conds) applied, body unchanged; None if they bound nothing."""
    used = False
    for c in _conds(body):
        limit = _limit(scope, c, var, set())
        if limit is None:
            continue
        used = True
        lo, hi, _ = _bounded(lo, hi, limit)     # (the body keeps its conditions)
    return (lo, hi, body) if used else None


def _bounded(lo, hi, limit):
    """(lo, hi, guard): [lo, hi] within the bound `limit` (_limit), exactly
    where the condition `guard` (None or invariant in the loop) holds
    (trim_limits.trim_forms)."""
    value, guard = trim_forms(limit)
    if limit.is_upper:
        return lo, _s(ir.Min(hi, value)), guard
    return _s(ir.Max(lo, value)), hi, guard


def _limit(scope: dict, c, var: str, bound: set):
    """The trim_limits.Limit when comparison c says var <= value (is_upper)
    or var >= value, value invariant in the loop (computed exactly past
    int32 where it may leave it); None otherwise. scope: the ranges of the
    enclosing loops' variables (int_ranges)."""
    if not int_compare(c):
        return None
    small, big, strict = as_upper(c)
    if small.type != _INDEX or big.type != _INDEX:
        return None
    d = ir.Sub(small, big)              # d < 0 (strict) or d <= 0
    k = coefficient(c, var)
    if k not in (1, -1):
        return None
    rest = _s(ir.Sub(d, ir.Mul(ir.index(k), ir.Variable(d.type, var))) if k != 1 else
              ir.Sub(d, ir.Variable(d.type, var)))
    if not _invariant(rest, var, bound):
        return None
    slack = ir.index(1 if strict else 0)
    if k == 1:      # var + rest <(=) 0: var <= -rest (- 1)
        return limit_of(True, _s(ir.Sub(ir.Sub(ir.index(0), rest), slack)), scope)
    # rest - var <(=) 0: var >= rest (+ 1)
    return limit_of(False, _s(ir.Add(rest, slack)), scope)
