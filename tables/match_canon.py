"""Canonical form of an update's values before table matching.

The values arrive with every read of the Func's own value at the update's
left-hand side replaced by a Variable of kind SELF named x<i> (element i).
Only the parts that contain some x are rewritten; x-free subtrees (what the
wildcards y and k will bind) are kept exactly as the user wrote them.

Rewrites, each exact for the type it is applied to:
- constant folding of integer and boolean operations on constants;
- `a > b` -> `b < a`, `a >= b` -> `b <= a`; `!(a < b)` -> `b <= a` (and the
  other comparisons);
- chains of Add/Sub, Mul, Min, Max, bitwise and logical operations are
  flattened and rebuilt with the x-terms first (lowest x index first) and the
  x-free terms combined into one subtree after them, constants last, so
  `(f + g) + 3` becomes `x0 + (g + 3)`. Integer arithmetic wraps, so this is
  exact for integers; for floats it reassociates, which rfactor is allowed to
  do, and a `+ 0.0` (`x - e` written `x + (0.0 - e)`) is dropped from a sum
  with x-terms (it changes at most the sign of a zero sum). A term with a
  positive sign is never turned into a subtraction, so `x + y * -5` stays as
  it is;
- `select(c, a, b)` with x only in `b` becomes `select(!c, b, a)` (x in the
  true branch); `select(a < b, a, b)` becomes `min(a, b)` (and the `<=`,
  `max` forms); a select of booleans with a constant branch whose condition
  is x-free or a bare x becomes a logical operation (`select(c, true, b)` is
  `c || b`); a spelled-out lexicographic tie-break `select(p < q || (p == q
  && a < b), a, b)` becomes the tables' nested form (`_tie_break`);
- a bool cast to an integer type becomes `select(c, 1, 0)`; the unsigned
  headroom test `M - a < b` (M the type's maximum) with x in a becomes
  `M - b < a` (`_headroom`);
- a saturating add of an unsigned type written as a clamped sum in a wider
  type (what `ph.saturating_add` builds) becomes the tables' form
  `t(min(u2t(a) + u2t(b), t's maximum))` (`_saturating_add`), and the carry
  test `x + y < y` of an unsigned sum becomes `x + y < x`;
- for floats only, `min/max(x + a, x + b)` becomes `x + min/max(a, b)` (a bare
  `x` counts as `x + 0`). Rounding is monotonic, so this is exact for floats;
  integer additions wrap, so it is not done for integers (`max(f + g, f)` is
  refused, see `factoring_refusal`).
"""
from __future__ import annotations

import dataclasses

from pyhalide import ir

SELF = "self"            # Variable kind of the Func's own value

# chain kinds: (IR class names) -> the kind that holds the chain
_CHAIN = {"Add": "Add", "Sub": "Add", "Mul": "Mul", "Min": "Min", "Max": "Max",
          "BitAnd": "BitAnd", "BitOr": "BitOr", "BitXor": "BitXor", "And": "And", "Or": "Or"}
_NEG_CMP = {ir.LT: ir.LE, ir.LE: ir.LT}


def self_var(t: ir.Type, i: int) -> ir.Variable:
    return ir.Variable(t, f"x{i}", SELF)


def is_self(e) -> bool:
    return isinstance(e, ir.Variable) and e.kind == SELF


def self_index(e) -> int:
    return int(e.name[1:])


class XInfo:
    """Which x's (self-reference indices) each node uses, memoized by node id."""

    def __init__(self):
        self.memo = {}

    def xs(self, e) -> frozenset:
        hit = self.memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        if is_self(e):
            out = frozenset((self_index(e),))
        else:
            out = frozenset()
            for c in ir.children(e):
                out |= self.xs(c)
        self.memo[id(e)] = (e, out)
        return out

    def has_x(self, e) -> bool:
        return bool(self.xs(e))


def negate(c: ir.Expr) -> ir.Expr:
    """The condition `!c`, with comparisons flipped instead of wrapped."""
    if isinstance(c, ir.Not):
        return c.a
    if type(c) in _NEG_CMP:
        return _NEG_CMP[type(c)](c.b, c.a)
    if isinstance(c, ir.GT):
        return ir.LE(c.a, c.b)
    if isinstance(c, ir.GE):
        return ir.LT(c.a, c.b)
    if isinstance(c, ir.EQ):
        return ir.NE(c.a, c.b)
    if isinstance(c, ir.NE):
        return ir.EQ(c.a, c.b)
    return ir.Not(c)


