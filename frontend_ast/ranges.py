"""What is known about integer values, to prove index and overflow safety at
compile time: a numeric interval, and affine lower/upper bounds over
symbols (array sizes, scalar parameters, loop variables).

A loop variable is a symbol whose bounds are its loop's start and stop (and
any branch condition that refines them); proofs expand loop symbols into
those bounds until only array sizes and parameters remain."""
from __future__ import annotations

INT64 = (-(1 << 63), (1 << 63) - 1)
INT32 = (-(1 << 31), (1 << 31) - 1)
MAX_ALTERNATIVES = 12


class Aff:
    """c + sum(k * symbol), integer coefficients."""

    __slots__ = ("terms", "c")

    def __init__(self, terms=None, c=0):
        self.terms = {s: k for s, k in (terms or {}).items() if k}
        self.c = int(c)

    @staticmethod
    def const(c) -> "Aff":
        return Aff({}, c)

    @staticmethod
    def sym(s) -> "Aff":
        return Aff({s: 1}, 0)

    def __add__(self, o: "Aff") -> "Aff":
        t = dict(self.terms)
        for s, k in o.terms.items():
            t[s] = t.get(s, 0) + k
        return Aff(t, self.c + o.c)

    def __sub__(self, o: "Aff") -> "Aff":
        return self + o.scale(-1)

    def scale(self, k: int) -> "Aff":
        return Aff({s: v * k for s, v in self.terms.items()}, self.c * k)

    def shift(self, c: int) -> "Aff":
        return Aff(self.terms, self.c + c)

    def is_const(self) -> bool:
        return not self.terms

    def key(self):
        return (tuple(sorted(self.terms.items())), self.c)

    def __eq__(self, o):
        return isinstance(o, Aff) and self.key() == o.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        parts = [f"{k}*{s}" if k != 1 else str(s) for s, k in sorted(self.terms.items())]
        if self.c or not parts:
            parts.append(str(self.c))
        return " + ".join(parts)


# numeric intervals ----------------------------------------------------------------
def n_add(a, b):
    lo = None if a[0] is None or b[0] is None else a[0] + b[0]
    hi = None if a[1] is None or b[1] is None else a[1] + b[1]
    return lo, hi


def n_neg(a):
    return (None if a[1] is None else -a[1], None if a[0] is None else -a[0])


def n_sub(a, b):
    return n_add(a, n_neg(b))


def n_mul(a, b):
    ends = [a[0], a[1], b[0], b[1]]
    if any(v is None for v in ends):
        # sign-aware special cases: [0, x] * [0, y]
        if a[0] is not None and b[0] is not None and a[0] >= 0 and b[0] >= 0:
            return (a[0] * b[0], None)
        return (None, None)
    prods = [x * y for x in a for y in b]
    return (min(prods), max(prods))


def n_union(a, b):
    lo = None if a[0] is None or b[0] is None else min(a[0], b[0])
    hi = None if a[1] is None or b[1] is None else max(a[1], b[1])
    return lo, hi


def n_within(a, bounds) -> bool:
    return a[0] is not None and a[1] is not None and bounds[0] <= a[0] and a[1] <= bounds[1]


def n_contains_zero(a) -> bool:
    return not ((a[0] is not None and a[0] > 0) or (a[1] is not None and a[1] < 0))


# symbols and proofs -----------------------------------------------------------------
class Symbols:
    """Numeric ranges of symbols, and the bounds of loop symbols."""

    def __init__(self):
        self.numeric = {}        # symbol -> (lo, hi)
        self.loops = {}          # symbol -> (lower bound Affs, upper bound Affs)
        self.refined = []        # stack of {symbol: (extra lower Affs, extra upper Affs)}

    def add(self, sym, lo, hi):
        self.numeric[sym] = (lo, hi)

    def add_loop(self, sym, lows, highs, lo, hi):
        self.loops[sym] = (list(lows), list(highs))
        self.numeric[sym] = (lo, hi)

    def push(self, facts: dict):
        self.refined.append(facts)

    def pop(self):
        self.refined.pop()

    use_refined = True

    def _bounds(self, sym, upper: bool) -> list:
        lows, highs = self.loops[sym]
        out = list(highs if upper else lows)
        for f in (self.refined if self.use_refined else ()):
            if sym in f:
                out.extend(f[sym][1] if upper else f[sym][0])
        return out

    def expand(self, aff: Aff, upper: bool, depth: int = 0, visiting=frozenset()) -> list:
        """Affs over non-loop symbols, each a valid upper (or lower) bound of aff."""
        loop_syms = [s for s in aff.terms if s in self.loops]
        if not loop_syms or depth > 8:
            return [aff] if not loop_syms else []
        s = loop_syms[0]
        k = aff.terms[s]
        rest = Aff({t: v for t, v in aff.terms.items() if t != s}, aff.c)
        bounds = self._bounds(s, upper == (k > 0))
        # branch conditions first (they are the specific ones); skip bounds that
        # lead back to a symbol being expanded
        bounds = bounds[len(self.loops[s][1 if upper == (k > 0) else 0]):] + \
            bounds[:len(self.loops[s][1 if upper == (k > 0) else 0])]
        inner = visiting | {s}
        cands = [b for b in bounds if not (set(b.terms) & inner)]
        lo, hi = self.numeric.get(s, (None, None))
        nb = hi if upper == (k > 0) else lo
        share = max(2, MAX_ALTERNATIVES // max(1, len(cands) + (nb is not None)))
        out = []
        for b in cands:
            out.extend(self.expand(rest + b.scale(k), upper, depth + 1, inner)[:share])
        if nb is not None:
            out.extend(self.expand(rest.shift(k * nb), upper, depth + 1, inner)[:share])
        return out[:MAX_ALTERNATIVES * 2]

    def nonneg(self, aff: Aff) -> bool:
        """aff >= 0 for every value of its (non-loop) symbols."""
        total = aff.c
        for s, k in aff.terms.items():
            lo, hi = self.numeric.get(s, (None, None))
            b = lo if k > 0 else hi
            if b is None:
                return False
            total += k * b
        return total >= 0

    def prove_le(self, a_ubs, b_lbs, refined: bool = True) -> bool:
        """Some upper bound of a <= some lower bound of b, always (with
        refined=False: ignoring the conditions of enclosing branches)."""
        old = self.use_refined
        self.use_refined = refined
        try:
            return self._prove_le(a_ubs, b_lbs)
        finally:
            self.use_refined = old

    def _prove_le(self, a_ubs, b_lbs) -> bool:
        for u in a_ubs:
            for ue in self.expand(u, True):
                for l in b_lbs:
                    for le in self.expand(l, False):
                        if self.nonneg(le - ue):
                            return True
        return False

    def numeric_of(self, aff: Aff, upper: bool):
        """A numeric bound of aff (None if unbounded)."""
        best = None
        for e in self.expand(aff, upper):
            total = e.c
            for s, k in e.terms.items():
                lo, hi = self.numeric.get(s, (None, None))
                b = hi if (k > 0) == upper else lo
                if b is None:
                    total = None
                    break
                total += k * b
            if total is not None:
                best = total if best is None else (min(best, total) if upper else max(best, total))
        return best
