"""Periodic indices: a loop over v whose body reads at `(int64(v) + c) %
int64(n)` (np.roll, c and n invariant in the loop) or at `(v + c) % n` in
int32 (a hand-written `a[(i + 1) % n]`) runs in three pieces.

    split_mod_loops(stmt) -> stmt

For the loop `for (v, m, e)` and its index terms `(int64(v) + c_i) %
int64(n_i)` (c_i an int64 value, n_i an int32 value or an int64 constant
below 2**31, neither bound in the loop nor reading memory), every
term is the identity `int64(v) + c_i` where 0 <= v + c_i < n_i, i.e. for v
in [lo, hi) with

    lo = min(max(m, -c_1, ..., -c_k), m + e)
    hi = max(min(m + e, n_1 - c_1, ..., n_k - c_k), lo)

(in int64, each c_i clamped to [-2**40, 2**40], which changes no bound
an int32 v can reach: no term overflows). The loop becomes

    for (v, m, lo - m) {body}
    for (v, lo, hi - lo) {body, each term replaced by int64(v) + c_i}
    for (v, hi, m + e - hi) {body}

The middle piece is empty unless every n_i >= 1 (hi <= n_i - c_i <= -c_i
<= lo otherwise); there the Euclidean remainder by n_i lies in [0, n_i -
1], so the element checks of the middle body whose conjuncts each bound a
term `0 <= int32(t)`, `int32(t) <= n_i - 1` or `int32(t) < n_i` (the checks
access_checks makes for such indices) are true and dropped. The other
checks stay. The checks that open the middle body and depend on nothing bound in the
loop nor on memory (those of the rolls along outer axes) move before the
middle loop, made when it runs: the first iteration would make them first.
In the middle piece the facts of each int32 term `e = v + c`
(0 <= e < n, 1 <= n) also simplify the reads the frontend makes of a
Python index there: `select(e < n, e, -1)` (its negative-index form),
the clamps `max(min(e, n - 1), 0)` and `if_then_else(0 < n, read, 0)`
become the read at e (dense). The iterations run in their original order, so a failing check raises the
same error. Only innermost loops are split (a loop around them keeps its
`%` terms, which invariant division makes once per iteration of it); a loop
whose body exceeds _MAX_NODES nodes, or with more than _MAX_TERMS terms, is
left alone.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.ops import equal, reads_memory, substitute_exprs

from .branch_facts import conjuncts
from .simplify import simplify

_MAX_TERMS = 16
_MIN_CONST_N = 256
_MAX_NODES = 4000
# c is clamped to [-_FAR, _FAR] in the bounds: exact there, and past it no
# int32 v has 0 <= v + c < n (for n < 2**31), as the clamped c says too
_FAR = 2 ** 40
_I64 = ir.Int(64)
_I32 = ir.Int(32)


def split_mod_loops(stmt: ir.Stmt) -> ir.Stmt:
    return _Split().mutate(stmt)


class InnermostLoops(ir.Mutator):
    """`split(loop)` of each innermost loop of a kind in KINDS (its body
    already mutated). Statements only (a loop is never inside an
    expression); `below` is set once a loop has been mutated, so a loop
    whose body's mutation leaves it unset holds no loop."""

    stmts_only = True
    memoize = False
    below = False
    KINDS = (ir.ForKind.SERIAL, ir.ForKind.PARALLEL)

    def visit_For(self, s):
        self.below = False
        body = self.mutate(s.body)
        innermost = not self.below
        self.below = True
        s = s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        if s.kind not in self.KINDS or not innermost:
            return s
        return self.split(s)

    def split(self, s: ir.For) -> ir.Stmt:
        raise NotImplementedError


class _Split(InnermostLoops):
    """Splits the innermost loops by their periodic index terms."""

    def split(self, s):
        terms = _terms(s)
        if not terms or len(terms) > _MAX_TERMS:
            return s
        return _pieces(s, terms)


class _Bound(ir.Visitor):
    """The names bound inside a statement, and its node count."""

    def __init__(self):
        super().__init__()
        self.names = set()
        self.nodes = 0

    def visit(self, n):
        self.nodes += 1
        name = getattr(n, "name", None)
        if isinstance(n, (ir.For, ir.LetStmt, ir.Let, ir.Allocate)):
            self.names.add(name)
        super().visit(n)


class _Mods(ir.Visitor):
    mods: list

    def visit_Mod(self, e):
        self.mods.append(e)
        self.visit_children(e)


def bound_names(s: ir.For):
    """The loop's variable and the names bound in its body, or None for a
    body past _MAX_NODES nodes."""
    bound = _Bound()
    bound.visit(s.body)
    if bound.nodes > _MAX_NODES:
        return None
    return bound.names | {s.name}


