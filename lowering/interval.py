"""Interval arithmetic over integer expressions, for bounds inference.

An Interval holds symbolic endpoints (ir Exprs of the expression's type, or
None when unbounded) and, per endpoint, whether it came from the range of a
data value (`lo_data`/`hi_data`: a load's type range) rather than from loop
bounds, constants, clamps and arithmetic.

Soundness under wrapping: for types of at most 16 bits an interval whose
endpoints are not both constants, or whose constant endpoints overflow, widens
to the type's full range; for 32/64-bit types constant endpoints are checked
exactly (overflow -> unbounded), and symbolic index arithmetic is computed as
if it could not overflow: BoundsOf records every symbolic int32 endpoint of a
sum, difference or product in `obligations`, and the passes that rely on the
intervals check at run time that those fit int32 (index_overflow.py).

Float expressions get intervals only where a saturating cast to an integer
type bounds them (_FloatCast): the bilateral grid's `i32(clamp(v, 0, 1) /
r_sigma)` is bounded by the cast of its value at the clamp's ends.

Conditions known where an expression is evaluated (`BoundsOf.under`: an RDom
predicate, a select's condition in its branches) bound the subexpressions
that are one side of their comparisons by the other side, as Halide's bounds
inference uses RDom predicates: the frontend's hull loops (`range(max(0, j -
k), min(n, j + k + 1))` runs over a hull with the predicate `jj < min(n, j +
k + 1)`) read `x[jj]` only inside x."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pyhalide import ir
from pyhalide.ir.check_images import is_check_read
from pyhalide.ir.flat_index import is_flat_index

from .constant_fold import cast_value
from .int_ranges import exact_range
from .simplify import simplify

# BoundsOf._fixed: whether an expression is its own point where it is read
_NOT_FIXED, _FIXED, _FIXED_WITH_CHECKS = 0, 1, 2


@dataclass(frozen=True)
class Interval:
    lo: Optional[ir.Expr]
    hi: Optional[ir.Expr]
    lo_data: bool = False
    hi_data: bool = False

    def bounded(self) -> bool:
        return self.lo is not None and self.hi is not None

    def data_dependent(self) -> bool:
        return self.lo_data or self.hi_data

    @staticmethod
    def point(e: ir.Expr) -> "Interval":
        return Interval(e, e)


UNBOUNDED = Interval(None, None)
_INT32 = ir.Int(32)
_INT64 = ir.Int(64)
_MAX_CONTEXTS = 64          # scopes under facts per plain scope
_MAX_ATOMS = 16             # facts known at once


def _c(e):
    return e.value if isinstance(e, ir.Const) else None


def _s(e):
    return None if e is None else simplify(e, assume_no_overflow=True)


def type_range(t: ir.Type, data: bool) -> Interval:
    """The full range of a narrow integer type (or unbounded)."""
    if t.is_bool():
        return Interval(ir.Const(t, 0), ir.Const(t, 1), data, data)
    if t.is_integer() and t.bits <= 16:
        return Interval(ir.Const(t, t.min_value()), ir.Const(t, t.max_value()), data, data)
    return UNBOUNDED


def _fits(t: ir.Type, v) -> bool:
    return t.min_value() <= v <= t.max_value()


def _checked(t: ir.Type, iv: Interval) -> Interval:
    """Widen to the type's range where wrap-around could make it unsound."""
    if not t.is_integer():
        return iv
    lo, hi = _c(iv.lo), _c(iv.hi)
    data = iv.data_dependent()
    if t.bits <= 16:
        if lo is None or hi is None or not (_fits(t, lo) and _fits(t, hi)):
            return type_range(t, data)
        return iv
    for v in (lo, hi):
        if v is not None and not _fits(t, v):
            return UNBOUNDED
    return iv


def _const_exact(cls, t, a, b):
    """cls(a, b) on Python ints without wrapping (None if not foldable)."""
    if cls is ir.Add:
        return a + b
    if cls is ir.Sub:
        return a - b
    if cls is ir.Mul:
        return a * b
    return None


