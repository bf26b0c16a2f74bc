"""Reverse-mode differentiation of one definition's values (the expression
level of Halide's propagate_adjoints, Li et al. 2018): given each value's
adjoint, the adjoint that reaches every Func call, image read and scalar
Param of float type in them.

Only float subexpressions carry adjoints: a value reaches an integer or bool
subexpression only through a cast to an integer type or a comparison, whose
derivative is zero (Halide gives them zero adjoints, which add nothing). The
rules are Halide 21's, including the products and quotients with a select
that has a zero branch (`select(c, a, 0) * b` is `select(c, a * b, 0)`), so
that a branch not taken gives 0, not NaN."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.errors import CompileError

from .math_adjoints import intrinsic_adjoints

_ARITH = (ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Mod, ir.Min, ir.Max)


def expression_adjoints(values, adjoints) -> list:
    """[(target, adjoint)]: target is an ir.Call (call_type FUNC or IMAGE)
    or a "param" ir.Variable of float type, in `values` (lets inlined),
    with the adjoint that reaches it from `adjoints` (one per value)."""
    values = [_InlineLets().mutate(v) for v in values]
    order = _postorder(values)
    acc: dict = {}
    for v, a in zip(values, adjoints):
        if v.type.is_float():
            _accumulate(acc, v, a)
    found = []
    for n in reversed(order):
        hit = acc.get(id(n))
        if hit is None:
            continue
        a = hit[1]
        if isinstance(n, ir.Call) and n.call_type != ir.INTRINSIC:
            found.append((n, a))
        elif isinstance(n, ir.Variable):
            if n.kind == "param":
                found.append((n, a))
        elif _children(n):
            for child, ca in _local_adjoints(n, a):
                if child.type.is_float():
                    _accumulate(acc, child, ca)
    return found


class _InlineLets(ir.Mutator):
    """Every Let replaced by its body with the bound value substituted."""

    def visit_Let(self, e):
        return self.mutate(ir.substitute(e.body, {e.name: e.value}))


def _children(n) -> tuple:
    """The float operands an adjoint flows to."""
    if not n.type.is_float():
        return ()
    if isinstance(n, _ARITH):
        kids = (n.a, n.b)
    elif isinstance(n, ir.Cast):
        kids = (n.value,)
    elif isinstance(n, ir.Select):
        kids = (n.true_value, n.false_value)
    elif isinstance(n, ir.Call) and n.call_type == ir.INTRINSIC:
        kids = n.args
    else:
        kids = ()
    return tuple(k for k in kids if k.type.is_float())


def _postorder(roots) -> list:
    """Each float node reachable from `roots` once, operands before users."""
    order, seen = [], set()
    for root in roots:
        stack = [(root, False)]
        while stack:
            n, done = stack.pop()
            if done:
                order.append(n)
                continue
            if id(n) in seen:
                continue
            seen.add(id(n))
            stack.append((n, True))
            stack.extend((k, False) for k in reversed(_children(n)) if id(k) not in seen)
    return order


def _is_zero(e) -> bool:
    return ir.is_const(e, 0)


def _select_trick(a):
    """Halide's rewrite of an adjoint `select(c, x, 0) op y` (op * or /) into
    `select(c, x op y, 0)`, so the branch not taken stays 0 (not 0 * inf)."""
    if isinstance(a, (ir.Mul, ir.Div)):
        cls = type(a)
        sel, other = (a.a, a.b) if isinstance(a.a, ir.Select) else (a.b, a.a)
        if isinstance(sel, ir.Select) and (cls is ir.Mul or sel is a.a):
            def op(x):
                return cls(x, other) if sel is a.a else cls(other, x)
            if _is_zero(sel.true_value):
                return ir.Select(sel.condition, sel.true_value, op(sel.false_value))
            if _is_zero(sel.false_value):
                return ir.Select(sel.condition, op(sel.true_value), sel.false_value)
    return a


def _accumulate(acc: dict, n, a) -> None:
    a = _select_trick(a)
    hit = acc.get(id(n))
    acc[id(n)] = (n, a if hit is None else ir.Add(hit[1], a))


def _neg(a):
    return ir.Sub(ir.zero(a.type), a)


def _local_adjoints(n, a) -> list:
    """[(operand, adjoint)] of node n whose adjoint is a."""
    t = n.type
    zero = ir.zero(t)
    if isinstance(n, ir.Add):
        return [(n.a, a), (n.b, a)]
    if isinstance(n, ir.Sub):
        return [(n.a, a), (n.b, _neg(a))]
    if isinstance(n, ir.Mul):
        return [(n.a, ir.Mul(a, n.b)), (n.b, ir.Mul(a, n.a))]
    if isinstance(n, ir.Div):
        return _div_adjoints(n, a)
    if isinstance(n, ir.Mod):
        trunc = ir.Call(t, "trunc", (ir.Div(n.a, n.b),), ir.INTRINSIC)
        return [(n.a, a), (n.b, ir.Mul(_neg(a), trunc))]
    if isinstance(n, ir.Min):
        return [(n.a, ir.Select(ir.LE(n.a, n.b), a, zero)),
                (n.b, ir.Select(ir.LE(n.b, n.a), a, zero))]
    if isinstance(n, ir.Max):
        return [(n.a, ir.Select(ir.GE(n.a, n.b), a, zero)),
                (n.b, ir.Select(ir.GE(n.b, n.a), a, zero))]
    if isinstance(n, ir.Cast):
        return [(n.value, ir.Cast(n.value.type, a))]
    if isinstance(n, ir.Select):
        return [(n.true_value, ir.Select(n.condition, a, zero)),
                (n.false_value, ir.Select(n.condition, zero, a))]
    if isinstance(n, ir.Call):
        return intrinsic_adjoints(n, a)
    raise CompileError(f"propagate_adjoints: the derivative of {type(n).__name__} "
                       f"({ir.expr_to_str(n)}) is not implemented")


def _div_adjoints(n, a) -> list:
    """d(a/b): 1/b and -a/b^2, multiplied into a select with a zero branch."""
    bb = ir.Mul(n.b, n.b)
    if isinstance(a, ir.Select):
        c, tv, fv = a.condition, a.true_value, a.false_value
        if _is_zero(tv):
            return [(n.a, ir.Select(c, tv, ir.Div(fv, n.b))),
                    (n.b, ir.Select(c, tv, ir.Div(ir.Mul(_neg(fv), n.a), bb)))]
        if _is_zero(fv):
            return [(n.a, ir.Select(c, ir.Div(tv, n.b), fv)),
                    (n.b, ir.Select(c, ir.Div(ir.Mul(_neg(tv), n.a), bb), fv))]
    return [(n.a, ir.Div(a, n.b)), (n.b, ir.Div(ir.Mul(_neg(a), n.a), bb))]