def _terms(s: ir.For) -> list:
    """[(term, c, n)] of the loop's periodic index terms, distinct (the
    names bound in the body are collected only where an int64 `%` is)."""
    mods = _Mods()
    mods.mods = []
    mods.visit(s.body)
    candidates = [t for t in mods.mods if t.type == _I64]
    if not candidates:
        return []
    bound = bound_names(s)
    if bound is None:
        return []
    out = []
    for t in candidates:
        got = _match(t, s.name, bound)
        if got is not None and not any(equal(t, u) for u, _, _ in out):
            out.append((t, *got))
    return out


def _match(t: ir.Mod, v: str, bound: set):
    """(c, n) of t = (int64(v) + c) % int64(n) (int64(v) - k: c = -k), or
    of the int32 t = (v + c) % n (c as int64), else None."""
    if t.type == _I32:
        return _match32(t, v, bound)
    if t.type != _I64 or not (isinstance(t.b, ir.Cast) and t.b.value.type == _I32) \
            and not _small_const(t.b):
        return None
    n = t.b.value if isinstance(t.b, ir.Cast) else ir.Cast(_I32, t.b)
    a, c = t.a, ir.Const(_I64, 0)
    if isinstance(a, (ir.Add, ir.Sub)):
        a, c = a.a, (a.b if isinstance(a, ir.Add) else ir.Sub(ir.Const(_I64, 0), a.b))
    if not (isinstance(a, ir.Cast) and isinstance(a.value, ir.Variable)
            and a.value.name == v and a.value.type == _I32):
        return None
    for x in (c, n):
        if reads_memory(x) or set(ir.free_vars(x)) & bound:
            return None
    return c, n


def _match32(t: ir.Mod, v: str, bound: set):
    """(int64(c), n) of the int32 t = (v + c) % n: t.a is v plus an int32
    value c bound outside the loop (v's coefficient 1). A constant n below
    _MIN_CONST_N (`i % 2`: a parity, the identity on two iterations only) is
    not a term: it would leave the loop a middle piece of n iterations."""
    if v not in ir.free_vars(t.a) or isinstance(t.b, ir.Const) and t.b.value < _MIN_CONST_N:
        return None
    c = simplify(ir.Sub(t.a, ir.Variable(_I32, v)))
    if v in ir.free_vars(c):
        return None
    for x in (c, t.b):
        if reads_memory(x) or set(ir.free_vars(x)) & bound:
            return None
    return ir.Cast(_I64, c), t.b


def _small_const(e) -> bool:
    return isinstance(e, ir.Const) and e.type == _I64 and abs(e.value) < 2 ** 31


def _pieces(s: ir.For, terms: list) -> ir.Stmt:
    m = ir.Cast(_I64, s.min)
    end = ir.Add(m, ir.Cast(_I64, ir.Max(s.extent, ir.index(0))))
    lo, hi = m, end
    for _, c, n in terms:
        c = ir.Max(ir.Min(c, ir.Const(_I64, _FAR)), ir.Const(_I64, -_FAR))
        lo = ir.Max(lo, ir.Sub(ir.Const(_I64, 0), c))
        hi = ir.Min(hi, ir.Sub(ir.Cast(_I64, n), c))
    lo_name, hi_name = f"{s.name}.mod_lo", f"{s.name}.mod_hi"
    lo_v, hi_v = ir.Variable(_I32, lo_name), ir.Variable(_I32, hi_name)
    lo = simplify(ir.Cast(_I32, ir.Min(lo, end)))
    hi = simplify(ir.Cast(_I32, ir.Max(ir.Min(hi, end), ir.Cast(_I64, lo_v))))
    middle = substitute_exprs(s.body, [(t, t.a) for t, _, _ in terms])
    middle = _Facts([(t.a, n) for t, _, n in terms if t.type == _I32]).mutate(middle)
    middle = simplify(_DropChecks([(t.a, n) for t, _, n in terms]).mutate(middle))
    first, middle = _leading_invariant_checks(middle, bound_names(s))
    if first:
        first = ir.IfThenElse(ir.LT(lo_v, hi_v), ir.block(*first))
    end32 = ir.Add(s.min, ir.Max(s.extent, ir.index(0)))
    loops = ir.block(ir.For(s.name, s.min, ir.Sub(lo_v, s.min), s.kind, s.body),
                     first or None,
                     ir.For(s.name, lo_v, ir.Sub(hi_v, lo_v), s.kind, middle),
                     ir.For(s.name, hi_v, ir.Sub(end32, hi_v), s.kind, s.body))
    return ir.LetStmt(lo_name, lo, ir.LetStmt(hi_name, hi, loops))


