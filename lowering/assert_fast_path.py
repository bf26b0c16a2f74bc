"""A serial loop body whose element checks (asserts) come before its stores
runs a fast path: `if (likely(c)) fast else body`, where `c` implies every
assertion of the body and is cheap (one float range test for an index made
by int(x * k)), and `fast` is the body without its assertions, the asserted
conditions true in it and the index clamps that bounds inference needed
dropped where the assertions bound the index (in the lets and the first
statement if it is a Store: what follows may read what it wrote). Where
`c` is false, the original body runs: it raises the first failing check's
error, in the order Python would (a failing element keeps its exact
exception).

`c` is built from the assertions' conditions with the body's lets
substituted; an index test `lo <= int64(f) < hi` of an integral float f
(trunc/floor/ceil/round of a value) with |lo|, |hi| <= 2**53 becomes
`float(lo) <= f < float(hi)`, which implies f is not NaN and fits int64,
so the conversion guards of f (`f != f`, `f < 2**63`) hold and are dropped.
No fast path is made when `c` would convert a float to an integer, divide, shift,
call anything but a pure math intrinsic, or read memory that only an
assertion makes safe to read (a let after the first assertion).
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.ops import conjunction, equal, find_calls, substitute, substitute_exprs

from .cold_copies import LeavesColdCopies, cold_copies
from .simplify import simplify

_PURE_CALLS = frozenset({"trunc", "floor", "ceil", "round", "likely", "abs", "is_nan"})
_INTEGRAL_FLOAT = frozenset({"trunc", "floor", "ceil", "round"})
_EXACT = 2 ** 53
# An integral float64 f with |f| < 2**51 converts to int64 exactly as the
# bits of f + 1.5 * 2**52 less those of 1.5 * 2**52 (the sum keeps exponent 52)
_MAGIC_RANGE = 2 ** 51
_MAGIC = 1.5 * 2.0 ** 52
_MAGIC_BITS = 0x4338000000000000


def assert_fast_path(stmt: ir.Stmt) -> ir.Stmt:
    return _FastPath(cold_copies(stmt)).mutate(stmt)


class _FastPath(LeavesColdCopies, ir.Mutator):
    stmts_only = True

    def visit_For(self, loop):
        body = self.mutate(loop.body)
        if loop.kind == ir.ForKind.SERIAL:
            body = _with_fast_path(body) or body
        if body is loop.body:
            return loop
        return ir.For(loop.name, loop.min, loop.extent, loop.kind, body)


def _flatten(s, out: list) -> bool:
    """Append the body's items in order: ("let", LetStmt), ("assert",
    AssertStmt), ("stmt", other). False when a let scopes over less than
    the rest of the body (it then is not a chain)."""
    while True:
        if isinstance(s, ir.LetStmt):
            out.append(("let", s))
            s = s.body
        elif isinstance(s, ir.Block):
            for x in s.stmts[:-1]:
                if isinstance(x, (ir.LetStmt, ir.Block)):
                    return False
                out.append(("assert" if isinstance(x, ir.AssertStmt) else "stmt", x))
            s = s.stmts[-1]
        else:
            out.append(("assert" if isinstance(s, ir.AssertStmt) else "stmt", s))
            return True


def _rebuild(items: list) -> ir.Stmt:
    """The statement of a flattened item list (lets scope over the rest)."""
    out = None
    run: list = []
    for kind, s in reversed(items):
        if kind == "let":
            rest = _block(run, out)
            out, run = ir.LetStmt(s.name, s.value, rest), []
        else:
            run.append(s)
    return _block(run, out)


def _block(run_reversed: list, tail):
    stmts = list(reversed(run_reversed)) + ([tail] if tail is not None else [])
    return stmts[0] if len(stmts) == 1 else ir.Block(tuple(stmts))


class _Cheap(ir.Visitor):
    """Whether an expression may be evaluated early: no division, shift,
    float to integer conversion or impure call."""

    def __init__(self):
        super().__init__()
        self.ok = True

    def visit_Div(self, e):
        self.ok = False

    def visit_Mod(self, e):
        self.ok = False

    def visit_Shl(self, e):
        self.ok = False

    def visit_Shr(self, e):
        self.ok = False

    def visit_Cast(self, e):
        if e.value.type.is_float() and not e.type.is_float():
            self.ok = False
        self.visit(e.value)

    def visit_Call(self, e):
        if e.call_type != ir.INTRINSIC or e.name not in _PURE_CALLS:
            self.ok = False
        for a in e.args:
            self.visit(a)


def _cheap(e) -> bool:
    v = _Cheap()
    v.visit(e)
    return v.ok


def _pure(e) -> bool:
    """Whether e calls nothing but pure math intrinsics."""
    return all(c.call_type == ir.INTRINSIC and c.name in _PURE_CALLS for c in find_calls(e))


def _has_load(e) -> bool:
    return any(isinstance(n, ir.Load) for n in _nodes(e))


def _nodes(e):
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(ir.children(n))


def _dedupe(items: list) -> list:
    """Lets whose value repeats an earlier let's (before any store, so the
    same loads read the same values) use that let; an assertion repeating
    an earlier one is dropped."""
    out, values, asserted, names = [], [], [], {}
    stored = False
    for kind, s in items:
        if names:
            s = _renamed(s, names)
        if kind == "let" and not stored and _pure(s.value):
            same = next((v for v in values if equal(v.value, s.value)), None)
            if same is not None:
                names[s.name] = ir.Variable(s.value.type, same.name)
                continue
            values.append(s)
        elif kind == "assert":
            if any(equal(a, s.condition) for a in asserted):
                continue
            asserted.append(s.condition)
        elif kind == "stmt":
            stored = True
        out.append((kind, s))
    return out


def _renamed(s, names):
    if isinstance(s, ir.LetStmt):       # its body is the rest of the chain (_rebuild)
        return ir.LetStmt(s.name, substitute(s.value, names), s.body)
    return substitute(s, names)


def _with_fast_path(body):
    items: list = []
    if not _flatten(body, items):
        return None
    kinds = [k for k, _ in items]
    if "assert" not in kinds:
        return None
    first_assert = kinds.index("assert")
    if "stmt" in kinds[:len(kinds) - kinds[::-1].index("assert")]:
        return None         # a store or call before an assertion
    items = _dedupe(items)
    lets, safe = {}, set()
    for i, (kind, s) in enumerate(items):
        if kind == "let":
            lets[s.name] = s.value
            if i < first_assert or not _has_load(s.value):
                safe.add(s.name)
    conds = [s.condition for k, s in items if k == "assert"]
    resolver = _Resolver(lets, safe)
    resolved = [resolver(c) for c in conds]
    if any(r is None for r in resolved):
        return None
    fast_cond = _fast_condition(resolved)
    if fast_cond is None or not _cheap(fast_cond):
        return None
    facts = []
    for c, r in zip(conds, resolved):
        facts.append((c, ir.Const(ir.Bool(), True)))
        if isinstance(c, ir.Variable) and c.name in lets:
            facts.append((lets[c.name], ir.Const(ir.Bool(), True)))
    ranges = [rng for r in resolved for rng in _index_ranges(r)]
    if not ranges:
        return None         # no index assertion: nothing for the fast path to drop
    exact = [f for f in (_float_index_test(r) for r in resolved) if f is not None and f[2]]
    facts_pass = _Facts(facts, ranges, lets, [f[0] for f in exact])
    fast_items, stored = [], False
    for kind, s in items:
        if kind == "assert":
            continue
        if not stored:         # past the first store, loads may see other values
            if kind == "stmt":      # a store's value and index come before it
                s = facts_pass.mutate(s) if isinstance(s, ir.Store) else s
                stored = True
            else:
                s = ir.LetStmt(s.name, facts_pass.mutate(s.value), s.body)
        fast_items.append((kind, s))
    fast = simplify(_rebuild(fast_items))
    likely = ir.Call(ir.Bool(), "likely", (fast_cond,), ir.INTRINSIC)
    return ir.IfThenElse(likely, fast, _rebuild(items))


class _Resolver:
    """Conditions with a body's lets substituted (`resolver(e)`, None if e
    needs an unsafe let, or the substitution does not end): each let's
    value expanded once for all the conditions of the body, where
    substituting the names an expression mentions round after round walked
    the whole grown expression each time. Where a Let inside the condition
    or a let's value binds a let's name again, the rounds themselves
    (_rounds: a value put under such a Let has its name captured, so the
    rounds can end differently)."""

    def __init__(self, lets: dict, safe: set):
        self.lets, self.safe = lets, safe
        self.expanded: dict = {}        # let name -> its value expanded, or None
        self.rebinds: dict = {}         # id -> (node, whether a Let below binds a let's name)

    def __call__(self, e):
        if self._rebinds(e):
            return _rounds(e, self.lets, self.safe)
        out = self._expand(e, set())
        if out is None:
            return None
        if out is _REBOUND:
            return _rounds(e, self.lets, self.safe)
        return out

    def _expand(self, e, active: set):
        mapping = {}
        for n in ir.free_vars(e):
            if n not in self.lets:
                continue
            if n not in self.safe or n in active:
                return None
            if n not in self.expanded:
                value = self.lets[n]
                active.add(n)
                self.expanded[n] = _REBOUND if self._rebinds(value) else \
                    self._expand(value, active)
                active.discard(n)
            v = self.expanded[n]
            if v is None or v is _REBOUND:
                return v
            mapping[n] = v
        return substitute(e, mapping) if mapping else e

    def _rebinds(self, e) -> bool:
        hit = self.rebinds.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        out = (isinstance(e, ir.Let) and e.name in self.lets) or \
            any(self._rebinds(c) for c in ir.children(e))
        self.rebinds[id(e)] = (e, out)
        return out


_REBOUND = object()     # _Resolver._expand: a value rebinds a let's name


def _rounds(e, lets: dict, safe: set):
    """e with the lets substituted round after round until it names none."""
    for _ in range(len(lets) + 1):
        names = {n for n in ir.free_vars(e) if n in lets}
        if not names:
            return e
        if names - safe:
            return None
        e = substitute(e, {n: lets[n] for n in names})
    return None


def _fast_condition(conds: list):
    """The conjunction of conds, index tests of integral floats made float
    range tests and the conversion guards they imply dropped."""
    floats, tests = [], []
    for c in conds:
        rng = _float_index_test(c)
        if rng is not None:
            floats.append(rng[0])
            tests.append(rng[1])
        else:
            tests.append(c)
    out = []
    for c, t in zip(conds, tests):
        if t is c and floats and _implied_by_finite(c, floats):
            continue
        out.append(t)
    return conjunction(out)


def _float_index_test(c):
    """(f, float(lo) <= f < float(hi), whether |lo|, |hi| <= 2**51) for
    c = `lo <= int64(f) < hi` with f an integral float64 and lo, hi exact in
    float64; None otherwise."""
    bounds = _lo_hi(c)
    if bounds is None:
        return None
    lo, t, hi = bounds
    if not (isinstance(t, ir.Cast) and t.value.type.is_float() and t.value.type.bits == 64):
        return None
    f = t.value
    if not (isinstance(f, ir.Call) and f.call_type == ir.INTRINSIC and f.name in _INTEGRAL_FLOAT):
        return None
    if _magnitude(lo) > _EXACT or _magnitude(hi) > _EXACT:
        return None
    ft = f.type
    small = max(_magnitude(lo), _magnitude(hi)) <= _MAGIC_RANGE
    return f, ir.And(ir.LE(ir.Cast(ft, lo), f), ir.LT(f, ir.Cast(ft, hi))), small


def _lo_hi(c):
    """(lo, t, hi) for c = `lo <= t && t < hi` (any operand order)."""
    if not isinstance(c, ir.And):
        return None
    a, b = c.a, c.b
    if isinstance(a, ir.LE) and isinstance(b, ir.LT) and equal(a.b, b.a):
        return a.a, a.b, b.b
    if isinstance(a, ir.LT) and isinstance(b, ir.LE) and equal(b.b, a.a):
        return b.a, a.a, a.b
    return None


def _magnitude(e) -> float:
    """An upper bound on |e| for an integer expression (inf if unknown)."""
    if isinstance(e, ir.Const):
        return abs(e.value)
    if isinstance(e, ir.Cast) and e.value.type.is_integer() and e.value.type.bits <= 32:
        return 2.0 ** e.value.type.bits
    if isinstance(e, ir.Variable) and e.type.is_integer() and e.type.bits <= 32:
        return 2.0 ** e.type.bits
    if isinstance(e, (ir.Add, ir.Sub)):
        return _magnitude(e.a) + _magnitude(e.b)
    return float("inf")


def _implied_by_finite(c, floats: list) -> bool:
    """Whether c holds whenever each f of floats is finite and |f| <= 2**53:
    c with `v != v` false and `abs(v) < inf` true (v the operand of such an
    f: f = trunc(v) is finite only if v is) and comparisons of
    such an f with constants beyond 2**53 decided simplifies to true."""
    pairs = []
    for f in floats:
        v = f.args[0]
        pairs.append((ir.NE(v, v), ir.Const(ir.Bool(), False)))
        pairs.append((ir.NE(f, f), ir.Const(ir.Bool(), False)))
        finite = ir.LT(ir.Call(v.type, "abs", (v,), ir.INTRINSIC), ir.Const(v.type, float("inf")))
        pairs.append((finite, ir.Const(ir.Bool(), True)))     # (int()'s check of inf)
    c = substitute_exprs(c, pairs)
    c = _DecideFar(floats).mutate(c)
    c = simplify(c)
    return isinstance(c, ir.Const) and c.value is True


class _DecideFar(ir.Mutator):
    """Comparisons of a bounded float f with a constant beyond 2**53 decided."""

    def __init__(self, floats):
        super().__init__()
        self.floats = floats

    def _far(self, e):
        if any(equal(e.a, f) for f in self.floats) and isinstance(e.b, ir.Const):
            return e.b.value
        return None

    def visit_LT(self, e):
        k = self._far(e)
        return _decided(e, k is not None and k > _EXACT)

    def visit_LE(self, e):
        k = self._far(e)
        return _decided(e, k is not None and k > _EXACT)

    def visit_GE(self, e):
        k = self._far(e)
        return _decided(e, k is not None and k < -_EXACT)

    def visit_GT(self, e):
        k = self._far(e)
        return _decided(e, k is not None and k < -_EXACT)


def _decided(e, true: bool):
    return ir.Const(ir.Bool(), True) if true else e


def _index_ranges(c) -> list:
    """(t, N) for each `0 - N <= t && t < N` conjunct of c (a wrapped index
    t asserted in Python's range of an axis of N elements)."""
    out = []
    bounds = _lo_hi(c)
    if bounds is not None:
        lo, t, hi = bounds
        if isinstance(lo, ir.Sub) and isinstance(lo.a, ir.Const) and lo.a.value == 0 \
                and equal(lo.b, hi):
            out.append((t, hi))
    elif isinstance(c, ir.And):
        out += _index_ranges(c.a) + _index_ranges(c.b)
    return out


class _Facts(ir.Mutator):
    """The fast body's statements: asserted conditions true, and the clamp
    max(min(int32(select(t < 0, t + N, t)), e - 1), 0) of an index t
    asserted in [-N, N) with N = int64(e) made int32(select(...))."""

    def __init__(self, facts, ranges, lets, exact):
        super().__init__()
        self.facts = facts
        self.ranges = ranges
        self.lets = lets
        self.exact = exact

    def mutate(self, n):
        if isinstance(n, ir.Expr):
            n = substitute_exprs(n, self.facts)
            n = simplify(n)
            n = _Unclamp(self.ranges, self.lets).mutate(n)
            return _ExactToInt(self.exact, self.lets).mutate(n) if self.exact else n
        return super().mutate(n)


class _Unclamp(ir.Mutator):
    def __init__(self, ranges, lets):
        super().__init__()
        self.ranges = ranges
        self.lets = lets
        self.resolve = _Resolver(lets, set(lets))

    def _value(self, e):
        return self.resolve(e) or e

    def visit_Max(self, e):
        inner = self._unclamped(e)
        return inner if inner is not None else self.mutate_children(e)

    def _unclamped(self, e):
        if not (isinstance(e.b, ir.Const) and e.b.value == 0 and isinstance(e.a, ir.Min)):
            return None
        cast, top = e.a.a, e.a.b
        if not (isinstance(cast, ir.Cast) and isinstance(cast.value, ir.Select)
                and isinstance(top, ir.Sub) and isinstance(top.b, ir.Const)
                and top.b.value == 1):
            return None
        sel = cast.value
        for t, n in self.ranges:
            if not equal(n, ir.Cast(n.type, top.a)):
                continue
            if _is_wrap(sel, t, n, self._value):
                return cast
        return None


def _is_wrap(sel, t, n, value) -> bool:
    """Whether sel is select(t < 0, t + N, t) (lets resolved by `value`)."""
    cond = value(sel.condition)
    if not (isinstance(cond, ir.LT) and equal(cond.a, t)
            and isinstance(cond.b, ir.Const) and cond.b.value == 0):
        return False
    if not equal(value(sel.false_value), t):
        return False
    up = value(sel.true_value)
    return isinstance(up, ir.Add) and (
        (equal(up.a, t) and equal(up.b, n)) or (equal(up.a, n) and equal(up.b, t)))


class _ExactToInt(ir.Mutator):
    """int64(f) of an f the fast condition bounds by 2**51 (a float range
    test of trunc/floor/ceil/round of a value) without the saturating
    conversion's range and NaN handling: the bits of f + 1.5 * 2**52."""

    def __init__(self, exact, lets):
        super().__init__()
        self.exact = exact
        self.lets = lets
        self.resolve = _Resolver(lets, set(lets))

    def visit_Cast(self, e):
        if e.type == ir.Int(64) and e.value.type == ir.Float(64):
            f = self.resolve(e.value)
            if f is not None and any(equal(f, x) for x in self.exact):
                shifted = ir.Add(e.value, ir.Const(ir.Float(64), _MAGIC))
                bits = ir.Call(ir.Int(64), "reinterpret", (shifted,), ir.INTRINSIC)
                return ir.Sub(bits, ir.Const(ir.Int(64), _MAGIC_BITS))
        return self.mutate_children(e)
