"""Exact rewrites that shrink the bounds of broadcast reads: nested clamps
of an index and the repeated broadcasts of one extent.

A NumPy-style broadcast reads an operand at `max(min(i, n - 1), 0)` and
sizes a result `select(a == 1, b, a)`; the bounds of a chain of them (the
input-bounds requirements of `u[1:-1] * v[1:-1] + ...`) nest those forms
several levels deep. Three rewrites, each exact for every value (min, max
and select only, no arithmetic, so no overflow either), collapse them:

- `max(min(max(e, c), b), c)` -> `max(min(e, b), c)`: a lower clamp to c
  inside another to c is redundant (either e >= c and the inner max is e,
  or both sides are c, as min(e, b) <= e < c).
- `select(s == k, x, s)` -> `s` where `s == k` forces `x == k`: s is
  `select(a == k, c, a)` (so s == k means a == k and c == k; recursively
  through a and c) and x is s or one of those.
- `select(p, select(p, a, b), c)` -> `select(p, a, c)`, and the same for
  the false branch.
"""

from __future__ import annotations

from pyhalide import ir

from .simplify import simplify

_ROUNDS = 4        # rewrite + simplify rounds at most (each shrinks or stops)


def _known_equal(s, k, out: list) -> list:
    """Exprs that equal k wherever s == k (s itself first)."""
    out.append(s)
    if isinstance(s, ir.Select) and isinstance(s.condition, ir.EQ) and \
            ir.equal(s.condition.b, k) and ir.equal(s.condition.a, s.false_value):
        _known_equal(s.false_value, k, out)
        _known_equal(s.true_value, k, out)
    return out


class _Collapse(ir.Mutator):
    def visit_Max(self, n):
        a, b = self.mutate(n.a), self.mutate(n.b)
        if isinstance(a, ir.Const) and not isinstance(b, ir.Const):
            a, b = b, a
        if isinstance(b, ir.Const) and isinstance(a, ir.Min):
            for inner, other in ((a.a, a.b), (a.b, a.a)):
                if isinstance(inner, ir.Max) and ir.equal(inner.b, b):
                    return ir.Max(ir.Min(inner.a, other), b)
        return n if a is n.a and b is n.b else ir.Max(a, b)

    def visit_Select(self, n):
        c = self.mutate(n.condition)
        t, f = self.mutate(n.true_value), self.mutate(n.false_value)
        if isinstance(c, ir.EQ) and isinstance(c.b, ir.Const) and ir.equal(c.a, f) and \
                any(ir.equal(t, x) for x in _known_equal(f, c.b, [])):
            return f
        if isinstance(t, ir.Select) and ir.equal(t.condition, c):
            t = t.true_value
        if isinstance(f, ir.Select) and ir.equal(f.condition, c):
            f = f.false_value
        if c is n.condition and t is n.true_value and f is n.false_value:
            return n
        return ir.Select(c, t, f)


def collapse_clamps(e, **simplify_options):
    """e simplified with the rewrites above applied until nothing changes
    (at most _ROUNDS rounds of rewrites, each simplified); the same value as e for every input."""
    e = simplify(e, **simplify_options)
    for _ in range(_ROUNDS):
        out = _Collapse().mutate(e)
        if out is e:                # (no rewrite applied: e is the same object)
            break
        e = simplify(out, **simplify_options)
    return e
