"""Run-time conditions that symbolic index arithmetic does not wrap.

Interval arithmetic (interval.py) computes the endpoints of int32 index
sums, differences and products symbolically, as if they could not overflow;
with a Param or a buffer coordinate near the ends of int32 they can
(`f[int32(img[r]) + off]` with off = 2**31 - 100). BoundsOf records each such
symbolic endpoint as an obligation; this module turns obligations into a
condition that evaluates every endpoint exactly (in int64: its int32 leaves
widened) and holds when all of them are in int32's range. When it holds,
every index computed inside the intervals equals its exact value, so the
regions bounds inference computes contain it.

    fits_int32(exprs, ranges=None) -> Expr (Bool)
    surely_fits(e) -> bool  e fits int32 for every value of its leaves
    widened(e) -> Expr      int32 e computed exactly in int64
    overflow_asserts(exprs, what, ranges=None) -> [AssertStmt]
    WholeRanges()       what one pass shares between its calls (`ranges`)
"""
from __future__ import annotations

from pyhalide import ir

from .interval import BoundsOf, Interval
from .simplify import structural_hash

_I32 = ir.Int(32)
_I64 = ir.Int(64)
_RING = (ir.Add, ir.Sub, ir.Mul, ir.Min, ir.Max)


def _widened(e: ir.Expr, memo: dict) -> ir.Expr:
    """e (int32) computed exactly in int64: sums, differences, products,
    min and max of widened operands; any other node is its int32 value."""
    hit = memo.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if isinstance(e, ir.Const):
        out = ir.Const(_I64, e.value)
    elif isinstance(e, _RING):
        out = type(e)(_widened(e.a, memo), _widened(e.b, memo))
    elif isinstance(e, ir.Select):
        out = ir.Select(e.condition, _widened(e.true_value, memo), _widened(e.false_value, memo))
    elif isinstance(e, ir.Cast) and e.value.type.is_integer() and e.value.type.bits < 32:
        out = ir.Cast(_I64, e.value)
    else:
        out = ir.Cast(_I64, e)
    memo[id(e)] = (e, out)
    return out


def _leaf_interval(v: ir.Variable):
    """All the values a leaf can take: a buffer extent is never negative."""
    t = v.type
    if not t.is_integer():
        return None
    lo = 0 if ".extent." in v.name else t.min_value()
    return Interval(ir.Const(t, lo), ir.Const(t, t.max_value()))


class WholeRanges:
    """Interval arithmetic over every leaf's whole range (_leaf_interval),
    one BoundsOf shared by the expressions of the calls given it (a pass
    makes one and passes it to each call as `ranges`): a subexpression
    several endpoints share is bounded once, and an expression checked
    before (the same node: the stages of a pass restate their bounds with
    shared nodes) is not checked again. A leaf's interval depends on the
    leaf alone, so adding the leaves of the next expression to the scope
    changes no interval found before, and whether an expression surely fits
    depends on the expression alone."""

    def __init__(self):
        self.scope = {}
        self.types = {}
        self.bounds = BoundsOf(self.scope)
        self.fits: dict = {}        # id(e) -> (e, _surely_fits(e))

    def of(self, e: ir.Expr):
        """The BoundsOf for e (all its leaves in scope), or None when a leaf
        is not an integer."""
        own = None
        for name, v in ir.free_vars(e).items():
            t = self.types.get(name)
            if t is None:
                iv = _leaf_interval(v)
                if iv is None:
                    return None
                self.scope[name], self.types[name] = iv, v.type
            elif t != v.type:
                own = True          # a name of another type elsewhere: e alone
        if own:
            scope = {}
            for name, v in ir.free_vars(e).items():
                iv = _leaf_interval(v)
                if iv is None:
                    return None
                scope[name] = iv
            return BoundsOf(scope)
        return self.bounds


def _surely_fits(e: ir.Expr, ranges: WholeRanges | None = None) -> bool:
    """Whether e fits int32 for every value of its leaves: interval arithmetic
    over the leaves' whole ranges, exact on constants, which leaves an end
    unbounded where it would leave the type; or, where that fails inside,
    the checked value itself (_widened: sums, differences, products, min
    and max exact over int32 leaves) is in int32's range for every value of
    those leaves (`max(x / 2, (x + 1) / 2) + 1`). Memoized in ranges.fits."""
    ranges = ranges or WholeRanges()
    hit = ranges.fits.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    out = _fits(e, ranges)
    ranges.fits[id(e)] = (e, out)
    return out


def surely_fits(e: ir.Expr) -> bool:
    """Whether int32 e fits int32 for every value of its leaves (_surely_fits)."""
    return _surely_fits(e)


def widened(e: ir.Expr) -> ir.Expr:
    """int32 e computed exactly in int64 (_widened)."""
    return _widened(e, {})


def _fits(e: ir.Expr, ranges: WholeRanges) -> bool:
    bounds = ranges.of(e)
    if bounds is None:
        return False
    iv = bounds(e)
    if isinstance(iv.lo, ir.Const) and isinstance(iv.hi, ir.Const):
        return _I32.min_value() <= iv.lo.value and iv.hi.value <= _I32.max_value()
    if e.type != _I32:
        return False
    r = _widened_range(_widened(e, {}), bounds, {})
    return r is not None and _I32.min_value() <= r[0] and r[1] <= _I32.max_value()


