"""Operators whose elements are polynomials: associativity, identities and
commutativity decided as polynomial identities over the integers.

    to_poly(e) -> Poly | None        (None: `e` is not a polynomial)
    PolyOperator(ops).associative() / .commutative() / .is_identity(e, side)

An expression built from Variables, integer constants, `+`, `-`, `*` and
`~v` (which is `-v - 1` in two's complement) is a polynomial with integer
coefficients. Two such polynomials that are equal over Z are equal modulo
2^w for every width w (Z/2^w is a quotient ring of Z), so an identity proven
here holds for wrapping integer arithmetic of any width. For floats the
tables' theory is the reals (reassociation is what the schedule asks for), in
which an identity over Z (or Q, for non-integer constants) holds as well.

Only PROVED or UNKNOWN comes out of here: two polynomials that differ over Z
may still agree modulo 2^w (`2^31 * x * y` at 32 bits), so a difference is
left to the Z3 proof.
"""
from __future__ import annotations

from fractions import Fraction

from pyhalide import ir

from .prove import PROVED, UNKNOWN

# A polynomial: {monomial: coefficient}; a monomial is a sorted tuple of
# variable names (with repetition). The zero polynomial is {}.
Poly = dict


def _accumulate(out: Poly, m: tuple, c) -> None:
    """out[m] += c, dropping a coefficient that becomes 0."""
    v = out.get(m, 0) + c
    if v:
        out[m] = v
    else:
        out.pop(m, None)


def _add(p: Poly, q: Poly, sign: int = 1) -> Poly:
    out = dict(p)
    for m, c in q.items():
        _accumulate(out, m, sign * c)
    return out


def _mul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            _accumulate(out, tuple(sorted(m1 + m2)), c1 * c2)
    return out


def _const(value) -> Poly:
    return {(): value} if value else {}


def to_poly(e: ir.Expr) -> Poly | None:
    """The polynomial of `e`, or None when `e` uses anything else than
    Variables, finite constants, +, -, * and (for integers) ~."""
    memo: dict = {}

    def tr(n):
        key = id(n)
        if key in memo:
            return memo[key]
        if n.type.is_bool():
            r = None
        elif isinstance(n, ir.Variable):
            r = {(n.name,): 1}
        elif isinstance(n, ir.Const):
            v = n.value
            r = None if v != v or v in (float("inf"), float("-inf")) else \
                _const(Fraction(v) if n.type.is_float() else int(n.value))
        elif isinstance(n, ir.BitNot) and n.type.is_integer():
            a = tr(n.a)
            r = None if a is None else _add(_const(-1), a, -1)
        elif isinstance(n, (ir.Add, ir.Sub, ir.Mul)):
            a, b = tr(n.a), tr(n.b)
            if a is None or b is None:
                r = None
            elif isinstance(n, ir.Mul):
                r = _mul(a, b)
            else:
                r = _add(a, b, 1 if isinstance(n, ir.Add) else -1)
        else:
            r = None
        memo[key] = r
        return r

    return tr(e)


def compose(p: Poly, env: dict) -> Poly:
    """`p` with each variable replaced by the polynomial env[name]."""
    out: Poly = {}
    for m, c in p.items():
        term = _const(c)
        for name in m:
            term = _mul(term, env[name])
        out = _add(out, term)
    return out


class PolyOperator:
    """An operator whose every element is a polynomial in x0.., y0.. ."""

    def __init__(self, polys: list):
        self.polys = polys
        self.size = len(polys)

    @classmethod
    def of(cls, ops) -> "PolyOperator | None":
        polys = [to_poly(e) for e in ops]
        return None if any(p is None for p in polys) else cls(polys)

    def _vars(self, prefix: str) -> list:
        return [{(f"{prefix}{i}",): 1} for i in range(self.size)]

    def apply(self, xs: list, ys: list) -> list:
        env = {}
        for i in range(self.size):
            env[f"x{i}"], env[f"y{i}"] = xs[i], ys[i]
        return [compose(p, env) for p in self.polys]

    def associative(self) -> str:
        a, b, c = self._vars("a"), self._vars("b"), self._vars("c")
        return PROVED if self.apply(self.apply(a, b), c) == self.apply(a, self.apply(b, c)) \
            else UNKNOWN

    def commutative(self) -> str:
        a, b = self._vars("a"), self._vars("b")
        return PROVED if self.apply(a, b) == self.apply(b, a) else UNKNOWN

    def is_identity(self, ident, side: str) -> str:
        e = [to_poly(i) for i in ident]
        if any(p is None for p in e):
            return UNKNOWN
        v = self._vars("v")
        out = self.apply(e, v) if side == "left" else self.apply(v, e)
        return PROVED if out == v else UNKNOWN