def _arith(cls, t, x, y):
    """Endpoint arithmetic: exact on constants (so overflow is visible),
    symbolic otherwise."""
    if x is None or y is None:
        return None
    cx, cy = _c(x), _c(y)
    if cx is not None and cy is not None:
        v = _const_exact(cls, t, cx, cy)
        if v is None:
            return None
        if t.is_integer() and not _fits(t, v):
            return _Overflow(v)
        return ir.Const(t, v)
    return _s(cls(x, y))


class _Overflow:
    """An endpoint that left its type (constants only)."""

    def __init__(self, v):
        self.value = v


def _make(t, lo, hi, lo_data, hi_data) -> Interval:
    if isinstance(lo, _Overflow) or isinstance(hi, _Overflow):
        return type_range(t, lo_data or hi_data) if t.bits <= 16 else UNBOUNDED
    return _checked(t, Interval(lo, hi, lo_data, hi_data))


class BoundsOf:
    """bounds(e) under a scope mapping variable names to Intervals.

    An expression that reads no memory and names only symbols the scope
    keeps fixed (no interval, or a loop fixed at its own value) is its own
    point, whatever its arithmetic (a narrowing cast `int32(min(n64, w))` of a
    loop extent included). Under `facts` (conditions known to hold where the
    expression is evaluated: an RDom predicate, a select's condition in its
    branches; `under`), each subexpression equal to one side of a comparison
    in them (up to lossless integer casts) is bounded by the other side too,
    and a select whose condition is one of them takes its branch."""

    def __init__(self, scope: dict, obligations: list | None = None, facts=None):
        self.scope = scope
        self.memo = {}
        # symbolic int32 endpoints of sums, differences and products: the
        # interval is right when each of them, computed exactly, fits int32
        self.obligations = [] if obligations is None else obligations
        # an int64 -> int32 cast is bounded by its value's ends, which must fit
        # int32 (obligations), only in the sides of facts (`sides`)
        self.narrowing = False
        self.facts = facts if facts is not None else _Facts()
        self.fixed = {}                 # id(e) -> (e, _fixed(e))
        # the same scope without facts (None: this one). No BoundsOf refers to
        # itself (children, plain, sides), so one no longer used is freed at
        # once, with its memo, not left to the cycle collector.
        self._plain = None
        self.children = {}              # (id(condition), truth) -> (condition, BoundsOf under
                                        # it, or None for this one)
        self._sides = None
        self._is_sides = False
        self.contexts = 0               # scopes made under facts from this one (as plain)

    @property
    def plain(self) -> "BoundsOf":
        return self if self._plain is None else self._plain

    def sides(self) -> "BoundsOf":
        """This scope without facts, for the other sides of facts: there an
        int64 -> int32 cast (a Python int bound narrowed, which the frontend
        checks fits) is bounded by its value's ends, with obligations that
        they fit int32. It only tightens intervals, so a read it bounds is
        one interval arithmetic bounds too (and access checks agree)."""
        plain = self.plain
        if plain._is_sides:
            return plain
        if plain._sides is None:
            plain._sides = BoundsOf(plain.scope, plain.obligations)
            plain._sides.narrowing = True
            plain._sides._is_sides = True
        return plain._sides

    def under(self, cond: ir.Expr, truth: bool = True) -> "BoundsOf":
        """This scope where `cond` is known to be `truth` (or, past
        _MAX_CONTEXTS scopes made from one plain scope or _MAX_ATOMS facts,
        this one: facts only tighten intervals, and each scope bounds its
        expressions again)."""
        key = (id(cond), truth)
        hit = self.children.get(key)
        if hit is not None and hit[0] is cond:
            return self if hit[1] is None else hit[1]
        plain = self.plain
        facts = self.facts
        if plain.contexts < _MAX_CONTEXTS and len(facts.atoms) < _MAX_ATOMS:
            facts = facts.adding(cond, truth)
        child = self
        if facts is not self.facts:
            plain.contexts += 1
            child = BoundsOf(self.scope, self.obligations, facts)
            child.fixed, child._plain, child.narrowing = self.fixed, plain, self.narrowing
        self.children[key] = (cond, None if child is self else child)
        return child

    def __call__(self, e: ir.Expr) -> Interval:
        hit = self.memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        r = self._bounds(e)
        fixed = _NOT_FIXED
        if (r.lo is None or r.lo is not r.hi) and e.type.is_scalar() and \
                (e.type.is_integer() or e.type.is_bool()):
            fixed = self._fixed(e)
        if fixed and not (isinstance(r.lo, ir.Const) and isinstance(r.hi, ir.Const) and
                          r.lo.value == r.hi.value):
            r = Interval.point(_checks_passed(e) if fixed == _FIXED_WITH_CHECKS else e)
        elif self.facts and e.type.is_scalar() and e.type.is_integer():
            r = self.facts.narrow(e, r, self)
        self.memo[id(e)] = (e, r)
        return r

    def is_own_point(self, e) -> bool:
        """Whether e is its own point here (no load, no name with an
        interval but its own point: every value it takes is e's value where
        it is evaluated; run-time check image reads count as 0, which they
        are wherever execution goes on past them)."""
        return self._fixed(e) != _NOT_FIXED

    def _fixed(self, e) -> int:
        """_NOT_FIXED, or whether e is its own point: _FIXED, or
        _FIXED_WITH_CHECKS where it reads run-time check images (its point
        is then _checks_passed(e))."""
        hit = self.fixed.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        if isinstance(e, ir.Variable):
            iv = self.scope.get(e.name)
            out = _FIXED if iv is None or (isinstance(iv.lo, ir.Variable) and
                                          iv.lo.name == e.name and iv.hi is iv.lo) \
                else _NOT_FIXED
        elif is_check_read(e):
            out = _FIXED_WITH_CHECKS    # 0 wherever execution goes on (_checks_passed)
        elif isinstance(e, (ir.Load, ir.Call, ir.Let)) or not isinstance(e, ir.Expr):
            out = _NOT_FIXED
        else:
            kids = [self._fixed(c) for c in ir.children(e)]
            out = _NOT_FIXED if _NOT_FIXED in kids else max(kids, default=_FIXED)
        self.fixed[id(e)] = (e, out)
        return out

    def _bounds(self, e) -> Interval:
        t = e.type
        if not t.is_scalar():
            return UNBOUNDED
        if isinstance(e, ir.Const):
            return Interval.point(e)
        if isinstance(e, ir.Variable):
            iv = self.scope.get(e.name)
            return iv if iv is not None else Interval.point(e)
        if not (t.is_integer() or t.is_bool()):
            return UNBOUNDED
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:
            return type_range(t, self._has_data(e))
        return method(e)

    def _has_data(self, e) -> bool:
        return ir.reads_memory(e)

    # arithmetic ----------------------------------------------------------------
    def _oblige(self, iv: Interval) -> Interval:
        self.obligations.extend(x for x in (iv.lo, iv.hi) if x is not None
                                and x.type == _INT32 and not isinstance(x, ir.Const))
        return iv

    def _Add(self, e):
        a, b = self(e.a), self(e.b)
        return self._oblige(_make(e.type, _arith(ir.Add, e.type, a.lo, b.lo),
                                  _arith(ir.Add, e.type, a.hi, b.hi),
                                  a.lo_data or b.lo_data, a.hi_data or b.hi_data))

    def _Sub(self, e):
        a, b = self(e.a), self(e.b)
        t = e.type
        lo = _arith(ir.Sub, t, a.lo, b.hi)
        hi = _arith(ir.Sub, t, a.hi, b.lo)
        if t.is_uint() and not isinstance(lo, ir.Const):
            lo = _Overflow(-1)        # may wrap below zero
        return self._oblige(_make(t, lo, hi, a.lo_data or b.hi_data, a.hi_data or b.lo_data))

    def _Mul(self, e):
        a, b = self(e.a), self(e.b)
        t = e.type
        def const_point(iv):
            return _c(iv.lo) is not None and ir.equal(iv.lo, iv.hi)
        if const_point(a) and not const_point(b):        # k * e: scale e by k
            a, b = b, a
        k_lo, k_hi = _c(b.lo), _c(b.hi)
        if k_lo is not None and k_hi is not None and k_lo == k_hi:
            k = ir.Const(t, k_lo) if _fits(t, k_lo) else None
            if k is None:
                return UNBOUNDED
            lo, hi = _arith(ir.Mul, t, a.lo, k), _arith(ir.Mul, t, a.hi, k)
            if k_lo < 0:
                return self._oblige(_make(t, hi, lo, a.hi_data, a.lo_data))
            return self._oblige(_make(t, lo, hi, a.lo_data, a.hi_data))
        ends = [_c(a.lo), _c(a.hi), k_lo, k_hi]
        if all(v is not None for v in ends):
            prods = [x * y for x in ends[:2] for y in ends[2:]]
            data = a.data_dependent() or b.data_dependent()
            lo, hi = min(prods), max(prods)
            if not (_fits(t, lo) and _fits(t, hi)):
                return _make(t, _Overflow(lo), _Overflow(hi), data, data)
            return _make(t, ir.Const(t, lo), ir.Const(t, hi), data, data)
        return type_range(t, a.data_dependent() or b.data_dependent())

    def _Div(self, e):
        a, b = self(e.a), self(e.b)
        t = e.type
        k = _c(b.lo)
        if k is not None and k == _c(b.hi) and k != 0:
            if k > 0:
                lo = None if a.lo is None else _s(ir.Div(a.lo, ir.Const(t, k)))
                hi = None if a.hi is None else _s(ir.Div(a.hi, ir.Const(t, k)))
                return _make(t, lo, hi, a.lo_data, a.hi_data)
            lo = None if a.hi is None else _s(ir.Div(a.hi, ir.Const(t, k)))
            hi = None if a.lo is None else _s(ir.Div(a.lo, ir.Const(t, k)))
            return _make(t, lo, hi, a.hi_data, a.lo_data)
        return type_range(t, a.data_dependent() or b.data_dependent())

    def _Mod(self, e):
        b = self(e.b)
        t = e.type
        k_lo, k_hi = _c(b.lo), _c(b.hi)
        if k_lo is not None and k_hi is not None:
            m = max(abs(k_lo), abs(k_hi))
            return Interval(ir.Const(t, 0), ir.Const(t, max(m - 1, 0)))
        return type_range(t, self._has_data(e))

    def _minmax(self, e, is_min: bool):
        a, b = self(e.a), self(e.b)
        cls = ir.Min if is_min else ir.Max
        t = e.type

        def both(x, y):
            return None if x is None or y is None else _s(cls(x, y))

        def either(x, xd, y, yd):
            # a bound that holds for one operand bounds min (upper) / max (lower)
            if x is None:
                return y, yd
            if y is None:
                return x, xd
            if xd and not yd:
                return y, False
            if yd and not xd:
                return x, False
            return _s(cls(x, y)), xd and yd

        if is_min:
            hi, hi_d = either(a.hi, a.hi_data, b.hi, b.hi_data)
            lo, lo_d = both(a.lo, b.lo), a.lo_data or b.lo_data
        else:
            lo, lo_d = either(a.lo, a.lo_data, b.lo, b.lo_data)
            hi, hi_d = both(a.hi, b.hi), a.hi_data or b.hi_data
        return _checked(t, Interval(lo, hi, lo_d, hi_d))

    def _Min(self, e):
        return self._minmax(e, True)

    def _Max(self, e):
        return self._minmax(e, False)

    def _Select(self, e):
        return self._branches(e.condition, e.true_value, e.false_value)

    def _branches(self, cond, a, b) -> Interval:
        known = self.facts.known(cond)
        if known is not None:
            return self.under(cond, known)(a if known else b)
        return union(self.under(cond, True)(a), self.under(cond, False)(b))

    def _Cast(self, e):
        t, src = e.type, e.value.type
        a = self(e.value)
        if src.is_float():
            lo, hi = _c(a.lo), _c(a.hi)
            if lo is not None and hi is not None:
                return Interval(ir.Const(t, cast_value(t, src, lo)), ir.Const(t, cast_value(t, src, hi)),
                                a.lo_data, a.hi_data)
            iv = _FloatCast(self).bounds(e)
            return iv if iv is not None else type_range(t, a.data_dependent())
        if src.is_bool():
            return Interval(ir.Const(t, 0), ir.Const(t, 1))
        if _lossless(src, t):
            lo = None if a.lo is None else _s(ir.Cast(t, a.lo))
            hi = None if a.hi is None else _s(ir.Cast(t, a.hi))
            return Interval(lo, hi, a.lo_data, a.hi_data)
        lo, hi = _c(a.lo), _c(a.hi)
        if lo is not None and hi is not None and _fits(t, lo) and _fits(t, hi):
            return Interval(ir.Const(t, lo), ir.Const(t, hi), a.lo_data, a.hi_data)
        if self.narrowing and t == _INT32 and src == _INT64 and a.bounded() and \
                all(v is None or _fits(t, v) for v in (lo, hi)):
            # exact where both ends fit int32 (an obligation: index_overflow)
            self.obligations.extend((a.lo, a.hi))
            return Interval(_s(ir.Cast(t, a.lo)), _s(ir.Cast(t, a.hi)), a.lo_data, a.hi_data)
        if t.bits <= 16:
            return type_range(t, a.data_dependent())
        return UNBOUNDED

    def _BitAnd(self, e):
        a, b = self(e.a), self(e.b)
        for x in (a, b):
            k = _c(x.lo)
            if k is not None and k == _c(x.hi) and k >= 0:
                return Interval(ir.Const(e.type, 0), ir.Const(e.type, k))
        return type_range(e.type, a.data_dependent() or b.data_dependent())

    def _Shr(self, e):
        a, b = self(e.a), self(e.b)
        k = _c(b.lo)
        lo = _c(a.lo)
        if k is not None and k == _c(b.hi) and 0 <= k < e.type.bits and lo is not None and lo >= 0 \
                and a.hi is not None:
            return _make(e.type, ir.Const(e.type, lo >> k), _s(ir.Shr(a.hi, ir.Const(e.type, k))),
                         a.lo_data, a.hi_data)
        return type_range(e.type, a.data_dependent() or b.data_dependent())

    def _Call(self, e):
        if is_flat_index(e):         # the interval it promises
            lo, hi = self(e.args[1]), self(e.args[2])
            return Interval(lo.lo, hi.hi, lo.lo_data, hi.hi_data)
        if e.call_type == ir.INTRINSIC and e.name == "if_then_else":
            return self._branches(*e.args)
        if e.call_type == ir.INTRINSIC and e.name == "abs":
            a = self(e.args[0])
            lo, hi = _c(a.lo), _c(a.hi)
            if lo is not None and hi is not None:
                m = max(abs(lo), abs(hi))
                return _make(e.type, ir.Const(e.type, 0), ir.Const(e.type, m) if _fits(e.type, m)
                             else _Overflow(m), a.lo_data, a.hi_data)
        return type_range(e.type, True)

    def _Load(self, e):
        return type_range(e.type, True)

    def _Let(self, e):
        inner = BoundsOf({**self.scope, e.name: self(e.value)}, self.obligations, self.facts)
        inner.narrowing = self.narrowing
        return inner(e.body)


