"""Exact integer ranges of index expressions, for trim_no_ops' bounds.

    exact_range(e, scope) -> (lo, hi) | None
    loop_range(min, extent, scope) -> (lo, hi)

exact_range bounds e over its leaves with Python integers: a name in
`scope` (a dict name -> (lo, hi): an enclosing loop's variable or a let)
takes that range; another name takes its type's range (a buffer extent,
`.extent.` in its name, is never negative); a constant itself. The result
is None unless every subexpression's exact value stays within its type for
every such leaf value: then the expression, computed in its own type, is its
exact value, which is in (lo, hi). Sums, differences, products, min, max,
selects, and division and modulus by a positive constant (floor semantics)
are bounded; an integer cast is its value's range where that fits the type,
else a leaf of the type's range (index_overflow.widened computes past it,
not into it); any other node of integer type is a leaf of its type's
range."""
from __future__ import annotations

from pyhalide import ir


def _type_range(t):
    if not t.is_integer():
        return None
    return t.min_value(), t.max_value()


def _in_type(r, t):
    tr = _type_range(t)
    if r is None or tr is None or r[0] < tr[0] or r[1] > tr[1]:
        return None
    return r


def _leaf(v: ir.Variable, scope: dict):
    if v.name in scope:
        return scope[v.name]
    tr = _type_range(v.type)
    if tr is not None and ".extent." in v.name:
        return 0, tr[1]
    return tr


def _binary(e, scope, memo):
    a, b = _range(e.a, scope, memo), _range(e.b, scope, memo)
    if a is None or b is None:
        return None
    if isinstance(e, ir.Add):
        return a[0] + b[0], a[1] + b[1]
    if isinstance(e, ir.Sub):
        return a[0] - b[1], a[1] - b[0]
    if isinstance(e, ir.Mul):
        ends = [x * y for x in a for y in b]
        return min(ends), max(ends)
    if isinstance(e, ir.Min):
        return min(a[0], b[0]), min(a[1], b[1])
    if isinstance(e, ir.Max):
        return max(a[0], b[0]), max(a[1], b[1])
    if b[0] == b[1] and b[0] > 0:
        if isinstance(e, ir.Div):
            return a[0] // b[0], a[1] // b[0]
        if isinstance(e, ir.Mod):
            return 0, b[0] - 1
    return None


_BINARY = (ir.Add, ir.Sub, ir.Mul, ir.Min, ir.Max, ir.Div, ir.Mod)


def exact_range(e: ir.Expr, scope: dict):
    """(lo, hi) of e's exact value when no subexpression can leave its type
    (see the module doc); None otherwise (also where e is too deep to walk)."""
    try:
        return _range(e, scope, {})
    except RecursionError:
        return None


def _range(e: ir.Expr, scope: dict, memo: dict):
    """exact_range, each shared subexpression once (memo: id -> (e, range))."""
    hit = memo.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    out = _range_of(e, scope, memo)
    memo[id(e)] = (e, out)
    return out


def _range_of(e: ir.Expr, scope: dict, memo: dict):
    t = e.type
    if not t.is_integer():
        return None
    if isinstance(e, ir.Const):
        return e.value, e.value
    if isinstance(e, ir.Variable):
        return _leaf(e, scope)
    if isinstance(e, _BINARY):
        return _in_type(_binary(e, scope, memo), t)
    if isinstance(e, ir.Cast):
        # (a cast that may wrap is a leaf of its type, as index_overflow.widened takes it)
        return _in_type(_range(e.value, scope, memo), t) or _type_range(t)
    if isinstance(e, ir.Select):
        a, b = _range(e.true_value, scope, memo), _range(e.false_value, scope, memo)
        return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
    if isinstance(e, ir.Let):
        inner = dict(scope)
        inner[e.name] = _range(e.value, scope, memo) or _type_range(e.value.type)
        return exact_range(e.body, inner)       # (a new memo: the name's range is new)
    return _type_range(t)


def loop_range(lo: ir.Expr, extent: ir.Expr, scope: dict):
    """(lo, hi): the values of a loop variable over [lo, lo + extent - 1]
    (its type's range where an end is not bounded exactly)."""
    t = lo.type
    full = _type_range(t)
    first = exact_range(lo, scope)
    last = exact_range(ir.Sub(ir.Add(lo, extent), ir.Const(t, 1)), scope)
    return (full[0] if first is None else first[0]), (full[1] if last is None else last[1])