def _widened_range(w: ir.Expr, bounds: BoundsOf, memo: dict):
    """(lo, hi) of a _widened expression over all values of its leaves (Python
    ints, exact), or None. A leaf is an int32 value (or a narrower one) cast
    to int64: its interval over the leaves' whole ranges where that is
    bounded (no step of it left its type), else its type's range."""
    hit = memo.get(id(w))
    if hit is not None and hit[0] is w:
        return hit[1]
    if isinstance(w, ir.Const):
        r = (w.value, w.value)
    elif isinstance(w, (ir.Add, ir.Sub, ir.Mul, ir.Min, ir.Max)):
        a, b = _widened_range(w.a, bounds, memo), _widened_range(w.b, bounds, memo)
        if a is None or b is None:
            r = None
        elif isinstance(w, ir.Add):
            r = (a[0] + b[0], a[1] + b[1])
        elif isinstance(w, ir.Sub):
            r = (a[0] - b[1], a[1] - b[0])
        elif isinstance(w, ir.Mul):
            prods = [x * y for x in a for y in b]
            r = (min(prods), max(prods))
        elif isinstance(w, ir.Min):
            r = (min(a[0], b[0]), min(a[1], b[1]))
        else:
            r = (max(a[0], b[0]), max(a[1], b[1]))
    elif isinstance(w, ir.Select):
        a = _widened_range(w.true_value, bounds, memo)
        b = _widened_range(w.false_value, bounds, memo)
        r = None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
    elif isinstance(w, ir.Cast) and w.type == _I64 and w.value.type.is_integer() and \
            w.value.type.bits <= 32 and w.value.type.is_scalar():
        x, t = w.value, w.value.type
        iv = bounds(x)
        if isinstance(iv.lo, ir.Const) and isinstance(iv.hi, ir.Const):
            r = (iv.lo.value, iv.hi.value)
        else:
            r = (t.min_value(), t.max_value())
    else:
        r = None
    memo[id(w)] = (w, r)
    return r


def _distinct(exprs, ranges: WholeRanges | None = None) -> list:
    """The int32 expressions of `exprs` that could leave int32's range, once
    each (and int64 ones: the value of a narrowing cast an interval took as
    exact), in their order."""
    out = []
    kinds: dict = {}            # (node class, type) -> the expressions of out of it
    shapes: dict = {}           # structural hash -> the expressions seen with it
    ranges = ranges or WholeRanges()
    for e in exprs:
        if e is None or e.type not in (_I32, _I64) or \
                (e.type == _I32 and isinstance(e, (ir.Const, ir.Variable))):
            continue
        # an expression equal to one seen before has its answer (in out, or
        # surely fits): the endpoints of a stage's accesses repeat (gray_scott:
        # 2,560 endpoints, 80 distinct)
        h = structural_hash(e)
        if h is not None:
            seen = shapes.setdefault(h, [])
            if any(ir.equal(e, x) for x in seen):
                continue
            seen.append(e)
        same = kinds.setdefault((type(e), e.type), [])
        if not any(ir.equal(e, s) for s in same) and not _surely_fits(e, ranges):
            out.append(e)
            same.append(e)
    return out


def _base_and_offset(e: ir.Expr):
    """(base, c) with e = base + c for a constant c (0 when e adds none)."""
    if isinstance(e, (ir.Add, ir.Sub)) and isinstance(e.b, ir.Const) and \
            e.b.type.is_integer():
        return e.a, e.b.value if isinstance(e, ir.Add) else -e.b.value
    return e, 0


def _offset(w: ir.Expr, c: int) -> ir.Expr:
    return w if c == 0 else ir.Add(w, ir.Const(w.type, c))


def _conditions(exprs) -> list:
    """Bool Exprs, all true exactly when every expression of `exprs` (each
    distinct and not surely in range: _distinct) fits int32 computed exactly.
    Expressions that differ by a constant (`2*e - 1`, `2*e`, `2*e + 1`: the
    ends of neighbouring intervals) share their base: one lower bound at the
    least offset and one upper bound at the greatest (b + c is exact and grows
    with c, so those two hold exactly when all of them do)."""
    groups: list = []           # [base, least offset, greatest offset]
    for e in exprs:
        base, c = _base_and_offset(e)
        for g in groups:
            if g[0].type == base.type and ir.equal(g[0], base):
                g[1], g[2] = min(g[1], c), max(g[2], c)
                break
        else:
            groups.append([base, c, c])
    memo: dict = {}
    out = []
    for base, lo, hi in groups:
        w = _widened(base, memo)
        out.append(ir.LE(ir.Const(_I64, _I32.min_value()), _offset(w, lo)))
        out.append(ir.LE(_offset(w, hi), ir.Const(_I64, _I32.max_value())))
    return out


def fits_int32(exprs, ranges: WholeRanges | None = None) -> ir.Expr:
    """Bool: every int32 expression of `exprs`, computed exactly, is in
    int32's range (true for an empty list)."""
    conds = _conditions(_distinct(exprs, ranges))
    return ir.conjunction(conds) if conds else ir.Const(ir.Bool(), 1)


def overflow_asserts(exprs, what: str, ranges: WholeRanges | None = None) -> list:
    """An AssertStmt raising OverflowError unless each expression of `exprs`
    fits int32 exactly (one assert for all of them, none when every one
    surely fits: a failure names `what`, whichever expression failed)."""
    conds = _conditions(_distinct(exprs, ranges))
    if not conds:
        return []
    return [ir.AssertStmt(
        ir.conjunction(conds), "OverflowError",
        f"index arithmetic of {what} overflows int32 for these parameter values and "
        f"buffer sizes: an index would wrap around (keep indices within "
        f"[-2**31, 2**31 - 1])", ())]
