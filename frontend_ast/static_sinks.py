"""Call-time values computed where Python computes them, used or not.

A scalar known only at call time (a Val with a static function and no IR
node: `x = a.shape[0] % k + 1`, `q, r = divmod(n, k)`, `n << k`) is computed
by Python at call time only where IR needs it (its static parameter). One
that nothing uses is never computed, and its ZeroDivisionError, ValueError
or OverflowError would be lost. So a statement outside loops that assigns
or evaluates such a value makes a call-time check (`StaticEval`) that
computes it where the statement's enclosing `if`s hold: the check raises
what Python raises there, tagged with the statement's location
(check_order keeps Python's order among failures). Every such value is
computed, not only those whose operation may raise: a static function is
Python's own operation, so computing it once per new set of shapes and
call-time scalars (Specialization.bind caches the checks' outcome) costs
microseconds. A value with an IR node is checked by the kernel
(check_order.risky_assigned), and one under a condition that reads array
data cannot be computed at call time (left to the kernel, as before).
"""
from __future__ import annotations

import ast

from .values import TupleVal, Val, cannot_raise


class StaticEval:
    """A call-time check: compute `fn(env)` where `reached(env)` holds (or
    always, reached None), raising what the computation raises."""

    def __init__(self, fn, reached):
        self.fn, self.reached = fn, reached

    def __call__(self, env):
        if self.reached is None or self.reached(env):
            self.fn(env)


def _values(v) -> list:
    """The scalar Vals in v (a Val, or a tuple of them, nested)."""
    if isinstance(v, TupleVal):
        return [x for item in v.items for x in _values(item)]
    return [v] if isinstance(v, Val) else []


def _call_time_only(v: Val) -> bool:
    """v is computed only by its static function (no IR node holds it), one
    that may raise (computing one that cannot would only make the fast
    path's key hold the arguments it reads: direct_call.py)."""
    return not v.union and not v.ty.is_complex() and v.static is not None and \
        v.node is None and not v.is_const and not cannot_raise(v.static)


def statement_values(scope, stmt, expr_value=None) -> list:
    """The scalar values statement `stmt` computes: those it assigns to
    names (in `scope` after it ran) or, for an expression statement, its
    value `expr_value`."""
    if isinstance(stmt, ast.Expr):
        return _values(expr_value)
    if isinstance(stmt, ast.Assign):
        targets = list(stmt.targets)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)):
        targets = [stmt.target]
    else:
        return []
    out = []
    for t in targets:
        for e in ast.walk(t):
            if isinstance(e, ast.Name) and isinstance(e.ctx, ast.Store):
                out.extend(_values(scope.env.get(e.id)))
    return out


def add_checks(b, stmt):
    """Call-time checks computing the call-time-only values `stmt` (a
    statement outside loops) computes, where its enclosing `if`s hold."""
    cx = b.cx
    if cx.typing:
        return
    vals = [(v, None) for v in statement_values(b.scope, stmt, b.last_expr_value)]
    vals += [(alt, c) for v, _ in vals if v.union for c, alt in v.union
             if c.is_static and not c.union]      # (`2 ** k`: an int or a float)
    vals = [(v, c) for v, c in vals if _call_time_only(v)]
    if not vals:
        return
    reached = b.scope.current_condition()
    if reached is not None and (reached.static is None or reached.union):
        return          # a condition on data: not known at call time
    cx.cur_node = stmt
    seen = set()
    for v, c in vals:
        if id(v) not in seen:
            seen.add(id(v))
            cx.static_checks.append(StaticEval(v.static, _both(reached, c)))


def _both(a, b):
    """The call-time test that conditions a and b (bool Vals or None) hold."""
    if a is None or b is None:
        return (a or b) and (a or b).static
    fa, fb = a.static, b.static
    return lambda env: fa(env) and fb(env)
