"""What enclosing branches and loops say about a condition: can it hold?

    impossible(cond, lets, ranges, false_conds) -> bool

True only when `cond` is false at every point the facts allow: the lets in
scope (name -> value, substituted), the ranges of the enclosing loops
(name, min, max) and the conditions enclosing else branches found false
(each with the lets in scope where it was tested).
A false condition bounds a variable when it compares an expression with a
constant and peeling monotonic wrappers (max with a constant, adding or
subtracting a constant) reaches that variable: the else branch of
`max(e, 0) >= 32` (a let `extent = max(e, 0)`) gives e <= 31. Each
comparison of `cond` is then bounded by interval arithmetic
(lowering/interval.py); a conjunction is impossible when one of its
comparisons is. Sound, not complete: "don't know" is False.

partition_loops uses it to skip a guard-free copy that could never run: in
the else branch of loop synthesis' `if (extent >= 32)` (an image smaller
than one tile) the copy for full tiles is dead code."""
from __future__ import annotations

from pyhalide import ir

from .interval import Interval, bounds_of
from .simplify import simplify

_MAX_LET_DEPTH = 8


def impossible(cond: ir.Expr, lets, ranges, false_conds) -> bool:
    """false_conds: [(condition, how many of `lets` were in scope there)]."""
    if not false_conds:
        return False
    env = dict(lets)
    scope = {name: Interval(lo, hi) for name, lo, hi in ranges}
    for f, n_lets in false_conds:
        for name, lo, hi in _bounds_from_false(_expand(f, dict(lets[:n_lets]))):
            old = scope.get(name, Interval(None, None))
            scope[name] = Interval(lo if lo is not None else old.lo,
                                   hi if hi is not None else old.hi)
    return any(_never(c, env, scope) for c in _conjuncts(cond))


def _conjuncts(c):
    if isinstance(c, ir.And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    return [c]


def _expand(e: ir.Expr, env: dict) -> ir.Expr:
    for _ in range(_MAX_LET_DEPTH):
        names = [n for n in ir.free_vars(e) if n in env]
        if not names:
            break
        e = ir.substitute(e, {n: env[n] for n in names})
    return e


def _int_compare(c) -> bool:
    return isinstance(c, (ir.LT, ir.LE, ir.GT, ir.GE)) and c.a.type.is_scalar() and \
        c.a.type.is_int()


def _as_upper(c):
    """(x, k) with c == (x <= k) for a constant k, or None."""
    a, b = c.a, c.b
    if isinstance(c, ir.LE) and isinstance(b, ir.Const):
        return a, b.value
    if isinstance(c, ir.LT) and isinstance(b, ir.Const):
        return a, b.value - 1
    if isinstance(c, ir.GE) and isinstance(a, ir.Const):
        return b, a.value
    if isinstance(c, ir.GT) and isinstance(a, ir.Const):
        return b, a.value - 1
    return None


def _negate(c):
    """The comparison that holds where integer comparison c is false."""
    return {ir.LT: ir.GE, ir.LE: ir.GT, ir.GT: ir.LE, ir.GE: ir.LT}[type(c)](c.a, c.b)


def _flip(c):
    """c with its sides swapped (x >= k is k <= x)."""
    return {ir.LT: ir.GT, ir.LE: ir.GE, ir.GT: ir.LT, ir.GE: ir.LE}[type(c)](c.b, c.a)


def _bounds_from_false(f):
    """[(name, lo, hi)] that hold where comparison f is false."""
    if not _int_compare(f):
        return []
    holds = _negate(f)
    out = []
    r = _as_upper(holds)
    if r is not None:
        out += _peel(r[0], r[1], upper=True)
    r = _as_lower(holds)
    if r is not None:
        out += _peel(r[0], r[1], upper=False)
    return out


def _as_lower(c):
    """(x, k) with c == (x >= k) for a constant k, or None."""
    a, b = c.a, c.b
    if isinstance(c, ir.GE) and isinstance(b, ir.Const):
        return a, b.value
    if isinstance(c, ir.GT) and isinstance(b, ir.Const):
        return a, b.value + 1
    if isinstance(c, ir.LE) and isinstance(a, ir.Const):
        return b, a.value
    if isinstance(c, ir.LT) and isinstance(a, ir.Const):
        return b, a.value + 1
    return None


def _peel(x, k: int, upper: bool):
    """Bounds on a variable from x <= k (upper) or x >= k: through max(y, c)
    <= k (y <= k), min(y, c) >= k (y >= k), y + c and y - c."""
    while True:
        if isinstance(x, ir.Variable):
            t = x.type
            bound = ir.const(t, k)
            return [(x.name, None, bound)] if upper else [(x.name, bound, None)]
        if upper and isinstance(x, ir.Max) and isinstance(x.b, ir.Const) and x.b.value <= k:
            x = x.a
        elif not upper and isinstance(x, ir.Min) and isinstance(x.b, ir.Const) and \
                x.b.value >= k:
            x = x.a
        elif isinstance(x, ir.Add) and isinstance(x.b, ir.Const):
            x, k = x.a, k - x.b.value
        elif isinstance(x, ir.Sub) and isinstance(x.b, ir.Const):
            x, k = x.a, k + x.b.value
        else:
            return []


def _never(c, env: dict, scope: dict) -> bool:
    """Whether comparison c is false everywhere in scope."""
    if not _int_compare(c):
        return False
    if isinstance(c, (ir.GT, ir.GE)):
        c = _flip(c)
    a, b = _expand(c.a, env), _expand(c.b, env)
    lo = bounds_of(simplify(ir.Sub(a, b)), scope).lo        # a - b >= lo everywhere
    lo = None if lo is None else simplify(lo)
    if not isinstance(lo, ir.Const):
        return False
    return lo.value > 0 if isinstance(c, ir.LE) else lo.value >= 0
