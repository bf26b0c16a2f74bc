"""The differences of integer index expressions, products expanded.

`(y * 4) * s` and `((y * 4) + 1) * s` (two rows of a tile) differ by `-s`,
which the simplifier's linear forms do not see (a product of two names is
an atom to them). Here each expression becomes a polynomial over its atoms
(Variables and every node other than Add, Sub, Mul, Const): monomial (the
sorted atom keys) -> coefficient. Ring identities only, so the difference is
exact modulo the index type's wrap-around, as the index arithmetic itself."""
from __future__ import annotations

import itertools

from pyhalide import ir

from .linear import atom_key

_MAX_MONOMIALS = 64


def _bump(poly, monomial, c):
    poly[monomial] = poly.get(monomial, 0) + c


def _poly(e, atoms):
    """e as {monomial: coefficient} (atoms: key -> node), or None past
    _MAX_MONOMIALS monomials."""
    if isinstance(e, ir.Const):
        return {(): e.value} if e.value else {}
    if not isinstance(e, (ir.Add, ir.Sub, ir.Mul)):
        key = atom_key(e)
        atoms[key] = e
        return {(key,): 1}
    a, b = _poly(e.a, atoms), _poly(e.b, atoms)
    if a is None or b is None or len(a) * len(b) > _MAX_MONOMIALS:
        return None
    out = dict(a) if not isinstance(e, ir.Mul) else {}
    if isinstance(e, ir.Mul):
        for (ma, ca), (mb, cb) in itertools.product(a.items(), b.items()):
            _bump(out, tuple(sorted(ma + mb)), ca * cb)
    else:
        sign = 1 if isinstance(e, ir.Add) else -1
        for m, c in b.items():
            _bump(out, m, sign * c)
    return {m: c for m, c in out.items() if c}


def _expr(poly, atoms, t):
    out = None
    for m, c in sorted(poly.items()):
        term = ir.Const(t, c)
        for key in m:
            term = atoms[key] if ir.is_const(term, 1) else ir.Mul(term, atoms[key])
        out = term if out is None else ir.Add(out, term)
    return ir.Const(t, 0) if out is None else out


def pairwise_differences(exprs):
    """The differences of every two of `exprs` (integer, of one type),
    products expanded, each difference once up to its sign: (the constant
    ones as Python ints, the others as Exprs), or None when an expansion
    grows too large."""
    atoms = {}
    polys = [_poly(e, atoms) for e in exprs]
    if any(p is None for p in polys):
        return None
    consts, others, seen = [], [], set()
    for pa, pb in itertools.combinations(polys, 2):
        d = dict(pa)
        for m, c in pb.items():
            _bump(d, m, -c)
        d = {m: c for m, c in d.items() if c}
        if all(m == () for m in d):
            consts.append(d.get((), 0))
            continue
        key = frozenset(d.items())
        if key in seen or frozenset((m, -c) for m, c in d.items()) in seen:
            continue
        seen.add(key)
        others.append(_expr(d, atoms, exprs[0].type))
    return consts, others
