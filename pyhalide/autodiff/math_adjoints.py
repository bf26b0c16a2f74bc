"""The derivatives of the math intrinsics (Halide 21's rules in
propagate_adjoints): each operand's adjoint, given the call's adjoint."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.errors import CompileError


def _f(name, *args):
    return ir.Call(args[0].type, name, tuple(args), ir.INTRINSIC)


def _one_arg(name, x, a):
    """The adjoint of x in name(x), a the adjoint of the call; None when
    `name` has no rule here."""
    one = ir.one(x.type)
    zero = ir.zero(x.type)
    neg = ir.Sub(zero, a)
    rules = {
        "exp": lambda: ir.Mul(a, _f("exp", x)),
        "log": lambda: ir.Div(a, x),
        "sin": lambda: ir.Mul(a, _f("cos", x)),
        "cos": lambda: ir.Mul(neg, _f("sin", x)),
        "tan": lambda: ir.Div(a, ir.Mul(_f("cos", x), _f("cos", x))),
        "asin": lambda: ir.Div(a, _f("sqrt", ir.Sub(one, ir.Mul(x, x)))),
        "acos": lambda: ir.Div(neg, _f("sqrt", ir.Sub(one, ir.Mul(x, x)))),
        "atan": lambda: ir.Div(a, ir.Add(one, ir.Mul(x, x))),
        "sinh": lambda: ir.Mul(a, _f("cosh", x)),
        "cosh": lambda: ir.Mul(a, _f("sinh", x)),
        "tanh": lambda: ir.Div(a, ir.Mul(_f("cosh", x), _f("cosh", x))),
        "sqrt": lambda: ir.Mul(a, ir.Div(ir.const(x.type, 0.5), _f("sqrt", x))),
        "abs": lambda: ir.Mul(a, ir.Select(ir.GT(x, zero), one, ir.const(x.type, -1))),
        "floor": lambda: zero, "ceil": lambda: zero, "round": lambda: zero,
        "trunc": lambda: zero,
        "likely": lambda: a, "likely_if_innermost": lambda: a, "strict_float": lambda: a,
    }
    rule = rules.get(name)
    return None if rule is None else rule()


def intrinsic_adjoints(n: ir.Call, a) -> list:
    """[(operand, adjoint)] of the intrinsic call n whose adjoint is a."""
    if len(n.args) == 1:
        d = _one_arg(n.name, n.args[0], a)
        if d is not None:
            return [(n.args[0], d)]
    if n.name == "pow" and len(n.args) == 2:
        x, y = n.args
        return [(x, ir.Mul(ir.Mul(a, y), _f("pow", x, ir.Sub(y, ir.one(y.type))))),
                (y, ir.Mul(ir.Mul(a, _f("pow", x, y)), _f("log", x)))]
    if n.name == "atan2" and len(n.args) == 2:
        y, x = n.args
        r2 = ir.Add(ir.Mul(y, y), ir.Mul(x, x))
        return [(y, ir.Mul(a, ir.Div(x, r2))),
                (x, ir.Mul(a, ir.Div(ir.Sub(ir.zero(y.type), y), r2)))]
    raise CompileError(f"propagate_adjoints: the derivative of the intrinsic {n.name} "
                       f"({ir.expr_to_str(n)}) is not implemented")
