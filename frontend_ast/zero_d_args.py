"""0-d array arguments written in place; 0-d array results.

A 0-d array argument is computed with as the NumPy scalar it holds (NumPy's
arithmetic on it gives scalars), but it is still the caller's array: an
augmented assignment to it (`a += 1`, or `x = a; x += 1`) updates that array
in place, which the caller sees. The frontend does not write 0-d arguments,
so such an update is a located error (a wrong result otherwise: the update
would be lost).

np.where of scalars is a 0-d array in NumPy. It is computed with as a scalar
too (NumPy's arithmetic on it gives scalars) and marked (`mark`): returned,
it is a 0-d array of its dtype; `t += 1` updates it in place, so the result
stays a 0-d array, and another name bound to it (`x = t`) would see the
update: a located error, as for the arguments.
"""
from __future__ import annotations

import ast

from .values import Val


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


def mark(cx, v, node):
    """v (a fresh scalar Val), as the 0-d array result of expression `node`."""
    cx.zero_d_results[id(v)] = (v, node)
    return v


def is_zero_d(cx, v) -> bool:
    return cx.zero_d_results.get(id(v), (None,))[0] is v


def evaluated(cx, v, node):
    """v as the value of expression `node`: a 0-d array (an argument, or a
    result) stays one where node is a name bound to it or the call that made
    it; elsewhere (an operation that gives its operand back: np.ceil of an
    integer, np.int64(t) of an int64) it is the scalar NumPy gives."""
    if isinstance(node, ast.Name):
        return v
    if is_zero_d(cx, v):
        if cx.zero_d_results[id(v)][1] is node:
            return v
    elif not cx.is_zero_d_arg(v):
        return v
    return Val(v.node, v.ty, v.lo, v.hi, v.lbs, v.ubs, v.static, v.const, v.risky,
               facts=v.facts, origin=v.origin)


def in_place_update(cx, env, name, old, new, node):
    """The value of `name op= ...` (new) marked as a 0-d array where old is
    one; a located error where another name is bound to old."""
    if not is_zero_d(cx, old):
        return new
    other = next((n for n, v in env.items() if v is old and n != name), None)
    if other is not None:
        raise cx.err(node, f"`{name} {_OPS.get(type(node.op), '?')}= ...` updates the 0-d "
                           f"array {name!r} in place, and {other!r} is the same array (it "
                           f"changes too); compiled code computes 0-d arrays as values",
                     hint=f"compute a new value instead ({name} = {name} + ...), or copy "
                          f"it first ({other} = {name}.copy())")
    return mark(cx, new, node)
