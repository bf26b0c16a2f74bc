"""Dot products of named slices whose bounds are array contents, and of
gathers through them (a rewrite of rewrites.py, order 23.4, before
moving_slices.py): CSR's sparse matrix-vector product

    for i in range(n):                      for i in range(n):
        cols = A_col[A_row[i]:A_row[i + 1]]     s1 = A_row[i]; s2 = A_row[i + 1]
        vals = A_val[A_row[i]:A_row[i + 1]]     s3, s4 = <start, length of A_col[s1:s2]>
        y[i] = vals @ x[cols]                   s5 = A_row[i]; s6 = A_row[i + 1]
                                                s7, s8 = <start, length of A_val[s5:s6]>
                                                dot1 = A_val.dtype.type(0) * x.dtype.type(0)
                                                for k1 in range(A_col.shape[0]):
                                                    if k1 >= s4:
                                                        break
                                                    dot1 += (A_val[s7 + k1] if s8 == s4 else
                                                             A_val.dtype.type(0)) * x[A_col[s3 + k1]]
                                                if not s8 == s4:
                                                    raise ValueError(...)
                                                y[i] = dot1

Taken inside loops, for consecutive statements of one block: assignments
`name = X[lo:hi]` (X a 1-D array never rebound, the bounds built from int
literals, loop counters and element reads of signed-int arrays with `+ -`,
one bound at least reading an array;
the name assigned nowhere else and read only by the product) followed by
an assignment whose whole value is `P @ Q` or `np.dot(P, Q)`, each operand
such a name or `x[name]` (x a 1-D array never rebound, the name's array of
signed ints), at most one a gather. The element loop's extent is the
array's length (a slice is never longer), left at the slice's length
(`break`: bounds that read array contents are not loop bounds); with a
gather it runs over the gather's indices whatever the other length (one
loop: a second loop in the row, even one never run, made the compiled
spmv 150x slower).

Python's order is kept: the slices' bounds evaluated in order (IndexError
of an element read out of range, Python's clamping of a bound past either
end or negative); the gathers' IndexError of an index out of range before
NumPy's ValueError of operands of different lengths; the sum in element
order from the zero of the products' type (the order the frontend's dot of
two vectors sums in). A slice is a view: its elements are read where the
product reads them, as NumPy reads the view's. Where the guard (known when
the function is compiled: dimensions, int dtypes; tested once before the
top-level statement holding the loop, nest_slices.choose) fails, the nest
is left as it was."""
from __future__ import annotations

import ast
import copy

import numpy as np

from . import nest_slices
from .moving_slices import SliceContext, Vec, product_operands
from .rewrite_registry import register
from .slice_dots import dtype_zero, plain_index, shape_item