def _fold(e):
    """Fold an integer/bool operation on constants (None if not foldable)."""
    if isinstance(e, ir.Not) and isinstance(e.a, ir.Const):
        return ir.Const(e.type, not e.a.value)
    if not isinstance(e, ir.BinaryOp) or not (isinstance(e.a, ir.Const) and isinstance(e.b, ir.Const)):
        return None
    t = e.a.type
    if t.is_float():
        return None
    a, b = e.a.value, e.b.value
    table = {ir.Add: lambda: a + b, ir.Sub: lambda: a - b, ir.Mul: lambda: a * b,
             ir.Min: lambda: min(a, b), ir.Max: lambda: max(a, b),
             ir.BitAnd: lambda: a & b, ir.BitOr: lambda: a | b, ir.BitXor: lambda: a ^ b,
             ir.And: lambda: a and b, ir.Or: lambda: a or b,
             ir.LT: lambda: a < b, ir.LE: lambda: a <= b, ir.GT: lambda: a > b,
             ir.GE: lambda: a >= b, ir.EQ: lambda: a == b, ir.NE: lambda: a != b}
    fn = table.get(type(e))
    if fn is None:
        return None
    return ir.Const(e.type, fn())


class Canonicalizer:
    @staticmethod
    def _flat(e, cls, out):
        """The operands of a chain of `cls` (no rewriting)."""
        if isinstance(e, cls):
            Canonicalizer._flat(e.a, cls, out)
            Canonicalizer._flat(e.b, cls, out)
        else:
            out.append(e)

    def __init__(self):
        self.info = XInfo()
        self.memo = {}

    def __call__(self, e):
        if not self.info.has_x(e):
            return e
        hit = self.memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        out = self._canon(e)
        self.memo[id(e)] = (e, out)
        return out

    # ---- node rules --------------------------------------------------------
    def _canon(self, e):
        name = type(e).__name__
        if name in _CHAIN:
            return self._chain(e, _CHAIN[name])
        if isinstance(e, ir.GT):
            return self._canon(ir.LT(e.b, e.a))
        if isinstance(e, ir.GE):
            return self._canon(ir.LE(e.b, e.a))
        if isinstance(e, ir.Not):
            inner = self(e.a)
            if isinstance(inner, (ir.LT, ir.LE, ir.EQ, ir.NE, ir.Not)):
                return self(negate(inner))
            return ir.Not(inner)
        if isinstance(e, ir.Select):
            return self._select(e)
        if isinstance(e, ir.Cast):
            inner = self(e.value)
            if inner.type.is_bool() and e.type.is_integer():
                return ir.Select(inner, ir.one(e.type), ir.zero(e.type))
            if isinstance(inner, ir.Cast) and inner.value.type == e.type and \
                    _widens(e.type, inner.type):
                return inner.value
            return _saturating_add(e.type, inner) or ir.Cast(e.type, inner)
        kids = {}
        for f in ir.node_fields(type(e)):
            v = getattr(e, f)
            if isinstance(v, ir.Expr):
                kids[f] = self(v)
            elif isinstance(v, tuple) and v and isinstance(v[0], ir.Expr):
                kids[f] = tuple(self(x) for x in v)
        out = dataclasses.replace(e, **kids) if kids else e
        folded = _fold(out)
        return folded if folded is not None else self._headroom(self._carry(out))

    def _carry(self, e):
        """An unsigned sum's carry test against its x-free operand, `x + y < y`,
        is the test against the other one, `x + y < x` (a wrapped sum is below
        one operand exactly when it is below the other)."""
        if isinstance(e, ir.LT) and e.a.type.is_uint() and isinstance(e.a, ir.Add) and \
                not self.info.has_x(e.b) and ir.equal(e.b, e.a.b):
            return ir.LT(e.a, e.a.a)
        return e

    def _headroom(self, e):
        """For an unsigned type whose maximum is M, `M - a < b` is `M - b <
        a` and `b < M - a` is `a < M - b` (and the same with <=): neither
        subtraction wraps, both say how `a + b` compares with M. The
        x-containing operand is put outside the subtraction (the tables'
        `x > M - y`)."""
        if not isinstance(e, (ir.LT, ir.LE)) or not e.a.type.is_uint():
            return e
        has, top = self.info.has_x, e.a.type.max_value()

        def headroom(s):          # the a of `M - a`, or None
            if isinstance(s, ir.Sub) and isinstance(s.a, ir.Const) and s.a.value == top:
                return s.b
            return None
        a = headroom(e.a)
        if a is not None and has(a) and not has(e.b):
            return type(e)(ir.Sub(e.a.a, e.b), a)
        a = headroom(e.b)
        if a is not None and has(a) and not has(e.a):
            return type(e)(a, ir.Sub(e.b.a, e.a))
        return e

    def _select(self, e):
        c, a, b = self(e.condition), self(e.true_value), self(e.false_value)
        has = self.info.has_x
        if not has(a) and has(b) and not has(c):
            c, a, b = negate(c), b, a
        if isinstance(c, ir.Const):
            return a if c.value else b
        if a.type.is_bool() and (not has(c) or is_self(c)):
            logical = _bool_select(c, a, b)
            if logical is not None:
                return self(logical)
        lex = _tie_break(c, a, b, has, self._chain)
        if lex is not None:
            return lex
        if isinstance(c, (ir.LT, ir.LE)) and a.type == c.a.type:
            if ir.equal(c.a, a) and ir.equal(c.b, b):
                return self._chain(ir.Min(a, b), "Min")
            if ir.equal(c.a, b) and ir.equal(c.b, a):
                return self._chain(ir.Max(a, b), "Max")
        return ir.Select(c, a, b)

    # ---- chains -------------------------------------------------------------
    def _terms(self, e, kind, sign, out):
        """Flatten the chain of `kind` below e into (sign, term) pairs."""
        name = type(e).__name__
        if _CHAIN.get(name) == kind:
            self._terms(e.a, kind, sign, out)
            self._terms(e.b, kind, -sign if name == "Sub" else sign, out)
        else:
            out.append((sign, self(e)))

    def _chain(self, e, kind):
        terms = []
        self._terms(e, kind, 1, terms)
        has = self.info.has_x
        xt = [t for t in terms if has(t[1])]
        ft = [t for t in terms if not has(t[1])]
        xt.sort(key=lambda t: min(self.info.xs(t[1])))
        ft.sort(key=lambda t: isinstance(t[1], ir.Const))
        if kind in ("Min", "Max", "And", "Or", "BitAnd", "BitOr"):
            xt, ft = _dedupe(xt), _dedupe(ft)
        ft = [(sg, t) for sg, t in ft if not neutral(kind, t)]
        if kind == "Add" and e.type.is_float() and xt:
            ft = [(sg, t) for sg, t in ft if not (sg > 0 and _is_zero(t))]
        if kind in ("Min", "Max"):
            xt, ft = _absorb(kind, xt, ft)
        if e.type.is_float() and kind in ("Min", "Max"):
            factored = self._factor_float(kind, xt, ft)
            if factored is not None:
                return factored
        cls = getattr(ir, kind)
        x_part = _combine(cls, kind, xt)
        f_part = _combine(cls, kind, ft)
        if x_part is None or f_part is None:
            part = x_part if f_part is None else f_part
            return _signed(part, e.type) if kind == "Add" else part
        if kind == "Add":
            (xs, xe), (fs, fe) = x_part, f_part
            if xs < 0:
                return ir.Sub(fe, xe) if fs > 0 else ir.Sub(ir.zero(e.type), ir.Add(xe, fe))
            return ir.Add(xe, fe) if fs > 0 else ir.Sub(xe, fe)
        return cls(x_part, f_part)

    def _factor_float(self, kind, xt, ft):
        """min/max(x + a, x + b, ...) -> x + min/max(a, b, ...) when every
        operand is `X + something` (or X) for one and the same x-term X."""
        if ft or len(xt) < 2:
            return None
        base, rests = None, []
        for _, term in xt:
            parts = []
            self._terms(term, "Add", 1, parts)
            xs = [p for p in parts if self.info.has_x(p[1])]
            if len(xs) != 1 or xs[0][0] < 0:
                return None
            if base is None:
                base = xs[0][1]
            elif not ir.equal(base, xs[0][1]):
                return None
            rest = _combine(ir.Add, "Add", [p for p in parts if p is not xs[0]])
            rests.append(ir.zero(term.type) if rest is None else _signed(rest, term.type))
        cls = getattr(ir, kind)
        acc = rests[0]
        for r in rests[1:]:
            acc = cls(acc, r)
        return ir.Add(base, acc)


