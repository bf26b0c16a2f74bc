"""What enclosing branches and loops say about a condition: can it hold?

    impossible(cond, lets, ranges, false_conds) -> bool
    conjuncts(c), int_compare(c), as_upper(c)   (comparisons; partition_loops too)

`impossible` is true only when `cond` is false at every point the facts allow: the lets in
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
    return any(_never(c, env, scope) for c in conjuncts(cond))


# ---- comparisons (shared with partition_loops) -------------------------------------------
_ORDER = (ir.LT, ir.LE, ir.GT, ir.GE)


def conjuncts(c: ir.Expr) -> list:
    if isinstance(c, ir.And):
        return conjuncts(c.a) + conjuncts(c.b)
    return [c]


def int_compare(c) -> bool:
    """c is an order comparison of signed integer scalars (unsigned
    differences wrap at 0, which linear reasoning would miss)."""
    return isinstance(c, _ORDER) and c.a.type.is_scalar() and c.a.type.is_int()


def as_upper(c):
    """(small, big, strict): c is `small < big` (strict) or `small <= big`."""
    if isinstance(c, ir.LT):
        return c.a, c.b, True
    if isinstance(c, ir.LE):
        return c.a, c.b, False
    if isinstance(c, ir.GT):
        return c.b, c.a, True
    return c.b, c.a, False


# ---- facts ---------------------------------------------------------------------------------
def _expand(e: ir.Expr, env: dict) -> ir.Expr:
    for _ in range(_MAX_LET_DEPTH):
        names = [n for n in ir.free_vars(e) if n in env]
        if not names:
            break
        e = ir.substitute(e, {n: env[n] for n in names})
    return e


def _bounds_from_false(f):
    """[(name, lo, hi)] that hold where comparison f is false: where
    `small <(=) big` fails, `big <= small` (or `big < small`) holds."""
    if not int_compare(f):
        return []
    small, big, strict = as_upper(f)
    small, big, strict = big, small, not strict
    out = []
    if isinstance(big, ir.Const):
        out += _peel(small, big.value - strict, upper=True)
    if isinstance(small, ir.Const):
        out += _peel(big, small.value + strict, upper=False)
    return out


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
    """Whether comparison c (`small <(=) big`) is false everywhere in scope:
    small - big is at least 1 (at least 0 when strict)."""
    if not int_compare(c):
        return False
    small, big, strict = as_upper(c)
    lo = bounds_of(simplify(ir.Sub(_expand(small, env), _expand(big, env))), scope).lo
    lo = None if lo is None else simplify(lo)
    return isinstance(lo, ir.Const) and lo.value + strict > 0