def _lossless(src: ir.Type, t: ir.Type) -> bool:
    """Whether every integer of type src is one of type t."""
    return src.is_integer() and t.is_integer() and (
        (src.is_uint() and (t.bits > src.bits or (t.is_uint() and t.bits >= src.bits))) or
        (src.is_int() and t.is_int() and t.bits >= src.bits))


def _strip(e):
    """e without its lossless integer casts (the same value)."""
    while isinstance(e, ir.Cast) and _lossless(e.value.type, e.type):
        e = e.value
    return e


_NEGATED = {ir.LT: ir.GE, ir.LE: ir.GT, ir.GT: ir.LE, ir.GE: ir.LT, ir.EQ: ir.NE, ir.NE: ir.EQ}


class _Facts:
    """Conditions known to hold: `atoms`, (condition, truth) pairs, and from
    their integer comparisons `entries` (key, hash, side, upper, offset):
    an expression whose value is key's (lossless casts stripped) is at most
    (upper) / at least side + offset."""

    def __init__(self, atoms=(), entries=(), hashes=None):
        self.atoms = atoms
        self.entries = entries
        self.hashes = {} if hashes is None else hashes    # id -> (e, structural hash)

    def __bool__(self):
        return bool(self.entries)

    def adding(self, cond, truth: bool) -> "_Facts":
        atoms = []
        _decompose(cond, truth, atoms)
        entries = [x for atom, t in atoms for x in self._entries(atom, t)]
        if not entries:
            return self             # (no integer comparison: nothing to bound)
        return _Facts(self.atoms + tuple(atoms), self.entries + tuple(entries), self.hashes)

    def known(self, cond):
        """The truth of `cond` if it is one of the atoms, else None."""
        truth = True
        while True:
            if isinstance(cond, ir.Not):
                cond, truth = cond.a, not truth
            elif isinstance(cond, ir.Call) and cond.call_type == ir.INTRINSIC and \
                    cond.name == "likely" and len(cond.args) == 1:
                cond = cond.args[0]
            else:
                break
        for atom, t in self.atoms:
            if ir.equal(atom, cond):
                return t == truth
        return None

    def _entries(self, atom, truth: bool):
        cls = type(atom)
        if cls not in _NEGATED or not (atom.a.type.is_scalar() and atom.a.type.is_integer()):
            return []
        if not truth:
            cls = _NEGATED[cls]
        a, b = atom.a, atom.b
        if cls in (ir.GT, ir.GE):
            a, b, cls = b, a, (ir.LT if cls is ir.GT else ir.LE)
        if cls is ir.NE:
            return []
        off = 1 if cls is ir.LT else 0
        out = [(a, b, True, -off), (b, a, False, off)]
        if cls is ir.EQ:
            out += [(a, b, False, 0), (b, a, True, 0)]
        return [(k, self._hash(k), side, upper, o) for k, side, upper, o in
                ((_strip(k), side, upper, o) for k, side, upper, o in out)
                if not isinstance(k, ir.Const)]

    def _value(self, e):
        """An expression of e's value: e without its lossless integer casts and
        selects whose condition is known."""
        while True:
            e = _strip(e)
            if isinstance(e, ir.Select) or ir.is_lazy_select(e):
                c, a, b = (e.condition, e.true_value, e.false_value) \
                    if isinstance(e, ir.Select) else e.args
                known = self.known(c)
                if known is not None:
                    e = a if known else b
                    continue
            return e

    def _hash(self, e) -> int:
        hit = self.hashes.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        parts = [type(e).__name__]
        for name in ir.node_fields(type(e)):
            v = getattr(e, name)
            if isinstance(v, ir.IRNode):
                parts.append(self._hash(v))
            elif isinstance(v, tuple):
                parts.append(tuple(self._hash(x) if isinstance(x, ir.IRNode) else repr(x)
                                   for x in v))
            elif isinstance(v, (str, int, float, bool, ir.Type)):
                parts.append(v)
        h = hash(tuple(parts))
        self.hashes[id(e)] = (e, h)
        return h

    def narrow(self, e, r: Interval, bounds: "BoundsOf") -> Interval:
        """r, e's interval, intersected with what the facts say of e."""
        key = self._value(e)
        h = self._hash(key)
        for k, kh, side, upper, off in self.entries:
            if kh != h or not ir.equal(k, key):
                continue
            iv = bounds.sides()(_strip(side))
            end = _converted(iv.hi if upper else iv.lo, off, e.type)
            if end is None:
                continue
            bounds._oblige(Interval(end, None))
            data = iv.hi_data if upper else iv.lo_data
            old, old_data = (r.hi, r.hi_data) if upper else (r.lo, r.lo_data)
            if old is None or (old_data and not data):
                new, new_data = end, data
            elif data and not old_data:
                continue
            else:
                new, new_data = _s((ir.Min if upper else ir.Max)(old, end)), old_data and data
            r = Interval(r.lo, new, r.lo_data, new_data) if upper else \
                Interval(new, r.hi, new_data, r.hi_data)
        return r


