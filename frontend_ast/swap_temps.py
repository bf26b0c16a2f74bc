"""Element swaps through a temporary (a rewrite of rewrites.py, order 11,
after the calls of user functions are inlined, before tuple_targets.py):

    t = a[i]                    a[i], a[j] = a[j], a[i]
    a[i] = a[j]          ->     t = a[j]        (only where t is read elsewhere)
    a[j] = t

The tuple assignment is what tuple_targets.py and carried_phases.py compile
(bubble sort's swap); the three statements, whose temporary is a user's
name, were refused ("'a' is written at two different positions in one loop
body"). Python's result is the same: after the swap a[j] holds what `t`
held. Only where the index expressions are names, constants and arithmetic
on them (evaluating them again changes nothing) that read neither the array
nor the temporary. An index out of range raises IndexError in both forms
before any write (the tuple form reads a[j] first, so a message may name
j's index where Python names i's when both are out of range)."""
from __future__ import annotations

import ast
import copy

from .rewrite_registry import register

_PURE = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.Load,
         ast.operator, ast.unaryop)


@register(11)
def swap_temps(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    for node in list(ast.walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                _block(stmts, tree)
    return tree


def _block(stmts, tree):
    k = 0
    while k + 2 < len(stmts):
        new = _swap(stmts[k:k + 3], tree)
        if new is None:
            k += 1
            continue
        stmts[k:k + 3] = new
        k += len(new)


def _swap(three, tree):
    s1, s2, s3 = three
    got = _element(s1.value) if _assigns_name(s1) else None
    if got is None:
        return None
    t, (arr, x) = s1.targets[0].id, got
    if not (_assigns_element(s2, arr, x) and _assigns_element(s3, arr, None)):
        return None
    y = _element(s2.value)
    if y is None or y[0] != arr or not _same(s3.targets[0].slice, y[1]) or \
            not (isinstance(s3.value, ast.Name) and s3.value.id == t):
        return None
    if any(not _pure(e, {arr, t}) for e in (x, y[1])) or t == arr:
        return None
    loc = s1

    def sub(i):
        return ast.Subscript(ast.Name(arr, ast.Load()), copy.deepcopy(i), ast.Store())

    def load(i):
        return ast.Subscript(ast.Name(arr, ast.Load()), copy.deepcopy(i), ast.Load())
    swap = ast.Assign([ast.Tuple([sub(x), sub(y[1])], ast.Store())],
                      ast.Tuple([load(y[1]), load(x)], ast.Load()))
    out = [swap]
    inside = {id(n) for s in three for n in ast.walk(s)}
    if any(isinstance(n, ast.Name) and n.id == t and id(n) not in inside
           for n in ast.walk(tree)):
        out.append(ast.Assign([ast.Name(t, ast.Store())], load(y[1])))
    for s in out:
        for n in ast.walk(s):
            ast.copy_location(n, loc)
    return out


def _assigns_name(s) -> bool:
    return isinstance(s, ast.Assign) and len(s.targets) == 1 and \
        isinstance(s.targets[0], ast.Name)


def _assigns_element(s, arr, index) -> bool:
    """Whether s is `arr[index] = ...` (any index where `index` is None)."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
        return False
    got = _element(s.targets[0])
    return got is not None and got[0] == arr and (index is None or _same(got[1], index))


def _element(e):
    """(array name, index) of `a[index]` without a slice, or None."""
    if not (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name)) or \
            any(isinstance(n, ast.Slice) for n in ast.walk(e.slice)):
        return None
    return e.value.id, e.slice


def _same(a, b) -> bool:
    return ast.dump(a, annotate_fields=False) == ast.dump(b, annotate_fields=False)


def _pure(e, avoid) -> bool:
    return all(isinstance(n, _PURE) for n in ast.walk(e)) and \
        not any(isinstance(n, ast.Name) and n.id in avoid for n in ast.walk(e))
