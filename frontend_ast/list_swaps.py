"""Swaps of two rows by lists of indices (a rewrite of rewrites.py, order
11.5, after user functions are inlined): NumPy's vectorized LU swaps its
pivot row as

    a[[k, p]] = a[[p, k]]          ->     t1 = a[k, ...].copy()
    a[[k, p], :] = a[[p, k], :]           a[k, ...] = a[p, ...]
                                          a[p, ...] = t1

the row copies phase mode compiles (docs/lu27.md); list indices are
refused elsewhere. Python's result is the same: NumPy reads both rows
before writing, then writes row k, then row p (where k and p name the same
row, it keeps its value in both forms). Taken only where k and p are int
expressions (int constants, names bound only to int expressions or by
`for ... in range(...)`, `+ - * // %` of them, .shape[...], np.argmax/
np.argmin of one argument, np naming NumPy): a list of booleans would be a mask,
a list of arrays a gather. An index out of range raises IndexError in both
forms before any write (the rewritten form checks k first, NumPy p; both
are IndexError)."""
from __future__ import annotations

import ast
import copy

import numpy as np

from .rewrite_registry import register
from .slice_dots import fresh_name

_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)


@register(11.5)
def list_swaps(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """Rewrite the row swaps by lists of indices (see the module doc)."""
    nps = {n for n, v in getattr(py_fn, "__globals__", {}).items() if v is np}
    ints = _int_names(tree, nps)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    for node in list(ast.walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not (isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt)):
                continue
            out = []
            for s in stmts:
                rows = _swap(s, ints, nps)
                if rows is None:
                    out.append(s)
                    continue
                name, k, p = rows
                t = fresh_name(used, "t")
                new = [
                    ast.Assign([_name(t, ast.Store())], ast.Call(ast.Attribute(
                        _row(name, k), "copy", ast.Load()), [], [])),
                    ast.Assign([_row(name, k, ast.Store())], _row(name, p)),
                    ast.Assign([_row(name, p, ast.Store())], _name(t)),
                ]
                for st in new:
                    for n in ast.walk(st):
                        ast.copy_location(n, s)
                out += new
            stmts[:] = out
    return tree


def _swap(s, ints, nps):
    """(array name, k, p) of `X[[k, p]] = X[[p, k]]` (or with trailing `:`
    items on both sides), or None."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
        return None
    t, v = s.targets[0], s.value
    if not (isinstance(t, ast.Subscript) and isinstance(v, ast.Subscript) and
            isinstance(t.value, ast.Name) and isinstance(v.value, ast.Name) and
            t.value.id == v.value.id):
        return None
    a, b = _pair(t.slice), _pair(v.slice)
    if a is None or b is None or ast.dump(a[0]) != ast.dump(b[1]) or \
            ast.dump(a[1]) != ast.dump(b[0]):
        return None
    if not all(_is_int(e, ints, nps) for e in a):
        return None
    return t.value.id, a[0], a[1]


def _pair(index):
    """The two items of a list index `[k, p]` (first item of a tuple whose
    other items are `:`), or None."""
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    first = items[0]
    if not (isinstance(first, ast.List) and len(first.elts) == 2):
        return None
    if not all(isinstance(x, ast.Slice) and x.lower is None and x.upper is None and
               x.step is None for x in items[1:]):
        return None
    return first.elts


def _int_names(tree, nps) -> set:
    """Names bound only by `for ... in range(...)` and to int expressions
    (function arguments excluded)."""
    binds = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.For):
            it = n.iter
            ok = isinstance(n.target, ast.Name) and isinstance(it, ast.Call) and \
                isinstance(it.func, ast.Name) and it.func.id == "range"
            for x in ast.walk(n.target):
                if isinstance(x, ast.Name):
                    binds.setdefault(x.id, []).append(None if ok else False)
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                        binds.setdefault(x.id, []).append(
                            n.value if isinstance(t, ast.Name) else False)
        elif isinstance(n, ast.AugAssign):
            if isinstance(n.target, ast.Name):
                binds.setdefault(n.target.id, []).append(
                    n.value if isinstance(n.op, _INT_OPS) else False)
        elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            binds.setdefault(n.id, [])
        elif isinstance(n, ast.arg):
            binds.setdefault(n.arg, []).append(False)
    # other bindings (with, comprehensions, walrus, tuple targets) were
    # recorded as names without a value: those whose binding kinds are all
    # known are counted below
    known = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            known[n.id] = known.get(n.id, 0) + 1
    ints = {n for n, vs in binds.items() if vs and len(vs) == known.get(n, 0) and
            all(v is not False for v in vs)}
    while True:
        drop = {n for n in ints if not all(v is None or _is_int(v, ints, nps)
                                           for v in binds[n])}
        if not drop:
            return ints
        ints -= drop


def _is_int(e, ints, nps) -> bool:
    if isinstance(e, ast.Constant):
        return type(e.value) is int
    if isinstance(e, ast.Name):
        return e.id in ints
    if isinstance(e, ast.BinOp):
        return isinstance(e.op, _INT_OPS) and _is_int(e.left, ints, nps) and \
            _is_int(e.right, ints, nps)
    if isinstance(e, ast.UnaryOp):
        return isinstance(e.op, (ast.USub, ast.UAdd)) and _is_int(e.operand, ints, nps)
    if isinstance(e, ast.Subscript):
        return isinstance(e.value, ast.Attribute) and e.value.attr == "shape" and \
            _is_int(e.slice, ints, nps)
    if isinstance(e, ast.Call) and len(e.args) == 1 and not e.keywords:
        f = e.func
        return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
            f.value.id in nps and f.attr in ("argmax", "argmin")
    return False


def _row(name, k, ctx=None):
    key = ast.Tuple([copy.deepcopy(k), ast.Constant(Ellipsis)], ast.Load())
    return ast.Subscript(_name(name), key, ctx or ast.Load())


def _name(n, ctx=None):
    return ast.Name(n, ctx or ast.Load())