def _decompose(cond, truth: bool, out: list) -> None:
    """The atoms (condition, truth) that hold where `cond` is `truth`."""
    if isinstance(cond, ir.Not):
        return _decompose(cond.a, not truth, out)
    if isinstance(cond, ir.Call) and cond.call_type == ir.INTRINSIC and \
            cond.name == "likely" and len(cond.args) == 1:
        return _decompose(cond.args[0], truth, out)
    if isinstance(cond, ir.And if truth else ir.Or):
        _decompose(cond.a, truth, out)
        return _decompose(cond.b, truth, out)
    if truth and (isinstance(cond, ir.Select) or ir.is_lazy_select(cond)):
        c, p, q = (cond.condition, cond.true_value, cond.false_value) \
            if isinstance(cond, ir.Select) else cond.args
        if isinstance(q, ir.Const) and not q.value:      # c && p
            _decompose(c, True, out)
            return _decompose(p, True, out)
    if isinstance(cond, ir.Const):
        return None
    out.append((cond, truth))
    return None


def _converted(end, off: int, t: ir.Type):
    """end + off as an Expr of type t bounding the same side (None: none)."""
    if end is None:
        return None
    v = _c(end)
    if v is not None:
        return ir.Const(t, min(max(v + off, t.min_value()), t.max_value()))
    if t.bits <= 16:
        return None                 # (symbolic narrow endpoints widen to the type)
    if end.type != t:
        if not _lossless(end.type, t):
            return None
        end = ir.Cast(t, end)
    if off == 0:
        return end
    moved = ir.Add(end, ir.Const(t, off))
    r = exact_range(moved, {})
    if r is not None and t.min_value() <= r[0] and r[1] <= t.max_value():
        return _s(moved)
    # end + off may wrap (`r.x < b` at b = -2**31: b - 1): end saturated first,
    # a looser bound where it would leave t (no value of the side's type is
    # beyond it there), which never wraps
    if off > 0:
        return _s(ir.Add(ir.Min(end, ir.Const(t, t.max_value() - off)), ir.Const(t, off)))
    return _s(ir.Add(ir.Max(end, ir.Const(t, t.min_value() - off)), ir.Const(t, off)))


