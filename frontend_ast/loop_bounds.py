"""Exact loop bounds that depend on enclosing loop variables and scalar
arguments of any integer type.

A bound such as `j - k + 1` (k an np.int32 or Python int argument) is
computed in a fixed-width type, so in general it may wrap, and the value
analysis of the frontend drops its affine form. `affine_bounds` reads the
affine form back from the IR, together with the condition that makes it
exact: every integer subexpression stays inside its type. `BoundCheck`
verifies that condition at call time, in exact Python arithmetic, over the
bounds of the enclosing loops (OverflowError where it fails): the compiled
loop then runs exactly Python's range.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.checks import checked_value

from .limits import limit
from .ranges import Aff

_MAX_FORMS = 6          # lower/upper bound forms kept per subexpression


class _Unguard(ir.Mutator):
    def visit_Select(self, e):
        inner = checked_value(e)
        return self.mutate(inner) if inner is not None else self.mutate_children(e)


def unguarded(node):
    """node without its run-time guards (valid where BoundCheck passed)."""
    return _Unguard().mutate(node)


class _Forms:
    """Affine lower and upper bounds of one subexpression."""

    __slots__ = ("lbs", "ubs")

    def __init__(self, lbs, ubs):
        self.lbs, self.ubs = lbs[:_MAX_FORMS], ubs[:_MAX_FORMS]


def affine_bounds(node, sym_of: dict, lo: int, hi: int):
    """(lower bound Affs, upper bound Affs, constraints) of an integer node
    built from + - * by constants, min, max, casts and guards over symbols
    (`sym_of`: IR variable name -> symbol), or None. Each constraint
    (lbs, ubs, lo, hi) says that some Aff of lbs is >= lo and some Aff of
    ubs is <= hi: together they make the forms exact (no operation wraps)
    and keep the node's value within [lo, hi]."""
    constraints = []
    memo = {}

    def walk(e):
        key = id(e)         # the node itself, not a Select made from a lazy call
        if key not in memo:
            memo[key] = (e, forms(_as_select(e)))
        return memo[key][1]

    def within(e, lo, hi) -> bool:
        """Add the constraints that keep e's value within [lo, hi] (None: no
        bound on that side)."""
        e = _as_select(e)
        t = e.type
        if (lo is None or lo <= t.min_value()) and (hi is None or t.max_value() <= hi):
            return True
        inner = checked_value(e)
        if inner is not None:
            return within(inner, lo, hi)
        if isinstance(e, (ir.Min, ir.Max)):
            # a max is below hi where both operands are, and above lo where
            # one is (its lower forms: some of them >= lo); a min likewise
            # (`max(lo, i)` with lo = -2**40 and i >= 0 is within int32)
            one, both = (lo, hi) if isinstance(e, ir.Max) else (hi, lo)
            if not (within(e.a, *_side(both, isinstance(e, ir.Max))) and
                    within(e.b, *_side(both, isinstance(e, ir.Max)))):
                return False
            if one is None:
                return True
            f = walk(e)
            if f is None or not (f.lbs if isinstance(e, ir.Max) else f.ubs):
                return False
            constraints.append((f.lbs, f.ubs) + _side(one, not isinstance(e, ir.Max)))
            return True
        if isinstance(e, ir.Select):
            return within(e.true_value, lo, hi) and within(e.false_value, lo, hi)
        if isinstance(e, ir.Cast) and e.value.type.is_integer() and \
                e.value.type.min_value() >= t.min_value() and \
                e.value.type.max_value() <= t.max_value():
            return within(e.value, lo, hi)
        f = walk(e)
        if f is None or not f.lbs or not f.ubs:
            return False
        constraints.append((f.lbs, f.ubs, lo, hi))
        return True

    def forms(e):
        if isinstance(e, ir.Const):
            if not e.type.is_integer():
                return None
            a = Aff.const(int(e.value))
            return _Forms([a], [a])
        inner = checked_value(e)
        if inner is not None:
            return walk(inner)
        if isinstance(e, ir.Variable):
            s = sym_of.get(e.name)
            if s is None:
                return None
            a = Aff.sym(s)
            return _Forms([a], [a])
        if isinstance(e, ir.Cast):
            if not e.type.is_integer():
                return None
            f = walk(e.value)
            if f is None:
                return None
            _constrain(f, e.type)
            return f
        if isinstance(e, (ir.Add, ir.Sub)):
            a, b = walk(e.a), walk(e.b)
            if a is None or b is None:
                return None
            if isinstance(e, ir.Add):
                f = _Forms([x + y for x in a.lbs for y in b.lbs], [x + y for x in a.ubs for y in b.ubs])
            else:
                f = _Forms([x - y for x in a.lbs for y in b.ubs], [x - y for x in a.ubs for y in b.lbs])
            _constrain(f, e.type)
            return f
        if isinstance(e, ir.Mul):
            k, other = (e.a, e.b) if isinstance(e.a, ir.Const) else (e.b, e.a)
            if not isinstance(k, ir.Const):
                return None
            f = walk(other)
            if f is None:
                return None
            c = int(k.value)
            f = _Forms([x.scale(c) for x in f.lbs], [x.scale(c) for x in f.ubs]) if c >= 0 else \
                _Forms([x.scale(c) for x in f.ubs], [x.scale(c) for x in f.lbs])
            _constrain(f, e.type)
            return f
        if isinstance(e, (ir.Min, ir.Max, ir.Select)):
            kind, casts = ("min", []) if isinstance(e, ir.Min) else ("max", []) \
                if isinstance(e, ir.Max) else _select_kind(e)
            if kind == "select" and isinstance(e, ir.Select):
                kind = _affine_select_kind(e, exact)
            elif not all(within(v, t.min_value(), t.max_value()) for v, t in casts):
                kind = "select"
            x, y = (e.a, e.b) if not isinstance(e, ir.Select) else (e.true_value, e.false_value)
            if isinstance(e, ir.Select) and not x.type.is_integer():
                return None
            a, b = walk(x), walk(y)
            if a is None or b is None:
                return None
            if kind == "min":
                return _Forms(_common(a.lbs, b.lbs), a.ubs + b.ubs)
            if kind == "max":
                return _Forms(a.lbs + b.lbs, _common(a.ubs, b.ubs))
            return _Forms(_common(a.lbs, b.lbs), _common(a.ubs, b.ubs))
        return None

    def _constrain(f, t):
        constraints.append((f.lbs, f.ubs, t.min_value(), t.max_value()))

    def exact(e):
        """The one affine form of an integer e (exact where the constraints hold), or None."""
        if not e.type.is_integer():
            return None
        f = walk(_as_select(e))
        if f is None or len(f.lbs) != 1 or f.lbs != f.ubs:
            return None
        return f.lbs[0]

    if not node.type.is_integer():
        return None
    f = walk(node)
    if f is None or not within(node, lo, hi):
        return None
    return f.lbs, f.ubs, constraints