def _leading_invariant_checks(body: ir.Stmt, bound: set) -> tuple:
    """([checks], rest of body) for the checks that open the body and depend
    on nothing the loop binds nor on memory: the first iteration makes them
    before anything else, so they move before the loop (when it runs)."""
    stmts = list(body.stmts) if isinstance(body, ir.Block) else [body]
    k = 0
    while k < len(stmts) and isinstance(stmts[k], ir.AssertStmt) \
            and _invariant(stmts[k], bound):
        k += 1
    if k == len(stmts):
        k -= 1          # a body of checks only stays a loop of checks
    if k <= 0:
        return [], body
    return stmts[:k], ir.block(*stmts[k:])


def _invariant(check: ir.AssertStmt, bound: set) -> bool:
    exprs = [check.condition, *check.args]
    return not any(reads_memory(e) or set(ir.free_vars(e)) & bound for e in exprs)


class _Facts(ir.Mutator):
    """The middle piece's facts of its int32 terms e = v + c (0 <= e <= n -
    1, 1 <= n): e < n, e <= n - 1, 0 <= e and 0 < n are true; min(e, n - 1)
    and max(e, 0) are e; a select (lazy or not) on a true condition is its
    first value."""

    def __init__(self, terms: list):
        super().__init__()
        self.terms = terms

    def _fact(self, c) -> bool:
        for e, n in self.terms:
            if isinstance(c, ir.LT) and (equal(c.a, e) and _same(c.b, n) or
                                         ir.is_const(c.a, 0) and _same(c.b, n) or
                                         ir.is_const(c.a, -1) and equal(c.b, e)):
                return True
            if isinstance(c, ir.LE) and (equal(c.a, e) and _minus_one(c.b, n) or
                                         ir.is_const(c.a, 0) and equal(c.b, e) or
                                         ir.is_const(c.a, 1) and _same(c.b, n)):
                return True
        return False

    def _mutate_cmp(self, e):
        r = self.mutate_children(e)
        return ir.Const(ir.Bool(), True) if self._fact(r) else r

    visit_LT = visit_LE = _mutate_cmp

    def visit_Min(self, e):
        r = self.mutate_children(e)
        if isinstance(r, ir.Min):
            for x, y in ((r.a, r.b), (r.b, r.a)):
                if any(equal(x, t) and _minus_one(y, n) for t, n in self.terms):
                    return x
        return r

    def visit_Max(self, e):
        r = self.mutate_children(e)
        if isinstance(r, ir.Max):
            for x, y in ((r.a, r.b), (r.b, r.a)):
                if ir.is_const(y, 0) and any(equal(x, t) for t, _ in self.terms):
                    return x
        return r

    def visit_Select(self, e):
        r = self.mutate_children(e)
        if isinstance(r, ir.Select) and ir.is_const(r.condition, True):
            return r.true_value
        return r

    def visit_Call(self, e):
        r = self.mutate_children(e)
        if ir.is_lazy_select(r) and ir.is_const(r.args[0], True):
            return r.args[1]
        return r


def _minus_one(e, n) -> bool:
    """Whether e is n - 1."""
    return isinstance(e, ir.Sub) and _same(e.a, n) and ir.is_const(e.b, 1) or \
        isinstance(e, ir.Add) and _same(e.a, n) and ir.is_const(e.b, -1)


class _DropChecks(ir.Mutator):
    """Drops the checks each of whose conjuncts bounds an identity term
    (int64(v) + c_i, 0 <= it <= n_i - 1 in the middle piece) by [0, n_i - 1]."""

    stmts_only = True

    def __init__(self, terms: list):
        super().__init__()
        self.terms = terms

    def visit_AssertStmt(self, s):
        if all(self._bounds(c) for c in conjuncts(s.condition)):
            return ir.Evaluate(ir.Const(_I32, 0))
        return s

    def _bounds(self, c) -> bool:
        if isinstance(c, ir.LE) and ir.is_const(c.a, 0):
            return self._term(c.b) is not None
        if isinstance(c, (ir.LE, ir.LT)):
            n = self._term(c.a)
            if n is None:
                return False
            if isinstance(c, ir.LT):
                return _same(c.b, n)
            return isinstance(c.b, ir.Sub) and _same(c.b.a, n) and ir.is_const(c.b.b, 1)
        return False

    def _term(self, e):
        """n_i of e = int32(term i) or term i, else None."""
        if isinstance(e, ir.Cast) and e.type == _I32:
            e = e.value
        for t, n in self.terms:
            if equal(e, t):
                return n
        return None


def _same(a, b) -> bool:
    """a and b are the same value (a Variable by its name: the parameter it
    stands for may be recorded on one of its uses only)."""
    if isinstance(a, ir.Variable) and isinstance(b, ir.Variable):
        return a.name == b.name and a.type == b.type
    return equal(a, b)
