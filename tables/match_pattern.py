"""Structural matching of a table operator against update values.

`PatternMatch.elements(pairs)` yields the wildcard bindings (name -> IR
expression) under which every pattern element equals its update element, up
to the order of commutative operands, the association of chains and the two
spellings of a select. Wildcards:

- x_j must be exactly the self-reference of the update element it stands for
  (the permutation `rename` maps pattern element j to update element);
- y_j binds any x-free subexpression (the same one at every occurrence);
- k0 binds any subexpression free of x and of the reduction domain (RVars);
- a literal matches an equal constant.

Within a chain, pattern terms with x are paired one-to-one with update terms
with x; the update's x-free terms are distributed over the pattern's x-free
terms (each gets at least one, combined with the chain's operator), so
`x0 + y0` matches `f + g + 3` with y0 = g + 3.
"""
from __future__ import annotations

import itertools

from pyhalide import ir

from .match_canon import SELF, neutral
from .match_form import COMMUTATIVE_OPS, M, expand, is_logical_chain, negate_m


def _has_rvar_or_self(e) -> bool:
    stack, seen = [e], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, ir.Variable) and n.kind in ("rvar", SELF):
            return True
        stack.extend(ir.children(n))
    return False


def _fold(kind: str, exprs: list):
    cls = getattr(ir, kind)
    acc = exprs[0]
    for e in exprs[1:]:
        acc = cls(acc, e)
    return acc


def _signed_sum(group, sign: int, t: ir.Type):
    """The value L with sign * L == sum of the signed terms of `group`."""
    pos = [e for s, e in group if s * sign > 0]
    neg = [e for s, e in group if s * sign < 0]
    if not pos:
        return ir.Sub(ir.zero(t), _fold("Add", neg))
    acc = _fold("Add", pos)
    for e in neg:
        acc = ir.Sub(acc, e)
    return acc


def _surjections(n_items: int, n_bins: int):
    """Assignments of items to bins that leave no bin empty."""
    if n_bins == 1:
        yield (0,) * n_items
        return
    for a in itertools.product(range(n_bins), repeat=n_items):
        if len(set(a)) == n_bins:
            yield a


def _neutral_term(kind: str, m: M) -> bool:
    """A constant that leaves the chain unchanged exactly (`+ 0` of an
    integer, `* 1`, ...): the chain's free terms are also distributed over
    the pattern's without it."""
    return m.kind == "free" and neutral(kind, m.expr)


def _de_morgan(p: M, e: M, conv):
    """(p, e) with a `!(a && b)` on one side written as `!a || !b` where the
    other side is a chain (the forms skeletons equate)."""
    def negated_chain(m):
        return m.kind == "op" and m.key == "Not" and is_logical_chain(m.kids[0])
    if negated_chain(p) and is_logical_chain(e):
        return negate_m(p.kids[0], conv), e
    if negated_chain(e) and is_logical_chain(p):
        return p, negate_m(e.kids[0], conv)
    return p, e


class PatternMatch:
    """Matching under one assignment of pattern elements to update elements.

    rename: pattern x index -> update x index; types: wildcard name -> its
    required type (a name missing from it may bind any type); conv: the
    update's Converter (to expand free nodes)."""

    def __init__(self, rename: dict, types: dict, conv):
        self.rename, self.types, self.conv = rename, types, conv

    def elements(self, pairs, binding=None):
        """Bindings under which every (pattern M, update M) pair matches."""
        return self._all(list(pairs), 0, binding or {})

    def _all(self, pairs, i, b):
        if i == len(pairs):
            yield b
            return
        p, e = pairs[i]
        for b2 in self.match(p, e, b):
            yield from self._all(pairs, i + 1, b2)

    # ---- one node ------------------------------------------------------------
    def match(self, p: M, e: M, b: dict):
        kind = p.kind
        if kind == "x":
            if e.kind == "x" and e.key == self.rename.get(p.key):
                yield b
            return
        if p.has_x != e.has_x:
            return
        if kind == "leaf":
            yield from self._bind(p, e, b)
            return
        if kind == "const":
            c = e.expr if e.kind == "free" else None
            if isinstance(c, ir.Const) and c.type == p.expr.type and c.value == p.expr.value:
                yield b
            return
        if e.kind == "free":
            e = expand(e, self.conv)
        p, e = _de_morgan(p, e, self.conv)
        kind = p.kind
        if kind == "ac":
            if e.kind == "ac" and e.key == p.key:
                yield from self._chain(p, e, b)
            return
        if e.kind != "op":
            return
        if p.key == "Select" and e.key == "Select":
            yield from self.elements(zip(p.kids, e.kids), b)
            c, t, f = e.kids
            yield from self.elements(zip(p.kids, (negate_m(c, self.conv), f, t)), b)
            return
        if p.key != e.key or len(p.kids) != len(e.kids):
            return
        yield from self.elements(zip(p.kids, e.kids), b)
        if p.key in COMMUTATIVE_OPS:
            yield from self.elements(zip(p.kids, reversed(e.kids)), b)

    def _bind(self, p: M, e: M, b: dict):
        if e.kind != "free":
            return
        expr = e.expr
        want = self.types.get(p.key)
        if want is not None and expr.type != want:
            return
        if p.key.startswith("k") and _has_rvar_or_self(expr):
            return
        old = b.get(p.key)
        if old is not None:
            if ir.equal(old, expr):
                yield b
            return
        b2 = dict(b)
        b2[p.key] = expr
        yield b2

    # ---- chains ------------------------------------------------------------
    def _chain(self, p: M, e: M, b: dict):
        px = [(s, k) for s, k in p.kids if k.has_x]
        pf = [(s, k) for s, k in p.kids if not k.has_x]
        ex = [(s, k) for s, k in e.kids if k.has_x]
        ef = [(s, k) for s, k in e.kids if not k.has_x]
        if len(px) != len(ex) or (not pf and ef) or (pf and len(ef) < len(pf)):
            return
        for order in itertools.permutations(range(len(ex))):
            if any(px[j][0] != ex[order[j]][0] for j in range(len(px))):
                continue
            pairs = [(px[j][1], ex[order[j]][1]) for j in range(len(px))]
            for b2 in self.elements(pairs, b):
                yield from self._free_terms(p, pf, ef, b2)
                kept = [(s, k) for s, k in ef if not _neutral_term(p.key, k)]
                if len(pf) <= len(kept) < len(ef):
                    yield from self._free_terms(p, pf, kept, b2)

    def _free_terms(self, p: M, pf, ef, b):
        if not pf:
            yield b
            return
        for assign in _surjections(len(ef), len(pf)):
            pairs = []
            for j, (sign, pk) in enumerate(pf):
                group = [(s, k.expr) for (s, k), a in zip(ef, assign) if a == j]
                if p.key == "Add":
                    value = _signed_sum(group, sign, p.type)
                else:
                    value = _fold(p.key, [x for _, x in group])
                pairs.append((pk, M("free", expr=value, type=value.type)))
            yield from self.elements(pairs, b)