def _side(bound, upper: bool) -> tuple:
    """(lo, hi) with only one side bounded: (None, bound) if upper."""
    return (None, bound) if upper else (bound, None)


def _as_select(e):
    """A lazy if_then_else call as the Select it computes."""
    if isinstance(e, ir.Call) and e.call_type == ir.INTRINSIC and e.name == "if_then_else":
        return ir.Select(*e.args)
    return e


def _select_kind(e):
    """("max", casts) for select(x > y, x, y) and its spellings (Python's
    max), ("min", casts) likewise, else ("select", []). The comparison may
    see x and y through integer casts: `casts` lists (operand, type) pairs
    whose values must fit the type for the reading to hold."""
    c = e.condition
    if not isinstance(c, (ir.GT, ir.GE, ir.LT, ir.LE)):
        return "select", []
    casts = []
    x, y = _uncast(e.true_value, casts), _uncast(e.false_value, casts)
    a, b = _uncast(c.a, casts), _uncast(c.b, casts)
    if _same(a, x) and _same(b, y):
        return ("max" if isinstance(c, (ir.GT, ir.GE)) else "min"), casts
    if _same(a, y) and _same(b, x):
        return ("min" if isinstance(c, (ir.GT, ir.GE)) else "max"), casts
    return "select", []


def _affine_select_kind(e, exact) -> str:
    """"max" for select(a > b, x, y) where x - y is a - b as affine forms
    (`select(r > j, 0, j - r)`: x is chosen exactly when x > y, so it is
    max(x, y)), "min" where x - y is b - a; likewise for >=, < and <= (at
    equality both sides are the same value). Else "select"."""
    c = e.condition
    if not isinstance(c, (ir.GT, ir.GE, ir.LT, ir.LE)):
        return "select"
    forms = [exact(v) for v in (c.a, c.b, e.true_value, e.false_value)]
    if any(f is None for f in forms):
        return "select"
    a, b, x, y = forms
    d = a - b if isinstance(c, (ir.GT, ir.GE)) else b - a      # the condition: d > 0 (or >= 0)
    if x - y == d:
        return "max"
    if y - x == d:
        return "min"
    return "select"


def _same(a, b) -> bool:
    """Equal expressions, constants compared by value."""
    if isinstance(a, ir.Const) and isinstance(b, ir.Const):
        return a.value == b.value
    return ir.equal(a, b)


def _uncast(e, casts: list):
    """e without integer casts, each recorded as (operand, cast type)."""
    while isinstance(e, ir.Cast) and e.type.is_integer() and e.value.type.is_integer():
        casts.append((e.value, e.type))
        e = e.value
    return e


def _common(xs, ys):
    """Bounds valid for both sides (of a min's lower or a max's upper bound)."""
    return [x for x in xs if x in ys]


class BoundCheck:
    """At call time: each requirement (candidate Affs over argument symbols,
    one of which must be >= lo, or <= hi) holds, else OverflowError naming
    the loop's line; only where `reached(env)` (Context.reached_at_call:
    the code runs; None: always)."""

    def __init__(self, requirements, sym_static, line, reached=None):
        self.requirements = requirements      # [(cands, lo or None, hi or None)]
        self.sym_static, self.line = sym_static, line
        self.reached = reached

    def _value(self, aff, env):
        return aff.c + sum(k * int(self.sym_static[s](env)) for s, k in aff.terms.items())

    def __call__(self, env):
        if self.reached is not None and not self.reached(env):
            return
        for cands, lo, hi in self.requirements:
            vals = [self._value(a, env) for a in cands]
            if (lo is not None and not any(v >= lo for v in vals)) or \
                    (hi is not None and not any(v <= hi for v in vals)):
                raise limit(OverflowError(f"the range() of the loop at line {self.line} does "
                                          f"not fit in 32 bits for these arguments"))
