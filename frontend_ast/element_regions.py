"""Element writes into an array that the same loop nest also assigns
through a slice, as one-element slice assignments (a rewrite of
rewrites.py, order 24):

    for i in range(n):                  for i in range(n):
        a[i, 0] *= 2                        if not 0 < a.shape[1]:
        a[i, 1:] = a[i, 0]                      raise IndexError(...)
                                            a[i, 0:1] = a[i, 0] * 2
                                            a[i, 1:] = a[i, 0]

A loop nest that stores into an array through a slice compiles only if
every store into that array in the nest is a slice store (one update in
phases, array_store_loops.py); an element write there is otherwise a
located error. Taken where every store into the array in the nest indexes
it with a loop variable of the nest. `a[..., c, ...]` with c a literal int >= 0 names the same
element as the one-element region `a[..., c:c + 1, ...]` where c is inside
the axis, and the statement before raises IndexError where it is not (the
slice would be empty); `a[e] op= v` becomes `a[slice] = a[e] op v` (what
an element's augmented assignment stores, converted as setitem converts).
Only the last literal index of a write becomes a
slice; writes without one are left as they are.
"""
from __future__ import annotations

import ast
import copy

from .rewrite_registry import register


@register(24)
def element_regions(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """Rewrite the element writes of arrays sliced in the same loop nest."""
    for nest in _nests(tree.body):
        loops = {n.target.id for n in ast.walk(nest)
                 if isinstance(n, ast.For) and isinstance(n.target, ast.Name)}
        targets = list(_targets(nest))
        sliced = {t.value.id for t in targets if _has_slice(t)}
        # only arrays whose every store in the nest indexes with a loop variable
        # (a row or element per iteration; an array updated whole per iteration,
        # `u[1:-1] = ...; u[0] = u[-2]`, is carried_arrays.py's)
        sliced -= {t.value.id for t in targets if not any(
            isinstance(n, ast.Name) and n.id in loops for i in _items(t) for n in ast.walk(i))}
        if sliced:
            _block_rewrite(nest, sliced)
    return tree


def _nests(stmts):
    """The outermost `for` loops in stmts (inside `if`s too)."""
    for s in stmts:
        if isinstance(s, ast.For):
            yield s
        elif isinstance(s, ast.If):
            yield from _nests(s.body + s.orelse)


def _targets(node):
    """The subscripts of names that assignments in node write."""
    for n in ast.walk(node):
        t = None
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            t = n.targets[0]
        elif isinstance(n, ast.AugAssign):
            t = n.target
        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            yield t


def _items(t):
    return list(t.slice.elts) if isinstance(t.slice, ast.Tuple) else [t.slice]


def _has_slice(t) -> bool:
    return any(isinstance(i, ast.Slice) for i in _items(t))


def _block_rewrite(node, sliced):
    """Rewrite the element writes of `sliced` arrays in the blocks of node."""
    for field in ("body", "orelse"):
        block = getattr(node, field, None)
        if not isinstance(block, list):
            continue
        out = []
        for s in block:
            out.extend(_rewritten(s, sliced))
            _block_rewrite(s, sliced)
        setattr(node, field, out)


def _rewritten(s, sliced) -> list:
    """[s], or [the range check, s with a one-element slice]."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1:
        t = s.targets[0]
    elif isinstance(s, ast.AugAssign):
        t = s.target
    else:
        return [s]
    if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and
            t.value.id in sliced and not _has_slice(t)):
        return [s]
    items = _items(t)
    axes = [k for k, i in enumerate(items) if isinstance(i, ast.Constant) and
            type(i.value) is int and i.value >= 0]
    if not axes:
        return [s]
    k = axes[-1]
    c = items[k].value
    if isinstance(s, ast.AugAssign):
        # `a[e] op= v` stores a[e] op v as an element store converts it (an
        # in-place ufunc on a slice would refuse a cast NumPy's setitem makes)
        read = ast.Subscript(ast.Name(t.value.id, ast.Load()), copy.deepcopy(t.slice),
                             ast.Load())
        s = ast.copy_location(ast.Assign([t], ast.BinOp(read, s.op, s.value)), s)
        ast.fix_missing_locations(s)
    items[k] = ast.Slice(ast.Constant(c), ast.Constant(c + 1), None)
    t.slice = ast.Tuple(items, ast.Load()) if len(items) > 1 else items[0]
    size = ast.Subscript(ast.Attribute(ast.Name(t.value.id, ast.Load()), "shape", ast.Load()),
                         ast.Constant(k), ast.Load())
    inside = ast.Compare(ast.Constant(c), [ast.Lt()], [size])
    err = ast.Raise(ast.Call(ast.Name("IndexError", ast.Load()),
                             [ast.Constant(f"index {c} is out of bounds for axis {k}")], []),
                    None)
    check = ast.If(ast.UnaryOp(ast.Not(), inside), [err], [])
    for n in ast.walk(check):
        if isinstance(n, (ast.expr, ast.stmt)):
            ast.copy_location(n, s)
    for n in ast.walk(s):
        if isinstance(n, (ast.expr, ast.stmt)) and not hasattr(n, "lineno"):
            ast.copy_location(n, t)
    return [check, s]
