"""Skeletons of table operators straight from their text.

Indexing a table needs every entry's skeleton (`match_form.skeleton`), but
only the few entries whose skeleton equals an update's are ever matched in
full. Parsing an entry's text into IR costs far more than reading its
structure with Python's own parser, so the index builds the matching form
(`M` nodes, structure only) from the `ast` of the text, following exactly
the rules `match_form.Converter` applies to IR: the same chains, comparison
flips, negated comparisons, select spellings and operation keys.
"""
from __future__ import annotations

import ast
from functools import lru_cache

from pyhalide import ir

from .match_form import AC_KINDS, M, skeleton

_BIN = {ast.Add: "Add", ast.Sub: "Sub", ast.Mult: "Mul", ast.BitAnd: "BitAnd",
        ast.BitOr: "BitOr", ast.BitXor: "BitXor"}
_CMP = {ast.Lt: ("LT", False), ast.LtE: ("LE", False), ast.Gt: ("LT", True),
        ast.GtE: ("LE", True), ast.Eq: ("EQ", False), ast.NotEq: ("NE", False)}
_TYPE_NAMES = {str(t): t for t in ir.ALL_SCALAR_TYPES}


def _x_index(name: str):
    return int(name[1:]) if name[0] == "x" and name[1:].isdigit() else None


def _op(key, kids) -> M:
    return M("op", key, tuple(kids), has_x=any(k.has_x for k in kids))


def _chain_name(node):
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        return _BIN[type(node.op)]
    if isinstance(node, ast.BoolOp):
        return "And" if isinstance(node.op, ast.And) else "Or"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("min", "max"):
        return node.func.id.capitalize()
    return None


def _flatten(node, kind, sign, out):
    name = _chain_name(node)
    if name is not None and AC_KINDS.get(name) == kind:
        if isinstance(node, ast.BinOp):
            _flatten(node.left, kind, sign, out)
            _flatten(node.right, kind, -sign if name == "Sub" else sign, out)
        else:
            for child in (node.values if isinstance(node, ast.BoolOp) else node.args):
                _flatten(child, kind, sign, out)
    else:
        out.append((sign, convert(node)))


def _compare_parts(node) -> tuple:
    """(LT/LE/EQ/NE, a, b) of a comparison, `a > b` read as `b < a`."""
    key, flip = _CMP[type(node.ops[0])]
    a, b = node.left, node.comparators[0]
    return (key, b, a) if flip else (key, a, b)


def _compare(key: str, a, b) -> M:
    return _op(key, (convert(a), convert(b)))


def convert(node) -> M:
    """The matching form of an operator's ast (structure only)."""
    if isinstance(node, ast.Name):
        i = _x_index(node.id)
        return M("x", i, has_x=True) if i is not None else M("leaf", node.id)
    if isinstance(node, ast.Constant):
        return M("const")
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            if isinstance(node.operand, ast.Compare):
                key, a, b = _compare_parts(node.operand)
                if key in ("LT", "LE"):
                    return _compare("LE" if key == "LT" else "LT", b, a)
                return _compare("NE" if key == "EQ" else "EQ", a, b)
            return _op("Not", (convert(node.operand),))
        if isinstance(node.op, ast.Invert):
            return _op("BitNot", (convert(node.operand),))
        return M("const")                      # a negative literal
    name = _chain_name(node)
    if name is not None:
        kind = AC_KINDS[name]
        terms = []
        _flatten(node, kind, 1, terms)
        return M("ac", kind, tuple(terms), has_x=any(k.has_x for _, k in terms))
    if isinstance(node, ast.Compare):
        return _compare(*_compare_parts(node))
    if isinstance(node, ast.Call):
        fname = node.func.id
        kids = [convert(a) for a in node.args]
        if fname == "select":
            return _op("Select", kids)
        if fname == "is_nan":
            return _op("Call:is_nan", kids)
        return _op(f"Cast:{_TYPE_NAMES[fname]}", kids)
    raise ValueError(f"unsupported syntax {ast.dump(node)}")


@lru_cache(maxsize=None)
def text_skeleton(text: str) -> str:
    return skeleton(convert(ast.parse(text.strip(), mode="eval").body))
