"""The text form of operators: Python expression syntax over x0.., y0.., k0.

    +  -  *  &  |  ^  ~        arithmetic (wrapping at the type's width) and bitwise ops
    <  <=  >  >=  ==  !=       comparisons (bool results)
    and  or  not               logical ops on bools
    min(a, b)  max(a, b)  select(c, a, b)  is_nan(a)
    uint16(e)  int32(e) ...    casts, named by NumPy type names

Every binary operation is parenthesized except at the top. Literals are
numbers, True/False, inf/-inf; a literal takes the type of the expression it
is combined with (in `min(uint16(x0) + uint16(y0), 65535)` the 65535 is a
uint16), and a top-level literal (an identity) the type of its tuple element.
`format_expr` and `parse_expr` are inverse to each other.
"""
from __future__ import annotations

import ast

from pyhalide import ir

_BIN_SYMBOL = {"Add": "+", "Sub": "-", "Mul": "*", "BitAnd": "&", "BitOr": "|",
               "BitXor": "^", "LT": "<", "LE": "<=", "GT": ">", "GE": ">=",
               "EQ": "==", "NE": "!=", "And": "and", "Or": "or"}
_AST_BIN = {ast.Add: "Add", ast.Sub: "Sub", ast.Mult: "Mul", ast.BitAnd: "BitAnd",
            ast.BitOr: "BitOr", ast.BitXor: "BitXor"}
_AST_CMP = {ast.Lt: "LT", ast.LtE: "LE", ast.Gt: "GT", ast.GtE: "GE", ast.Eq: "EQ",
            ast.NotEq: "NE"}
_TYPE_NAMES = {str(t.to_numpy()): t for t in ir.ALL_SCALAR_TYPES}


def type_name(t: ir.Type) -> str:
    """The NumPy name of a scalar type ("int32", "float64", "bool")."""
    return str(t.to_numpy())


def type_from_name(name: str) -> ir.Type:
    return _TYPE_NAMES[name]


def _literal(c: ir.Const) -> str:
    v = c.value
    if c.type.is_bool():
        return "True" if v else "False"
    if c.type.is_float():
        if v != v:
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "(-inf)"
        text = repr(v)
    else:
        text = str(v)
    return f"({text})" if text.startswith("-") else text


def format_expr(e: ir.Expr, top: bool = True) -> str:
    """Python-syntax text of an operator expression."""
    def p(n):
        return format_expr(n, top=False)

    if isinstance(e, ir.Variable):
        return e.name
    if isinstance(e, ir.Const):
        text = _literal(e)
        return text[1:-1] if top and text.startswith("(") else text
    if isinstance(e, ir.Cast):
        return f"{type_name(e.type)}({format_expr(e.value)})"
    if isinstance(e, (ir.Min, ir.Max)):
        return f"{type(e).__name__.lower()}({format_expr(e.a)}, {format_expr(e.b)})"
    if isinstance(e, ir.Select):
        return (f"select({format_expr(e.condition)}, {format_expr(e.true_value)}, "
                f"{format_expr(e.false_value)})")
    if isinstance(e, ir.Call) and e.name == "is_nan":
        return f"is_nan({format_expr(e.args[0])})"
    if isinstance(e, ir.Not):
        text = f"not {p(e.a)}"
    elif isinstance(e, ir.BitNot):
        text = f"~{p(e.a)}"
    elif type(e).__name__ in _BIN_SYMBOL:
        text = f"{p(e.a)} {_BIN_SYMBOL[type(e).__name__]} {p(e.b)}"
    else:
        raise TypeError(f"cannot format {type(e).__name__}")
    return text if top else f"({text})"


class _Untyped:
    """Something whose type comes from the expression it meets."""

    def typed(self, t: ir.Type) -> ir.Expr:
        raise NotImplementedError


class _Literal(_Untyped):
    """A number literal."""

    def __init__(self, value):
        self.value = value

    def typed(self, t: ir.Type) -> ir.Const:
        if not t.is_float() and not t.can_represent(self.value):
            raise ValueError(f"literal {self.value} does not fit {t}")
        return ir.Const(t, self.value)


class _SelectOfLiterals(_Untyped):
    """select(c, literal, literal)."""

    def __init__(self, cond, a, b):
        self.cond, self.a, self.b = cond, a, b

    def typed(self, t: ir.Type) -> ir.Expr:
        return ir.Select(self.cond, self.a.typed(t), self.b.typed(t))


def _unify(a, b):
    if isinstance(a, _Untyped) and isinstance(b, _Untyped):
        raise ValueError("an operation on two literals has no type")
    if isinstance(a, _Untyped):
        a = a.typed(b.type)
    if isinstance(b, _Untyped):
        b = b.typed(a.type)
    return a, b


def parse_expr(text: str, variables: dict, t: ir.Type | None = None) -> ir.Expr:
    """Parse `text`; `variables` maps names to ir.Variables; `t` types a bare literal."""
    out = _parse(ast.parse(text.strip(), mode="eval").body, variables)
    if isinstance(out, _Untyped):
        if t is None:
            raise ValueError(f"untyped literal {text!r}")
        out = out.typed(t)
    return out


def _parse(node, variables):
    def rec(n):
        return _parse(n, variables)

    if isinstance(node, ast.Name):
        if node.id in ("inf", "nan"):
            return _Literal(float(node.id))
        return variables[node.id]
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, (bool, int, float)):
            raise ValueError(f"bad literal {node.value!r}")
        return _Literal(node.value)
    if isinstance(node, ast.UnaryOp):
        v = rec(node.operand)
        if isinstance(node.op, ast.USub) and isinstance(v, _Literal):
            return _Literal(-v.value)
        if isinstance(node.op, ast.Not):
            return ir.Not(v)
        if isinstance(node.op, ast.Invert):
            return ir.BitNot(v)
        raise ValueError(f"unsupported unary operator {ast.dump(node.op)}")
    if isinstance(node, ast.BinOp):
        a, b = _unify(rec(node.left), rec(node.right))
        return getattr(ir, _AST_BIN[type(node.op)])(a, b)
    if isinstance(node, ast.Compare):
        if len(node.ops) != 1:
            raise ValueError("chained comparisons are not allowed")
        a, b = _unify(rec(node.left), rec(node.comparators[0]))
        return getattr(ir, _AST_CMP[type(node.ops[0])])(a, b)
    if isinstance(node, ast.BoolOp):
        cls = ir.And if isinstance(node.op, ast.And) else ir.Or
        vals = [rec(v) for v in node.values]
        out = vals[0]
        for v in vals[1:]:
            out = cls(out, v)
        return out
    if isinstance(node, ast.Call):
        return _parse_call(node.func.id, [rec(a) for a in node.args])
    raise ValueError(f"unsupported syntax {ast.dump(node)}")


def _parse_call(name: str, args):
    if name in ("min", "max"):
        a, b = _unify(*args)
        return (ir.Min if name == "min" else ir.Max)(a, b)
    if name == "select":
        if isinstance(args[1], _Untyped) and isinstance(args[2], _Untyped):
            return _SelectOfLiterals(*args)
        c, (a, b) = args[0], _unify(args[1], args[2])
        return ir.Select(c, a, b)
    if name == "is_nan":
        return ir.Call(ir.Bool(), "is_nan", (args[0],), ir.INTRINSIC)
    if name in _TYPE_NAMES:
        t = _TYPE_NAMES[name]
        (v,) = args
        return v.typed(t) if isinstance(v, _Untyped) else ir.Cast(t, v)
    raise ValueError(f"unknown function {name}")
