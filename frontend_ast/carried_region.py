"""The region a time-stepped loop writes, when its carried arrays keep
their values everywhere else (carried_arrays.py).

A step of grayscott (`u += Du*Lu - ...` with u = U[1:-1, 1:-1], v likewise)
makes every member's next value `select(inside, new, old)`, where `old` is
the member's value of the step before at the same point and `inside` says
that the point lies in the region written; `new` reads the body's values at
the region's point clamped into the region (the select evaluates both
sides). When every member has that form with one condition, and the
condition is a conjunction of bounds `lo <= x` / `x < hi` on single point
coordinates, the step's update runs over the region alone and stores `new`:
outside it both slots keep the state's first values (its pure definition
does not depend on the slot), as Python's arrays keep theirs. Inside the
region the conjuncts hold, so the clamps they make redundant are removed:
the step's reads become dense (vector loads instead of gathers).

Conjuncts of another form (a boolean mask: mandelbrot's `Z[I] = Z[I]**2 +
C[I]` with `I = np.abs(Z) < horizon`) stay as the select's condition inside
the region: the step stores `select(rest, new, old)` there, unclamped too."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.simplify import simplify


def region_step(values, members, state_name: str, point, step, slot):
    """(per point coordinate, innermost first, (lo, hi) with hi exclusive
    or None for the whole axis; the values to store there), or None when
    the step does not have that form. `values`: the members' next values
    at point coordinates `point` (ir.Variables) in step `step` (an
    ir.Variable), read from slot `slot`."""
    conds, news = [], []
    for m, v in zip(members, values):
        if not isinstance(v, ir.Select) or not _old(v.false_value, state_name, m.index,
                                                     list(point) + [slot]):
            return None
        conds.append(v.condition)
        news.append(_nonempty_value(v.true_value, v.false_value))
    if any(not ir.equal(c, conds[0]) for c in conds[1:]):
        return None
    bounds = [[None, None] for _ in point]
    facts, rest = [], []
    for c in _conjuncts(conds[0]):
        got = _bound(c, point, step)
        if got is None:
            rest.append(c)
            continue
        k, is_lower, b = got
        old = bounds[k][0 if is_lower else 1]
        bounds[k][0 if is_lower else 1] = b if old is None else \
            (ir.Max(old, b) if is_lower else ir.Min(old, b))
        facts.append(_fact(c))
    if not facts:
        return None
    rewrite = _Unclamp(facts)
    news = [rewrite.mutate(n) for n in news]
    if rest:
        cond = rewrite.mutate(ir.conjunction(rest))
        news = [ir.Select(cond, n, v.false_value) for n, v in zip(news, values)]
    return [tuple(b) for b in bounds], news


def _nonempty_value(new, old):
    """The value `new` of a step that runs over its region alone, without
    the lazy test that the region is not empty (carried_body.write): a step
    over an empty region runs no iteration."""
    if ir.is_lazy_select(new) and ir.equal(new.args[2], old):
        return new.args[1]
    return new


def _old(e, state_name, index, args) -> bool:
    """Whether e reads element `index` of the state at `args`."""
    return isinstance(e, ir.Call) and e.call_type == ir.FUNC and e.name == state_name and \
        e.value_index == index and len(e.args) == len(args) and \
        all(ir.equal(a, b) for a, b in zip(e.args, args))


def _conjuncts(c) -> list:
    if isinstance(c, ir.And):
        return _conjuncts(c.a) + _conjuncts(c.b)
    return [c]


def _bound(c, point, step):
    """(axis k, whether a lower bound, the bound: x_k >= b, or x_k < b) for
    a comparison linear in one point coordinate with coefficient 1 or -1
    and otherwise independent of them; None for any other condition."""
    if not isinstance(c, (ir.LE, ir.LT)) or not c.a.type.is_int():
        return None
    d = ir.Sub(c.b, c.a)            # c: d >= 0 (LE) or d > 0 (LT)
    names = {p.name: k for k, p in enumerate(point)}
    used = [n for n in ir.free_vars(d) if n in names]
    if len(used) != 1 or step.name in ir.free_vars(d) or \
            any(f.call_type != ir.INTRINSIC for f in ir.find_calls(d)):
        return None                 # (a bound must not read memory: a mask)
    x = point[names[used[0]]]
    rest = simplify(ir.substitute(d, {x.name: ir.index(0)}))
    coef = simplify(ir.Sub(ir.substitute(d, {x.name: ir.index(1)}), rest))
    if not isinstance(coef, ir.Const) or coef.value not in (1, -1) or not ir.is_const(
            simplify(ir.Sub(d, ir.Add(rest, ir.Mul(ir.index(coef.value), x)))), 0):
        return None
    strict = isinstance(c, ir.LT)
    if coef.value == 1:             # x + rest >= 0 (> 0): x >= -rest (+ 1)
        return names[x.name], True, simplify(ir.Sub(ir.index(1 if strict else 0), rest))
    # rest - x >= 0 (> 0): x <= rest (x < rest): x < rest + 1 (rest)
    return names[x.name], False, simplify(ir.Add(rest, ir.index(0 if strict else 1)))


def _fact(c):
    """(small, big): small <= big holds where comparison c does."""
    if isinstance(c, ir.LT):
        return c.a, ir.Sub(c.b, ir.index(1))
    return c.a, c.b


class _Unclamp(ir.Mutator):
    """min(a, b) -> a and max(b, a) -> a (either order) where the facts
    prove a <= b (the clamps of a region's point, inside it)."""

    def __init__(self, facts):
        super().__init__()
        self.facts = facts

    def _le(self, a, b) -> bool:
        """Whether a <= b: a fact small <= big with small = a and b - big a
        non-negative constant, or with big = b and small - a one."""
        for small, big in self.facts:
            for same, x, y in ((ir.equal(small, a), b, big), (ir.equal(big, b), small, a)):
                if same:
                    d = simplify(ir.Sub(x, y))
                    if isinstance(d, ir.Const) and d.value >= 0:
                        return True
        return False

    def _pick(self, e, smaller: bool):
        r = self.mutate_children(e)
        if type(r) is type(e) and r.type.is_int():
            if self._le(r.a, r.b):
                return r.a if smaller else r.b
            if self._le(r.b, r.a):
                return r.b if smaller else r.a
        return r

    def visit_Min(self, e):
        return self._pick(e, True)

    def visit_Max(self, e):
        return self._pick(e, False)
