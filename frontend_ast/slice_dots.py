"""Dot products of row slices whose length is a loop variable (a rewrite of
rewrites.py, order 23, before loop_prologue.py): inside a loop,
`np.dot(X[r, :j], Y[q, :j])` (or `X[r, :j] @ Y[q, :j]`), with j the
variable of an enclosing `for j in range(...)` from 0 or more, becomes an
inner reduction computed just before the statement:

    for j in range(n):                      for j in range(n):
        d = A[j, j] - np.dot(L[j, :j],          dot1 = L.dtype.type(0) * L.dtype.type(0)
                             L[j, :j])          for k in range(min(j, L.shape[1])):
                                                    dot1 += L[j, k] * L[j, k]
                                                if not -L.shape[0] <= j < L.shape[0]:
                                                    raise IndexError(...)
                                                d = A[j, j] - dot1

(slices whose bounds change from one iteration to the next do not compile;
the frontend's np.dot of two vectors is this sum in this order). The start
is the zero of the products' type (np.dot's result type); after the loop,
the IndexError of a slice at a row out of range (the loop read no element
of it when it is empty) and, where X and Y are different arrays whose
rows' lengths differ, np.dot's ValueError (the loop runs over the shorter
row). Taken only where the call is evaluated wherever its statement is
(not inside a conditional expression, `and`/`or`, a comprehension or a
lambda), r and q are built from names and int constants with `+ - *`, X
and Y are names subscripted by two items, np is NumPy, and the statement
is an assignment inside a loop: the products are then evaluated before the
statement's other parts.
"""
from __future__ import annotations

import ast
import copy

import numpy as np

from .rewrite_registry import register

LAZY = (ast.IfExp, ast.BoolOp, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
         ast.GeneratorExp)


@register(23)
def slice_dots(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """Rewrite the dot products of loop-length row slices (see the module doc)."""
    nps = {n for n, v in getattr(py_fn, "__globals__", {}).items() if v is np}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    # one variable for every product's loop (loop_prologue.py joins two
    # reductions over the same range only when their variables are one)
    names = {"used": used, "k": fresh_name(used, "k")}
    for loop in [n for n in ast.walk(tree) if isinstance(n, ast.For)]:
        _block(loop.body, _counters(tree, loop), nps, names)
    return tree


def _counters(tree, loop) -> set:
    """Names of the `for v in range(...)` loops enclosing `loop` (and its
    own) whose values are never negative: a literal start >= 0 or none, a
    positive literal step or none, the name not assigned in the loop."""
    out = set()
    for f in ast.walk(tree):
        if not (isinstance(f, ast.For) and any(n is loop for n in ast.walk(f))):
            continue
        it = f.iter
        if not (isinstance(f.target, ast.Name) and isinstance(it, ast.Call) and
                isinstance(it.func, ast.Name) and it.func.id == "range" and
                not it.keywords and 1 <= len(it.args) <= 3):
            continue
        if len(it.args) >= 2 and not _nonneg_int(it.args[0]):
            continue
        if len(it.args) == 3 and not (_nonneg_int(it.args[2]) and it.args[2].value > 0):
            continue
        if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and
               n.id == f.target.id for s in f.body for n in ast.walk(s)):
            continue
        out.add(f.target.id)
    return out


def _nonneg_int(e) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) is int and e.value >= 0


def _block(stmts, counters, nps, names):
    """Rewrite the statements of one block (in place), and the blocks of
    the `if`s in it (nested loops are blocks of their own)."""
    k = 0
    while k < len(stmts):
        s = stmts[k]
        if isinstance(s, ast.If):
            _block(s.body, counters, nps, names)
            _block(s.orelse, counters, nps, names)
        before = []
        if isinstance(s, (ast.Assign, ast.AugAssign)):
            before = _hoist(s, counters, nps, names)
        stmts[k:k] = before
        k += len(before) + 1


def _hoist(stmt, counters, nps, names) -> list:
    """The statements computing the dot products of stmt's value (replaced
    in it by their names)."""
    found = _Dots(counters, nps, names["used"])
    stmt.value = found.visit(stmt.value)
    out = []
    for name, ((x, r, e), (y, q, _)) in found.dots:
        # the zero of the products' type: np.dot's result type
        zero = ast.BinOp(dtype_zero(x), ast.Mult(), dtype_zero(y))
        out.append(ast.Assign([ast.Name(name, ast.Store())], zero))
        k = names["k"]
        term = ast.BinOp(_elem(x, r, k), ast.Mult(), _elem(y, q, k))
        both = _length(x, e) if x == y else _length(x, e, y)
        out.append(ast.For(ast.Name(k, ast.Store()),
                           ast.Call(ast.Name("range", ast.Load()), [both], []),
                           [ast.AugAssign(ast.Name(name, ast.Store()), ast.Add(), term)], [],
                           None))
        # what the slices and np.dot raise, where no element read raised first
        checked = {(x, ast.dump(r)): (x, r), (y, ast.dump(q)): (y, q)}
        for a, i in checked.values():
            size = shape_item(a, 0)
            inside = ast.Compare(ast.UnaryOp(ast.USub(), size), [ast.LtE(), ast.Lt()],
                                 [_ref(i), shape_item(a, 0)])
            out.append(raise_unless(inside, "IndexError", "index out of bounds for axis 0"))
        if x != y:
            same = ast.Compare(_length(x, e), [ast.Eq()], [_length(y, e)])
            out.append(raise_unless(same, "ValueError", "shapes not aligned"))
    for s in out:
        for n in ast.walk(s):
            if isinstance(n, (ast.expr, ast.stmt)):
                ast.copy_location(n, stmt)
    return out