@register(23.4)
def gather_dots(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """Rewrite the products of named slices (see the module doc)."""
    nps = {n for n, v in getattr(py_fn, "__globals__", {}).items() if v is np}
    if not nps:
        return tree
    cx = SliceContext(tree, nps)
    loads, stores = {}, {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            d = loads if isinstance(n.ctx, ast.Load) else stores
            d[n.id] = d.get(n.id, 0) + 1
    cx.loads, cx.stores = loads, stores
    args = tree.args
    known = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | nps
    body = []
    for top in tree.body:
        cx.before, cx.guards = nest_slices.known_before(known, top), []
        orig = nest_slices.copy_top(top)
        for loop in [n for n in ast.walk(top) if isinstance(n, (ast.For, ast.While))]:
            _block(cx, loop.body)
        body.append(nest_slices.choose(cx, top, orig))
        known = nest_slices.known_after(known, top)
    tree.body[:] = body
    return tree


def _block(cx, stmts):
    out, named = [], []              # named: the run of named slices just before
    for s in stmts:
        got = _named(cx, s)
        if got is not None:
            named.append((s, got))
            out.append(s)
            continue
        new = _product(cx, s, named) if named else None
        if new is not None:
            del out[len(out) - len(named):]
            _locate(new, s)
            out += new
        else:
            out.append(s)
        named = []
    stmts[:] = out


def _named(cx, s):
    """(name, Vec) of `name = X[lo:hi]` as the module doc takes it, or None."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], ast.Name)):
        return None
    name, v = s.targets[0].id, s.value
    if cx.stores.get(name) != 1 or cx.loads.get(name) != 1:
        return None
    if not (isinstance(v, ast.Subscript) and isinstance(v.value, ast.Name) and
            isinstance(v.slice, ast.Slice) and v.slice.step is None and
            v.value.id in cx.stable):
        return None
    if not all(b is None or _int_bound(cx, b) for b in (v.slice.lower, v.slice.upper)):
        return None
    return name, Vec(v, v.value.id, [v.slice])


def _int_bound(cx, e) -> bool:
    if isinstance(e, ast.Constant):
        return type(e.value) is int
    if isinstance(e, ast.Name):
        return e.id in cx.counters
    if isinstance(e, ast.BinOp):
        return isinstance(e.op, (ast.Add, ast.Sub)) and _int_bound(cx, e.left) and \
            _int_bound(cx, e.right)
    return isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and \
        e.value.id in cx.stable and plain_index(e.slice) and \
        all(isinstance(n, ast.Constant) or n.id in cx.counters
            for n in ast.walk(e.slice) if isinstance(n, (ast.Name, ast.Constant)))


def _product(cx, s, named):
    """The statements replacing the run of named slices and product s, or None."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1):
        return None
    pq = product_operands(cx, s.value)
    if pq is None:
        return None
    vecs = dict(got for _, got in named)
    ops = [_operand(cx, e, vecs) for e in pq]
    if None in ops or sorted(n for _, n, _ in ops) != sorted(vecs) or \
            all(x is not None for x, _, _ in ops):
        return None
    ints = {r.value.id for _, (_, v) in named for b in (v.items[0].lower, v.items[0].upper)
            if b is not None for r in ast.walk(b) if isinstance(r, ast.Subscript)}
    if not ints:
        return None          # bounds known at call time: array code (moving_slices.py)
    guard = [_eq(_attr(_nm(r), "ndim"), 1) for r in sorted(ints)]     # an element, an int
    ints |= {vecs[n].name for x, n, _ in ops if x is not None}
    guard += [_eq(_attr(_nm(v.name), "ndim"), 1) for v in vecs.values()]
    guard += [_eq(_attr(_nm(x), "ndim"), 1) for x, _, _ in ops if x is not None]
    guard += [_signed_int(cx, a) for a in sorted(ints)]
    body = []
    for _, (_, v) in named:
        cx.prelude(v, body)
    (xp, np_, _), (xq, nq, _) = ops
    vp, vq = vecs[np_], vecs[nq]
    dot = cx.fresh("dot")
    zero = ast.BinOp(dtype_zero(xp or vp.name), ast.Mult(), dtype_zero(xq or vq.name))
    body.append(ast.Assign([_nm(dot, ast.Store())], zero))
    k = cx.fresh("k")
    same = ast.Compare(_cp(vp.length), [ast.Eq()], [_cp(vq.length)])
    mismatch = ast.If(ast.UnaryOp(ast.Not(), same), [ast.Raise(ast.Call(
        _nm("ValueError"), [ast.Constant("matmul: Input operand 1 has a mismatch in its core "
                                         "dimension 0")], []), None)], [])
    if xp is None and xq is None:
        term = ast.BinOp(_elem(None, vp, k), ast.Mult(), _elem(None, vq, k))
        # the loop in the test's other branch: its reads are not checked before the test
        mismatch.orelse = [_upto(vp, k, [ast.AugAssign(_nm(dot, ast.Store()), ast.Add(), term)])]
        body.append(mismatch)
    else:
        # the loop runs over the gather's indices (each read raises NumPy's
        # IndexError); the other operand is read only where the lengths agree
        g = vp if xp is not None else vq
        p = _elem(xp, vp, k) if xp is not None else _either(vp, vq, k)
        q = _elem(xq, vq, k) if xq is not None else _either(vq, vp, k)
        term = ast.BinOp(p, ast.Mult(), q)
        body += [_upto(g, k, [ast.AugAssign(_nm(dot, ast.Store()), ast.Add(), term)]), mismatch]
    new = copy.deepcopy(s)
    new.value = _nm(dot)
    body.append(new)
    # the guard is tested before the nest (nest_slices.choose): the original
    # statements in a branch inside it made a later row's IndexError come
    # before an earlier row's ValueError
    return nest_slices.nest_guarded(cx, guard, body)


def _locate(stmts, s):
    """s's location on the new statements; NumPy's ValueError (the last
    statement with a raise) at s's end: the frontend orders a statement's
    checks by their positions, so the loop's IndexErrors (at s's start)
    come first, as in Python."""
    for st in stmts:
        for n in ast.walk(st):
            if isinstance(n, (ast.expr, ast.stmt)) and not hasattr(n, "lineno"):
                ast.copy_location(n, s)
    last = [st for st in stmts if isinstance(st, ast.If) and
            any(isinstance(n, ast.Raise) for n in ast.walk(st))]
    if last and s.end_lineno is not None:
        for n in ast.walk(last[-1]):
            if isinstance(n, (ast.expr, ast.stmt)):
                n.lineno = n.end_lineno = s.end_lineno
                n.col_offset = n.end_col_offset = max(s.end_col_offset - 1, 0)


def _operand(cx, e, vecs):
    """(gathered array or None, slice name, e) of a product's operand, or None."""
    if isinstance(e, ast.Name) and e.id in vecs:
        return None, e.id, e
    if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and \
            e.value.id in cx.stable and isinstance(e.slice, ast.Name) and e.slice.id in vecs:
        return e.value.id, e.slice.id, e
    return None


def _elem(x, v, k):
    """Element k of the slice v, or of x gathered through it."""
    at = ast.Subscript(_nm(v.name), ast.BinOp(_cp(v.start), ast.Add(), _nm(k)), ast.Load())
    return at if x is None else ast.Subscript(_nm(x), at, ast.Load())


def _upto(v, k, body):
    """`for k in range(len(X)): if k >= length: break; body` (v a slice of X)."""
    stop = ast.If(ast.Compare(_nm(k), [ast.GtE()], [_cp(v.length)]), [ast.Break()], [])
    return ast.For(_nm(k, ast.Store()), ast.Call(_nm("range"), [shape_item(v.name, 0)], []),
                   [stop] + body, [], None)


def _either(v, other, k):
    """v's element k where v is as long as `other`, else the zero of v's type."""
    same = ast.Compare(_cp(v.length), [ast.Eq()], [_cp(other.length)])
    return ast.IfExp(same, _elem(None, v, k), dtype_zero(v.name))


def _signed_int(cx, a):
    """Whether array a's dtype is a signed integer (safe to int64, not to uint64)."""
    np_ = _nm(sorted(cx.nps)[0])

    def cast(t):
        return ast.Call(_attr(np_, "can_cast"), [_attr(_nm(a), "dtype"), _attr(_cp(np_), t),
                                                 ast.Constant("safe")], [])
    return ast.BoolOp(ast.And(), [cast("int64"), ast.UnaryOp(ast.Not(), cast("uint64"))])


def _eq(a, k):
    return ast.Compare(a, [ast.Eq()], [ast.Constant(k)])


def _attr(e, a):
    return ast.Attribute(e, a, ast.Load())


def _nm(n, ctx=None):
    return ast.Name(n, ctx or ast.Load())


def _cp(e):
    return copy.deepcopy(e)