def _bool_select(c, a, b):
    """A select of booleans with a constant branch as a logical operation
    (`select(c, true, b)` is `c || b`, ...), or None."""
    if isinstance(a, ir.Const):
        return ir.Or(c, b) if a.value else ir.And(negate(c), b)
    if isinstance(b, ir.Const):
        return ir.Or(negate(c), a) if b.value else ir.And(c, a)
    return None


def _tie_break(c, a, b, has, chain):
    """`select(p < q || (p == q && a < b), a, b)`, a lexicographic choice
    with its tie-break spelled out, as the tables write it:
    `select(p < q, a, select(q < p, b, min(a, b)))` (max(a, b) when the tie
    goes to the greater one: the select picks b on `a < b`), the outer test
    the one whose branch reads x. <= in the tie-break is the same. Exact
    for integers; only for integers (a float NaN compares neither less,
    greater nor equal). None if `select(c, a, b)` is not of that form."""
    if not isinstance(c, ir.Or) or not all(t.type.is_integer() for t in (a, b)):
        return None
    for strict, tie in ((c.a, c.b), (c.b, c.a)):
        if not (isinstance(strict, ir.LT) and isinstance(tie, ir.And)) or \
                not strict.a.type.is_integer():
            continue
        p, q = strict.a, strict.b
        for eq, order in ((tie.a, tie.b), (tie.b, tie.a)):
            if not (isinstance(eq, ir.EQ) and isinstance(order, (ir.LT, ir.LE)) and
                    _same_pair(eq, p, q)):
                continue
            if ir.equal(order.a, a) and ir.equal(order.b, b):
                on_tie = chain(ir.Min(a, b), "Min")
            elif ir.equal(order.a, b) and ir.equal(order.b, a):
                on_tie = chain(ir.Max(a, b), "Max")
            else:
                continue
            if has(b) and not has(a):
                return ir.Select(ir.LT(q, p), b, ir.Select(ir.LT(p, q), a, on_tie))
            return ir.Select(ir.LT(p, q), a, ir.Select(ir.LT(q, p), b, on_tie))
    return None