def union(a: Interval, b: Interval) -> Interval:
    lo = None if a.lo is None or b.lo is None else _s(ir.Min(a.lo, b.lo))
    hi = None if a.hi is None or b.hi is None else _s(ir.Max(a.hi, b.hi))
    return Interval(lo, hi, a.lo_data or b.lo_data, a.hi_data or b.hi_data)


def bounds_of(e: ir.Expr, scope: dict) -> Interval:
    return BoundsOf(scope)(e)


class _FloatCast:
    """Bounds of a saturating cast of a float expression to an integer type
    (NaN -> 0, +-inf -> the type's ends, as codegen's llvm.fpto[su]i.sat):
    the value is a chain of + - * / whose other operands are points (no
    loop variable with an interval, no load) down to one varying leaf, a
    Min/Max with bounded ends or a cast of a bounded integer. Each step is
    monotone in the leaf (IEEE rounding is monotone; where an infinity makes
    a step NaN, the values around it are infinities of the sides the
    saturation maps below and above 0, so the cast stays monotone), so the
    cast lies between its values at the leaf's ends; 0 is added for a NaN
    leaf (a Min/Max of a NaN may give it)."""

    def __init__(self, bounds: "BoundsOf"):
        self.b = bounds

    def _point(self, e) -> bool:
        if ir.reads_memory(e):
            return False
        for name in ir.free_vars(e):
            iv = self.b.scope.get(name)
            if iv is not None and not (iv.lo is not None and iv.lo is iv.hi or
                                       (iv.lo is not None and iv.hi is not None and
                                        ir.equal(iv.lo, iv.hi))):
                return False
        return True

    def bounds(self, cast: ir.Cast):
        if self._point(cast.value):
            return Interval.point(cast)
        found = self._chain(cast.value)
        if found is None:
            return None
        leaf, rebuild = found
        ends = self._leaf(leaf)
        if ends is None or ends.lo is None or ends.hi is None:
            return None
        t, zero = cast.type, ir.Const(cast.type, 0)
        at_lo, at_hi = (_s(ir.Cast(t, rebuild(x))) for x in (ends.lo, ends.hi))
        lo = _s(ir.Min(ir.Min(at_lo, at_hi), zero))
        hi = _s(ir.Max(ir.Max(at_lo, at_hi), zero))
        return Interval(lo, hi, ends.lo_data, ends.hi_data)

    def _chain(self, e):
        """(leaf, rebuild): e is rebuild(leaf), each step monotone in it."""
        if isinstance(e, (ir.Add, ir.Sub, ir.Mul, ir.Div)):
            cls = type(e)
            if self._point(e.b):
                inner = self._chain(e.a)
                if inner is not None:
                    leaf, f = inner
                    return leaf, lambda x: cls(f(x), e.b)
                return None
            if cls is not ir.Div and self._point(e.a):
                inner = self._chain(e.b)
                if inner is not None:
                    leaf, f = inner
                    return leaf, lambda x: cls(e.a, f(x))
            return None
        if isinstance(e, ir.Cast) and e.value.type.is_float():
            inner = self._chain(e.value)
            if inner is not None:
                leaf, f = inner
                return leaf, lambda x: ir.Cast(e.type, f(x))
            return None
        return e, lambda x: x

    def _leaf(self, e):
        """A float interval holding every value of e that is not NaN (None:
        unbounded)."""
        if isinstance(e, ir.Const):
            return None if e.value != e.value else Interval.point(e)
        if isinstance(e, ir.Cast) and not e.value.type.is_float():
            iv = self.b(e.value)
            if not iv.bounded():
                return None
            return Interval(_s(ir.Cast(e.type, iv.lo)), _s(ir.Cast(e.type, iv.hi)),
                            iv.lo_data, iv.hi_data)
        if isinstance(e, (ir.Min, ir.Max)):
            # select(a < b, a, b) / select(a > b, a, b): the result is a (then on
            # the right side of b) or b, so b's far end bounds it alone
            a = self._leaf(e.a) or UNBOUNDED
            b = self._leaf(e.b) or UNBOUNDED
            data = ir.reads_memory(e)
            if isinstance(e, ir.Min):
                lo = None if a.lo is None or b.lo is None else _s(ir.Min(a.lo, b.lo))
                return Interval(lo, b.hi, data, data)
            hi = None if a.hi is None or b.hi is None else _s(ir.Max(a.hi, b.hi))
            return Interval(b.lo, hi, data, data)
        return None


def _checks_passed(e: ir.Expr) -> ir.Expr:
    """e with its reads of run-time check images (pyhalide.checks) as 0: the
    value they have wherever execution goes on past them (a failing check
    raises), so the value bounds of the reads it guards; the check image's
    own reads keep their index and are checked on their own."""
    return ir.FuncMutator(
        lambda n: ir.Const(n.type, 0) if is_check_read(n) else None).mutate(e)