class _Dots(ast.NodeTransformer):
    """Replaces the dot products to rewrite (outside lazy parts) by fresh
    names; `dots`: [(name, ((X, r, j), (Y, q, j)))]."""

    def __init__(self, counters, nps, used):
        self.counters, self.nps, self.used = counters, nps, used
        self.dots = []

    def generic_visit(self, node):
        if isinstance(node, LAZY):
            return node
        got = _dot_parts(node, self.counters, self.nps)
        if got is None:
            return super().generic_visit(node)
        name = fresh_name(self.used, "dot")
        self.dots.append((name, got[1:]))
        return ast.Name(name, ast.Load())


def _dot_parts(node, counters, nps):
    """(NumPy's name, (X, r, j), (Y, q, j)) of `np.dot(X[r, :j], Y[q, :j])`
    or `X[r, :j] @ Y[q, :j]` (names X, Y; r, q names or int constants; j a
    counter, the same in both); None otherwise."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "dot" and isinstance(node.func.value, ast.Name) and \
            node.func.value.id in nps and len(node.args) == 2 and not node.keywords:
        (a, b), np_name = node.args, node.func.value.id
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and nps:
        a, b, np_name = node.left, node.right, sorted(nps)[0]
    else:
        return None
    pa, pb = _row_slice(a, counters), _row_slice(b, counters)
    if pa is None or pb is None or pa[2] != pb[2]:
        return None
    return np_name, pa, pb


def _row_slice(e, counters):
    """(X, r, j) of `X[r, :j]`, or None."""
    if not (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and
            isinstance(e.slice, ast.Tuple) and len(e.slice.elts) == 2):
        return None
    r, s = e.slice.elts
    if not plain_index(r):
        return None
    if not (isinstance(s, ast.Slice) and s.lower is None and s.step is None and
            isinstance(s.upper, ast.Name) and s.upper.id in counters):
        return None
    return e.value.id, r, s.upper.id


def plain_index(e) -> bool:
    """Names and int constants with `+ - *` and negation: evaluated again
    at each product, with the value it had (the loop assigns none of them)."""
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.Constant):
        return type(e.value) is int
    if isinstance(e, ast.UnaryOp):
        return isinstance(e.op, ast.USub) and plain_index(e.operand)
    return isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult)) and \
        plain_index(e.left) and plain_index(e.right)


def _ref(e):
    return copy.deepcopy(e)


def _elem(x, r, k):
    return ast.Subscript(ast.Name(x, ast.Load()),
                         ast.Tuple([_ref(r), ast.Name(k, ast.Load())], ast.Load()), ast.Load())


def shape_item(x, axis):
    """`X.shape[axis]`."""
    return ast.Subscript(ast.Attribute(ast.Name(x, ast.Load()), "shape", ast.Load()),
                         ast.Constant(axis), ast.Load())


def _length(x, j, y=None):
    """`min(j, X.shape[1])`: the length of X[r, :j] for j >= 0 (with y, the
    shorter of X's and Y's)."""
    args = [ast.Name(j, ast.Load()), shape_item(x, 1)] + ([shape_item(y, 1)] if y else [])
    return ast.Call(ast.Name("min", ast.Load()), args, [])


def dtype_zero(x):
    """`X.dtype.type(0)`."""
    dtype = ast.Attribute(ast.Name(x, ast.Load()), "dtype", ast.Load())
    return ast.Call(ast.Attribute(dtype, "type", ast.Load()), [ast.Constant(0)], [])


def raise_unless(cond, exc: str, msg: str, orelse=()):
    """`if not cond: raise exc(msg)`, `else: orelse`."""
    err = ast.Raise(ast.Call(ast.Name(exc, ast.Load()), [ast.Constant(msg)], []), None)
    return ast.If(ast.UnaryOp(ast.Not(), cond), [err], list(orelse))


# the attribute marking the `if` of a slice rewrite's guard (known when the
# function is compiled: one branch is compiled, and either branch evaluates
# the statement's operands in Python's order)
REWRITE_MARK = "_pyhalide_slice_rewrite"


def mark_rewrite(node: ast.If) -> ast.If:
    """node, the `if` of a rewrite's guard, marked as such."""
    setattr(node, REWRITE_MARK, True)
    return node


def fresh_name(used: set, base: str) -> str:
    """base1, base2, ...: the first not in `used` (added to it)."""
    k = 1
    while f"{base}{k}" in used:
        k += 1
    used.add(f"{base}{k}")
    return f"{base}{k}"