def _same_pair(eq, p, q) -> bool:
    return (ir.equal(eq.a, p) and ir.equal(eq.b, q)) or (ir.equal(eq.a, q) and ir.equal(eq.b, p))


def _saturating_add(t: ir.Type, e) -> ir.Expr | None:
    """`t(clamp(w(a) + w(b), lo, hi))` for an unsigned t below 64 bits, a and
    b of type t and w an integer type holding every a + b exactly, where the
    clamp equals min(a + b, t's maximum) on [0, 2 * maximum] (hi is the
    maximum, lo <= 0; min and max in any nesting): the tables' saturating add
    `t(min(u2t(a) + u2t(b), maximum))` (u2t: the unsigned type of twice t's
    width), None for anything else. `ph.saturating_add` builds
    `t(max(min(int64(a) + int64(b), maximum), 0))`."""
    if not t.is_uint() or t.bits >= 64:
        return None
    lo, hi = None, None                      # min(max(S, lo), hi); None: unbounded
    ops = []
    while isinstance(e, (ir.Min, ir.Max)):
        if isinstance(e.b, ir.Const):
            ops.append((type(e), e.b.value))
            e = e.a
        elif isinstance(e.a, ir.Const):
            ops.append((type(e), e.a.value))
            e = e.b
        else:
            return None
    for cls, c in reversed(ops):
        if cls is ir.Min:
            lo, hi = (None if lo is None else min(lo, c)), (c if hi is None else min(hi, c))
        else:
            lo, hi = (c if lo is None else max(lo, c)), (None if hi is None else max(hi, c))
    top = t.max_value()
    w = e.type
    if not (isinstance(e, ir.Add) and w.is_integer() and w.can_represent(2 * top)
            and hi == top and (lo is None or lo <= 0)):
        return None
    wide = ir.UInt(2 * t.bits)
    a, b = e.a, e.b
    if not all(isinstance(v, ir.Cast) and v.value.type == t for v in (a, b)):
        return None
    return ir.Cast(t, ir.Min(ir.Add(ir.Cast(wide, a.value), ir.Cast(wide, b.value)),
                             ir.Const(wide, top)))


def _widens(narrow: ir.Type, wide: ir.Type) -> bool:
    """Whether every value of `narrow` is a value of `wide`."""
    if narrow.is_float() or wide.is_float() or narrow.is_bool():
        return narrow.is_float() and wide.is_float() and wide.bits >= narrow.bits
    return wide.min_value() <= narrow.min_value() and narrow.max_value() <= wide.max_value()


def _is_zero(t) -> bool:
    return isinstance(t, ir.Const) and t.value == 0


