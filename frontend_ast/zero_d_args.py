"""0-d array arguments written in place.

A 0-d array argument is computed with as the NumPy scalar it holds (NumPy's
arithmetic on it gives scalars), but it is still the caller's array: an
augmented assignment to it (`a += 1`, or `x = a; x += 1`) updates that array
in place, which the caller sees. The frontend does not write 0-d arguments,
so such an update is a located error (a wrong result otherwise: the update
would be lost).
"""
from __future__ import annotations

import ast


def refuse_in_place_updates(cx, tree, names):
    """Raise a located error at the first augmented assignment to one of the
    0-d array arguments `names` or to a name bound to one of them."""
    aliases = _aliases(tree, set(names))
    for node in ast.walk(tree):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and \
                node.target.id in aliases:
            name = node.target.id
            raise cx.err(node, f"`{name} {_OPS.get(type(node.op), '?')}= ...` updates the 0-d "
                               f"array argument {aliases[name]!r} in place (the caller's array "
                               f"changes); compiled code does not write 0-d array arguments",
                         hint=f"compute a new value instead ({name} = {name} + ...), or pass "
                              f"a NumPy scalar ({aliases[name]}[()]) or a 1-element array")


def _aliases(tree, names: set) -> dict:
    """name -> the 0-d argument it may be bound to (plain `x = a` bindings,
    tuples element by element, followed to a fixed point)."""
    out = {n: n for n in names}
    pairs = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                pairs.extend(_pairs(t, node.value))
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            pairs.extend(_pairs(node.target, node.value))
    changed = True
    while changed:
        changed = False
        for target, source in pairs:
            if source in out and target not in out:
                out[target] = out[source]
                changed = True
    return out


def _pairs(target, value):
    """(target name, source name) of the plain name bindings in one assignment."""
    if isinstance(target, ast.Name) and isinstance(value, ast.Name):
        return [(target.id, value.id)]
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
            and len(target.elts) == len(value.elts):
        return [p for t, v in zip(target.elts, value.elts) for p in _pairs(t, v)]
    return []


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
        ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|",
        ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