def neutral(kind: str, t) -> bool:
    """Whether constant t leaves a chain of `kind` unchanged (x + 0, x * 1,
    min(x, type max), ...)."""
    if not isinstance(t, ir.Const):
        return False
    v, ty = t.value, t.type
    if ty.is_float() and kind in ("Add", "Mul"):
        return kind == "Mul" and v == 1.0       # x + 0.0 is not x for x = -0.0
    table = {"Add": 0, "Mul": 1, "BitOr": 0, "BitXor": 0, "Or": False, "And": True,
             "Min": ty.max_value(), "Max": ty.min_value()}
    if kind == "BitAnd":
        return not ty.is_float() and v == ty.wrap(-1)
    return kind in table and v == table[kind]


def _dedupe(terms):
    """Idempotent chains: min(a, a) is a."""
    out = []
    for s, t in terms:
        if not any(ir.equal(t, u) for _, u in out):
            out.append((s, t))
    return out


def _absorb(kind, xt, ft):
    """Absorption: max(a, min(a, b)) is a, min(a, max(a, b)) is a; and
    min(widen(e), c) is widen(e) when c is at least e's type's maximum (max:
    at most its minimum)."""
    other = ir.Max if kind == "Min" else ir.Min
    terms = xt + ft

    def absorbed(t):
        if not isinstance(t, other):
            return False
        parts = []
        Canonicalizer._flat(t, type(t), parts)
        return any(ir.equal(p, u) for p in parts for _, u in terms if u is not t)

    xt = [(s, t) for s, t in xt if not absorbed(t)]
    ft = [(s, t) for s, t in ft if not absorbed(t)]
    casts = [t for _, t in xt + ft if isinstance(t, ir.Cast) and _widens(t.value.type, t.type)]
    if len(casts) == 1 and len(xt) + len(ft) == 2:
        narrow = casts[0].value.type
        bound = narrow.max_value() if kind == "Min" else narrow.min_value()

        def redundant(t):
            c = t if isinstance(t, ir.Const) else None
            return c is not None and (c.value >= bound if kind == "Min" else c.value <= bound)
        ft = [(s, t) for s, t in ft if not redundant(t)]
    return xt, ft


def _signed(part, t):
    sign, e = part
    return e if sign > 0 else ir.Sub(ir.zero(t), e)


def _combine(cls, kind, terms):
    """Left fold of the terms; for Add a (sign, expr) pair: positives summed,
    negatives subtracted (sign -1 when there are only negatives)."""
    if not terms:
        return None
    if kind != "Add":
        acc = terms[0][1]
        for _, t in terms[1:]:
            acc = cls(acc, t)
        return acc
    pos = [t for s, t in terms if s > 0]
    neg = [t for s, t in terms if s < 0]
    if not pos:
        acc = neg[0]
        for t in neg[1:]:
            acc = ir.Add(acc, t)
        return (-1, acc)
    acc = pos[0]
    for t in pos[1:]:
        acc = ir.Add(acc, t)
    for t in neg:
        acc = ir.Sub(acc, t)
    return (1, acc)


def canonicalize(values) -> tuple:
    """Canonical forms of a tuple of update values (one Canonicalizer, so
    shared subexpressions are rewritten once)."""
    c = Canonicalizer()
    return tuple(c(v) for v in values)


def factoring_refusal(e, info: XInfo | None = None) -> str:
    """Why an integer `min/max(x + a, x + b)` is not associative ('' if `e`
    is not of that form)."""
    info = info or XInfo()
    if not isinstance(e, (ir.Min, ir.Max)) or e.type.is_float():
        return ""
    c = Canonicalizer()
    c.info = info
    terms = []
    c._terms(e, type(e).__name__, 1, terms)
    xt = [t for _, t in terms if info.has_x(t)]
    if len(xt) < 2 or len(xt) != len(terms):
        return ""
    bases = []
    for t in xt:
        parts = []
        c._terms(t, "Add", 1, parts)
        xs = [p for s, p in parts if info.has_x(p)]
        if len(xs) != 1:
            return ""
        bases.append(xs[0])
    if not all(ir.equal(bases[0], b) for b in bases[1:]):
        return ""
    op = type(e).__name__.lower()
    return (f"{op}(x + a, x + b) equals x + {op}(a, b) only when the additions do not "
            f"overflow, and {e.type} arithmetic wraps; Halide accepts it only by assuming "
            f"no overflow, pyhalide refuses it (write it as f + {op}(a, b) if that is meant)")
