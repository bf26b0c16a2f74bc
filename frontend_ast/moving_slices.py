"""Slices whose bounds change from one loop iteration to the next, as
element loops (a rewrite of rewrites.py, order 23.5: after slice_dots.py,
whose dot products of row slices loop_prologue.py joins). Inside a loop, a
slice's bounds may read the loop's variables (`L[i, :i]`, `A[i + 1:, i]`,
`C[i, :i + 1]`); array code takes only bounds known at call time, so two
statement forms with such slices become loops over the slice's elements:

- a dot product of two vectors, `np.dot(P, Q)` or `P @ Q`, each a slice
  with one range item (`X[r, a:b]`, `x[a:b]`) or a whole array name, in an
  assignment: the product is summed before the statement into a fresh
  name, in element order (the order the frontend's np.dot of two vectors
  sums in), starting from the zero of the products' type;
- an assignment into a slice with one range item, `T[r, a:b] = E` or
  `T[r, a:b] op= E`, where E is built from such slices, scalars and
  element reads with `+ - * / // %`, one comparison, unary `-`/`+` and the element-wise
  NumPy functions of _UFUNCS: one element assignment per position, E's
  scalar parts computed once before the loop.

    for i in range(n):                      for i in range(n):
        x[i] = b[i] - L[i, :i] @ x[:i]          if L.ndim == 2 and x.ndim == 1:
                                                    n1 = min(i, L.shape[1])
                                                    n2 = min(i, x.shape[0])
                                                    if not -L.shape[0] <= i < L.shape[0]:
                                                        raise IndexError(...)
                                                    if n1 != n2:
                                                        raise ValueError(...)
                                                    dot1 = L.dtype.type(0) * x.dtype.type(0)
                                                    for k1 in range(n1):
                                                        dot1 += L[i, k1] * x[k1]
                                                    x[i] = b[i] - dot1
                                                else:
                                                    x[i] = b[i] - L[i, :i] @ x[:i]

Statements whose slices do not move are taken the same way where array
code cannot compile them in their nest (nest_slices.py: seidel_2d's
`A[i, 1:-1] += ...` beside element writes of A, gramschmidt's column
dots and updates of arrays the loop writes).

Python's slice rules hold for any int bounds: a negative bound counts from
the end, a bound past either end is clamped, an empty slice reads nothing.
What NumPy raises is raised first, in its order: an index item out of range
(IndexError, also for an empty slice), operands that do not broadcast, a
value that does not fit the target (ValueError). The rewritten statement
runs only where its guard, known when the function is compiled, holds: the
arrays have one dimension per index item (a slice with one range item is a
vector), a name read as a scalar is one (np.ndim), and for `op=` the
operation's NumPy result type casts to the target's by NumPy's same_kind
rule (what `op=` requires; the element's store then converts as the ufunc's
output does). Elsewhere the statement is
left as it was (and refused as before).

The element loop reads and writes in order, where NumPy evaluates the right
side before writing: an assignment is rewritten only when its right side
reads the target array at no element but the one being written (the same
subscript), and every array it names is an argument never rebound in the
function (arguments written by the function never share memory with
another: arg_writes.py) or a local array made fresh (np.zeros, ...,
.copy()). A dot product in a statement is computed before the statement's
other parts (as slice_dots.py does): where one of them raises and the product
raises too, the product's error is the one raised.

A vector may be reversed, `np.flip(V)` or `V[::-1]` (read at position
length - 1 - k). A right side may read its target reversed (`y[:k] += a *
np.flip(y[:k])`): such a statement loops over position pairs, reading both
old values before writing either. Inside `for v in range(N)` N is positive
(moving_names.py), so a bound N needs no negative-bound rule. A second pass
also rewrites slice assignments without moving slices into the arrays the
first pass's element loops write (the loop frontend refuses an array
written both ways in one nest).
"""
from __future__ import annotations

import ast
import copy

import numpy as np

from . import nest_slices
from .moving_names import array_locals, counters, positive_stops, stable_arrays, stored
from .rewrite_registry import register
from .slice_dots import (
    LAZY,
    dtype_zero,
    fresh_name,
    mark_rewrite,
    plain_index,
    raise_unless,
    shape_item,
)

_ELEMENT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)
_COMPARE = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)
# NumPy functions whose value at one element is the function of the element
_UFUNCS = frozenset("sqrt exp log abs absolute sin cos tan tanh minimum maximum "
                    "negative".split())


@register(23.5)
def moving_slices(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """Rewrite the statements with moving slices (see the module doc)."""
    nps = {n for n, v in getattr(py_fn, "__globals__", {}).items() if v is np}
    cx = SliceContext(tree, nps)
    args = tree.args
    known = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | nps
    body = []
    for top in tree.body:
        cx.moving = stored(top)
        cx.nest_written, cx.nest_elements = nest_slices.nest_writes(top)
        cx.before, cx.guards = nest_slices.known_before(known, top), []
        orig = nest_slices.copy_top(top)
        parents = {id(c): n for n in ast.walk(top) for c in ast.iter_child_nodes(n)}
        loops = [n for n in ast.walk(top) if isinstance(n, (ast.For, ast.While))]
        cx.written, cx.also = set(), set()
        for again in (False, True):
            # (again: slice assignments without moving slices into arrays an element
            # loop of the first pass writes, so that no array of the nest is written
            # both by element stores and by a slice assignment)
            if again and not cx.written:
                break
            cx.also = cx.written if again else set()
            for loop in loops:
                cx.positive = positive_stops(loop, parents, cx.moving)
                cx.block(loop.body)
                if isinstance(loop, ast.For):
                    # (a for's else runs also where the loop ran no iteration)
                    cx.positive = positive_stops(loop, parents, cx.moving, False)
                    cx.block(loop.orelse)
        body.append(nest_slices.choose(cx, top, orig))
        known = nest_slices.known_after(known, top)
    tree.body[:] = body
    return tree


class Vec:
    """A vector operand: array `name` indexed by `items` (ast nodes; one is
    an ast.Slice with no step), or a whole 1-D array (items None)."""

    def __init__(self, node, name, items):
        self.node, self.name, self.items = node, name, items
        self.start = self.length = None      # names or expressions, set by prelude
        self.rev = False                     # np.flip(...) / [::-1] of the vector
        self.axis = None                     # the slice's axis
        self.fixed = []                      # the index items' values, in order
        self.starts, self.lengths = [], []   # per slice item (a matrix has two)
        self.inline = []                     # per item: the node _elem writes (see prelude)

    def reverse_as(self, node):
        """This vector read reversed, as written by `node` (np.flip(...) / [::-1])."""
        self.node, self.rev = node, True


class _MatVec:
    """A product of a vector `vec` and a matrix `mat` (a Vec with two
    slice items), `vec @ mat` (vec_first) or `mat @ vec`: a vector whose
    element k sums the products along the matrix's other axis."""

    def __init__(self, node, vec, mat, vec_first):
        self.node, self.vec, self.mat, self.vec_first = node, vec, mat, vec_first
        self.length = None                   # set by the prelude


class SliceContext:
    def __init__(self, tree, nps):
        self.nps = nps
        self.counters = counters(tree)
        self.stable = stable_arrays(tree)
        self.arrays = array_locals(tree) & self.stable
        self.used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
            {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
        self.moving = set()
        self.nest_written, self.nest_elements = set(), set()
        self.before, self.guards = set(), []   # nest_slices.nest_guarded
        self.range_vars = nest_slices.range_vars(tree)
        self.positive = set()    # names > 0 in the loop being rewritten (moving_names.positive_stops)
        self.written, self.also = set(), set()   # moving_slices(): the second pass

    def fresh(self, base: str) -> str:
        return fresh_name(self.used, base)

    # statements ---------------------------------------------------------------------
    def block(self, stmts):
        """Rewrite the statements of one block in place (and of its `if`s;
        nested loops are rewritten as loops of their own)."""
        out = []
        for s in stmts:
            if isinstance(s, ast.If) and getattr(s, "moving_done", False):
                pass
            elif isinstance(s, ast.If):
                self.block(s.body)
                self.block(s.orelse)
            elif isinstance(s, (ast.Assign, ast.AugAssign)):
                new = self.chained(s) or self.store(s) or self.dots(s) or s
                new = new if isinstance(new, list) else [new]
                for n in new:
                    if n is not s:
                        n.moving_done = True
                for n in (n for st in new for n in ast.walk(st)):
                    if isinstance(n, (ast.expr, ast.stmt)) and not hasattr(n, "lineno"):
                        ast.copy_location(n, s)
                out += new
                continue
            out.append(s)
        stmts[:] = out

    def chained(self, s):
        """`T1[...] = T2[...] = E` as `T1[...] = E` then `T2[...] = E` (E
        evaluated again: the same value where E and the targets' index items
        read no target array, and each assignment casts E as NumPy does),
        each rewritten by store(); None unless all are."""
        if not (isinstance(s, ast.Assign) and len(s.targets) > 1 and
                all(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                    for t in s.targets)):
            return None
        arrays = {t.value.id for t in s.targets}
        read = [n.id for e in [s.value] + [t.slice for t in s.targets] for n in ast.walk(e)
                if isinstance(n, ast.Name)]
        if arrays & set(read):
            return None
        parts = [ast.Assign([copy.deepcopy(t)], copy.deepcopy(s.value)) for t in s.targets]
        kept = len(self.guards), set(self.written)
        new = [self.store(p) for p in parts]
        if None in new:
            # (the parts taken add no guard of the nest and no written array)
            del self.guards[kept[0]:]
            self.written.intersection_update(kept[1])
            return None
        return [x for n in new for x in (n if isinstance(n, list) else [n])]

    def _moves(self, e) -> bool:
        return e is not None and any(isinstance(n, ast.Name) and n.id in self.moving
                                     for n in ast.walk(e))

    def _vec(self, e):
        """The Vec of e, or None. `np.flip(V)` and `V[::-1]` of a vector V
        are V reversed (rev)."""
        inner = _flipped(self, e)
        if inner is not None:
            v = self._vec(inner)
            if v is None or v.rev:
                return None
            v.reverse_as(e)
            return v
        if isinstance(e, ast.Name):
            return Vec(e, e.id, None)
        if not (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name)):
            return None
        items = list(e.slice.elts) if isinstance(e.slice, ast.Tuple) else [e.slice]
        slices = [it for it in items if isinstance(it, ast.Slice)]
        if len(slices) != 1 or slices[0].step is not None:
            return None
        if not all(isinstance(it, ast.Slice) or plain_index(it) for it in items):
            return None
        return Vec(e, e.value.id, items)

    def _vec_moves(self, v) -> bool:
        return v.items is not None and any(
            isinstance(it, ast.Slice) and (self._moves(it.lower) or self._moves(it.upper))
            for it in v.items)

    def _mat(self, e):
        """The Vec of a matrix slice `M[a:b, c:d]` (two slice items, no
        step), or None."""
        if not (isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and
                isinstance(e.slice, ast.Tuple) and len(e.slice.elts) == 2 and
                all(isinstance(it, ast.Slice) and it.step is None for it in e.slice.elts)):
            return None
        return Vec(e, e.value.id, list(e.slice.elts))

    def _matvec(self, e):
        """The _MatVec of `v @ M` / `M @ v` / `np.dot(...)` of them, or None."""
        pq = product_operands(self, e)
        if pq is None:
            return None
        a, b = pq
        p, m = self._vec(a), self._mat(b)
        if p is not None and m is not None:
            return _MatVec(e, p, m, True)
        m, p = self._mat(a), self._vec(b)
        if p is not None and m is not None:
            return _MatVec(e, p, m, False)
        return None

    def _matvec_prelude(self, mv, out):
        """The operands' preludes in order, then NumPy's ValueError where the
        core dimensions differ; sets mv.length."""
        p, m = mv.vec, mv.mat
        for v in ((p, m) if mv.vec_first else (m, p)):
            self.prelude(v, out)
        inner = m.lengths[0] if mv.vec_first else m.lengths[1]
        out.append(raise_unless(_cmp(_copy(p.length), ast.Eq(), _copy(inner)), "ValueError",
                                "matmul: a mismatch in its core dimension"))
        mv.length = m.lengths[1] if mv.vec_first else m.lengths[0]

    def _matvec_element(self, mv, k, pre):
        """Statements (appended to pre) summing mv's element at position k
        in element order into a fresh name; that name."""
        p, m = mv.vec, mv.mat
        acc, kk = self.fresh("acc"), self.fresh("k")
        zero = ast.BinOp(dtype_zero(p.name), ast.Mult(), dtype_zero(m.name))
        pre.append(ast.Assign([_name(acc, ast.Store())], zero))
        at = (_name(kk), k) if mv.vec_first else (k, _name(kk))
        # positions inside the slices (the checks before the loop); the min
        # (no change to them) bounds the reads for the compiled loops
        cell = ast.Subscript(_name(m.name), ast.Tuple(
            [_clamp(m.name, ax, i if _is_zero(st) else ast.BinOp(_copy(st), ast.Add(), i))
             for ax, (st, i) in enumerate(zip(m.starts, at))], ast.Load()), ast.Load())
        pk = self._elem(p, _name(kk))
        key = pk.slice.elts if isinstance(pk.slice, ast.Tuple) else [pk.slice]
        key[p.axis] = _clamp(p.name, p.axis, key[p.axis])
        if not isinstance(pk.slice, ast.Tuple):
            pk.slice = key[0]
        term = ast.BinOp(pk, ast.Mult(), cell) if mv.vec_first else \
            ast.BinOp(cell, ast.Mult(), pk)
        stop = _call("min", [self._trips(p), self._trips(m, 0 if mv.vec_first else 1)])
        pre.append(ast.For(_name(kk, ast.Store()), _call("range", [stop]),
                           [ast.AugAssign(_name(acc, ast.Store()), ast.Add(), term)], [], None))
        return _name(acc)

    def _ndim_guard(self, v):
        k = 1 if v.items is None else len(v.items)
        return _cmp(_attr(_name(v.name), "ndim"), ast.Eq(), ast.Constant(k))

    def _scalar_guards(self, vecs, names=()) -> list | None:
        """`np.ndim(n) == 0` for the names of vecs' index items and of
        `names` (loop counters are ints); None where NumPy is not imported."""
        found = {}
        for v in vecs:
            for it in v.items or ():
                if not isinstance(it, ast.Slice):
                    found.update((n.id, n) for n in ast.walk(it) if isinstance(n, ast.Name))
        found.update((n.id, n) for n in names)
        found = [n for k, n in found.items() if k not in self.counters]
        if found and not self.nps:
            return None
        return [_cmp(_call_np(self, "ndim", [_name(n.id)]), ast.Eq(), ast.Constant(0))
                for n in found]

    def prelude(self, v, out):
        """Statements evaluating v's index items once, in order, then NumPy's
        IndexError of an item out of range; sets v.start, v.length, v.fixed."""
        if v.items is None:
            v.start, v.length, v.axis = ast.Constant(0), shape_item(v.name, 0), 0
            return
        vals = []
        for it in v.items:
            if isinstance(it, ast.Slice):
                vals.append((self._once(it.lower, out), self._once(it.upper, out)))
            else:
                vals.append(self._once(it, out))
        for ax, (it, val) in enumerate(zip(v.items, vals)):
            if isinstance(it, ast.Slice):
                continue
            n = shape_item(v.name, ax)
            inside = ast.Compare(ast.UnaryOp(ast.USub(), n), [ast.LtE(), ast.Lt()],
                                 [_copy(val), shape_item(v.name, ax)])
            out.append(raise_unless(inside, "IndexError",
                                     f"index out of bounds for axis {ax}"))
        for ax, (it, val) in enumerate(zip(v.items, vals)):
            if not isinstance(it, ast.Slice):
                v.fixed.append(val)
                # the item itself (plain_index: names no element loop assigns)
                v.inline.append(_copy(it))
                continue
            v.fixed.append(None)
            # a literal start c >= 0 is min(c, n), which is c wherever the slice
            # has an element (the element loops run only there)
            v.inline.append(ast.Constant(0) if it.lower is None else
                            _copy(it.lower) if _nonneg_literal(it.lower) else None)
            v.axis = ax
            lo, up = val
            n = shape_item(v.name, ax)
            start = ast.Constant(0) if lo is None else self._bound(lo, it.lower, n)
            stop = shape_item(v.name, ax) if up is None else \
                self._bound(up, it.upper, shape_item(v.name, ax))
            if lo is None:
                length = stop
            else:
                length = _call("max", [ast.BinOp(stop, ast.Sub(), _copy(start)),
                                       ast.Constant(0)])
            v.start = self._once(start, out)
            v.length = self._once(length, out)
            v.starts.append(v.start)
            v.lengths.append(v.length)

    def _bound(self, val, src, n):
        """A slice bound's position in an axis of length n (Python's rules)."""
        if self._nonneg(src):
            return _call("min", [_copy(val), n])
        neg = _call("max", [ast.BinOp(_copy(val), ast.Add(), _copy(n)), ast.Constant(0)])
        return ast.IfExp(_cmp(_copy(val), ast.GtE(), ast.Constant(0)),
                         _call("min", [_copy(val), n]), neg)

    def _nonneg(self, e) -> bool:
        if isinstance(e, ast.Name):
            return e.id in self.counters or e.id in self.positive
        if isinstance(e, ast.Constant):
            return type(e.value) is int and e.value >= 0
        return isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Mult)) and \
            self._nonneg(e.left) and self._nonneg(e.right)

    def _once(self, e, out):
        """e itself if it is a name or a constant, else a fresh name assigned e."""
        if e is None or isinstance(e, (ast.Name, ast.Constant)):
            return e
        t = self.fresh("s")
        out.append(ast.Assign([_name(t, ast.Store())], e))
        return _name(t)

    def _trips(self, v, axis=None):
        """v's length (along a matrix's `axis`) as a loop's stop:
        `min(length, X.shape[axis])` (the same value) unless the length is
        visibly at most the axis, so that the loop's extent is bounded by
        the array's size."""
        length = v.length if axis is None else v.lengths[axis]
        n = shape_item(v.name, v.axis if axis is None else axis)
        if ast.dump(length) == ast.dump(n) or (
                isinstance(length, ast.Call) and isinstance(length.func, ast.Name) and
                length.func.id == "min" and
                any(ast.dump(a) == ast.dump(n) for a in length.args)):
            return _copy(length)
        return _call("min", [_copy(length), n])

    def _both(self, p, q):
        """The loop's stop for a product of p and q: the shorter length
        (the same as either where the lengths are equal, which the check
        before the loop asks; no element outside either slice is read)."""
        if ast.dump(p.length) == ast.dump(q.length):
            return self._trips(p)
        return _call("min", [self._trips(p), self._trips(q)])

    def _elem(self, v, k):
        """v's element at position k of the slice (k an expression)."""
        if v.rev:
            # position length - 1 - k of the slice, as max(..., 0): the same
            # position (k is below the length wherever the loop runs), which keeps
            # the bounds the compiled loop reads inside the array (without it,
            # `y[:k] += np.flip(r[:k])` gave an IndexError of r read from -(n-2))
            k = _call("max", [ast.BinOp(ast.BinOp(_copy(v.length), ast.Sub(), ast.Constant(1)),
                                        ast.Sub(), k), ast.Constant(0)])
        if v.items is None:
            return ast.Subscript(_name(v.name), k, ast.Load())
        start = next((x for f, x in zip(v.fixed, v.inline) if f is None), None) or v.start
        at = k if _is_zero(start) else ast.BinOp(_copy(start), ast.Add(), k)
        if v.rev and not _is_zero(start):
            # (the same position, below the axis's length wherever the loop
            # runs: an empty slice at the axis's end, `r[k + 1:k - 1][::-1]`,
            # would otherwise be read at its start, past the end)
            at = _clamp(v.name, v.axis, at)
        idx = [at if f is None else _copy(x) for f, x in zip(v.fixed, v.inline)]
        key = idx[0] if len(idx) == 1 else ast.Tuple(idx, ast.Load())
        return ast.Subscript(_name(v.name), key, ast.Load())

    # dot products -------------------------------------------------------------------------
    def dots(self, s):
        """s with its dot products of moving slices computed before it, or None."""
        found = _Dots(self)
        value = found.visit(copy.deepcopy(s.value))
        if not found.dots:
            return None
        body, guards = [], []
        scalars = self._scalar_guards([v for _, p, q in found.dots for v in (p, q)])
        if scalars is None:
            return None
        for name, p, q in found.dots:
            guards += [self._ndim_guard(p), self._ndim_guard(q)]
            self.prelude(p, body)
            self.prelude(q, body)
            zero = ast.BinOp(dtype_zero(p.name), ast.Mult(), dtype_zero(q.name))
            body.append(ast.Assign([_name(name, ast.Store())], zero))
            k = self.fresh("k")
            term = ast.BinOp(self._elem(p, _name(k)), ast.Mult(), self._elem(q, _name(k)))
            loop = ast.For(_name(k, ast.Store()), _call("range", [self._both(p, q)]),
                           [ast.AugAssign(_name(name, ast.Store()), ast.Add(), term)], [], None)
            # the loop (its reads and their checks) only where the lengths agree
            same = ast.Compare(_copy(p.length), [ast.Eq()], [_copy(q.length)])
            body.append(raise_unless(same, "ValueError", "shapes not aligned", [loop]))
        new = copy.deepcopy(s)
        new.value = value
        body.append(new)
        if not any(self._vec_moves(v) for _, p, q in found.dots for v in (p, q)):
            return nest_slices.nest_guarded(self, guards + scalars, body)
        return mark_rewrite(ast.If(_and(guards + scalars), body, [s]))

    # slice assignments --------------------------------------------------------------------
    def store(self, s):
        """The element loop of a slice assignment with moving slices (a
        statement; the statements, a list, for one taken for its nest), or None."""
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                return None
            target, op = s.targets[0], None
        else:
            target, op = s.target, s.op
            if not isinstance(op, _ELEMENT_OPS):
                return None
        t = self._vec(target)
        if t is None or t.items is None or t.rev or t.name not in self.stable:
            return None
        parts = _Elementwise(self, target)
        if not parts.take(s.value):
            return None
        operands = parts.vecs + [v for mv in parts.mvs for v in (mv.vec, mv.mat)]
        # a statement taken for its nest only (nest_slices.py) reads every vector
        # at the target's position (other lengths: NotImplementedError); one
        # into an array the first pass's element loops write (self.also) is
        # rewritten as a moving one
        parts.plain = not (self._vec_moves(t) or any(self._vec_moves(v) for v in operands) or
                           t.name in self.also)
        if parts.plain and (parts.mvs or not nest_slices.store_taken(self, t, operands)):
            return None
        if any(same and not nest_slices.visible_order(t, r)
               for r, same in parts.target_reads):
            return None
        body = []
        scalars = self._scalar_guards([t] + operands, parts.names + [
            n for _, items in parts.elements for it in items for n in ast.walk(it)
            if isinstance(n, ast.Name)])
        if scalars is None:
            return None
        guards = [self._ndim_guard(t)] + [self._ndim_guard(v) for v in operands] + \
            [_cmp(_attr(_name(n), "ndim"), ast.Eq(), ast.Constant(len(items)))
             for n, items in parts.elements] + scalars
        if op is not None:
            if not self.nps:
                return None
            # the operation's NumPy result type is the target's
            probe = ast.BinOp(self._empty(t), copy.deepcopy(op),
                              parts.empty_value(self, s.value))
            cast_ok = _call_np(self, "can_cast", [
                _attr(probe, "dtype"), _attr(_name(t.name), "dtype"), ast.Constant("same_kind")])
            guards.append(cast_ok)
            self.prelude(t, body)
        scalars = {}          # id of a scalar part -> the name or constant holding it
        for e in parts.order:
            if isinstance(e, Vec):
                self.prelude(e, body)
            elif isinstance(e, _MatVec):
                self._matvec_prelude(e, body)
            else:
                scalars[id(e)] = self._once(e, body)
        fits = []             # the conditions of NumPy's broadcasting, all checked again
        vectors = parts.vecs + parts.mvs
        if len(vectors) > 1:
            m = self.fresh("m")
            body.append(ast.Assign([_name(m, ast.Store())], ast.Constant(1)))
            for v in vectors:
                body.append(ast.Assign([_name(m, ast.Store())], ast.IfExp(
                    _cmp(_name(m), ast.Eq(), ast.Constant(1)), _copy(v.length), _name(m))))
            for v in vectors:
                ok = ast.BoolOp(ast.Or(), [_cmp(_copy(v.length), ast.Eq(), _name(m)),
                                           _cmp(_copy(v.length), ast.Eq(), ast.Constant(1))])
                body.append(raise_unless(ok, "ValueError",
                                          "operands could not be broadcast together"))
                fits.append(copy.deepcopy(ok))
            size = _name(m)
        elif vectors:
            size = _copy(vectors[0].length)
        else:
            size = None
        if op is None:
            self.prelude(t, body)
        if size is not None:
            ok = ast.BoolOp(ast.Or(), [_cmp(_copy(size), ast.Eq(), _copy(t.length)),
                                       _cmp(_copy(size), ast.Eq(), ast.Constant(1))])
            fits.append(ok)
        clash = nest_slices.clash_check(t, [r for r, _ in parts.target_reads],
                                        parts.vecs if parts.plain else [])
        k = self.fresh("k")
        parts.size = t.length
        if parts.mirror:
            loop = self._pair_loop(s, t, op, parts, scalars, k)
        else:
            pre = []
            value = parts.element(self, s.value, _name(k), scalars, pre)
            dest = self._target_elem(t, _name(k))
            dest.ctx = ast.Store()
            inner = ast.Assign([dest], value) if op is None else \
                ast.AugAssign(dest, copy.deepcopy(op), value)
            loop = ast.For(_name(k, ast.Store()), _call("range", [self._trips(t)]),
                           pre + [inner], [], None)
        if loop is None:
            return None
        loop = loop if isinstance(loop, list) else [loop]
        # the loop (its reads and their checks) only where the lengths fit
        run = loop if clash is None else [clash] + loop
        if fits:
            run = [raise_unless(_and(fits), "ValueError", "could not broadcast input array", run)]
        body += run
        if parts.plain:
            body = nest_slices.nest_guarded(self, guards, body)
            if body is not None:
                self.written.add(t.name)
            return body
        self.written.add(t.name)
        return mark_rewrite(ast.If(_and(guards), body, [s]))

    def _pair_loop(self, s, t, op, parts, scalars, k):
        """The element loop of a statement reading its target reversed
        (`y[:k] += a * np.flip(y[:k])`): NumPy reads every element before
        writing, so each iteration reads the pair of positions k and
        n - 1 - k, then writes both (the middle one twice, the same value)."""
        if parts.mvs or parts.target_reads:
            return None
        n, q, x, y = (self.fresh(b) for b in ("n", "q", "x", "y"))
        body = [ast.Assign([_name(q, ast.Store())], ast.BinOp(
                    ast.BinOp(_name(n), ast.Sub(), ast.Constant(1)), ast.Sub(), _name(k))),
                ast.Assign([_name(x, ast.Store())], self._target_elem(t, _name(k))),
                ast.Assign([_name(y, ast.Store())], self._target_elem(t, _name(q)))]
        for at, own in ((k, (x, y)), (q, (y, x))):
            value = parts.element(self, s.value, _name(at), scalars, body, own)
            if op is not None:
                value = ast.BinOp(_name(own[0]), copy.deepcopy(op), value)
            dest = self._target_elem(t, _name(at))
            dest.ctx = ast.Store()
            body.append(ast.Assign([dest], value))
        half = ast.BinOp(ast.BinOp(_name(n), ast.Add(), ast.Constant(1)), ast.FloorDiv(),
                         ast.Constant(2))
        return [ast.Assign([_name(n, ast.Store())], self._trips(t)),
                ast.For(_name(k, ast.Store()), _call("range", [half]), body, [], None)]

    def _target_elem(self, t, k):
        """The target's element at position k, its index along the slice's
        axis as `min(pos, X.shape[axis] - 1)`: the same position (the loop
        visits positions inside the slice), which keeps the bounds the
        compiled update writes inside the array (without it, an empty
        target `x[i + 1:i + 1]` gave an IndexError of a region up to 2n).
        A slice from 0 or from an int literal c >= 0 (written as c + k: see
        prelude) needs none: its positions are below c plus the trip count,
        whose bound is the axis's length minus c (c does not vary with the
        loops; seidel_2d's `A[i, 1:-1]` runs 1.4x slower clamped)."""
        e = self._elem(t, k)
        literal = next((x for f, x in zip(t.fixed, t.inline) if f is None), None)
        if (_is_zero(t.start) or literal is not None) and not t.rev:
            return e
        key = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        key[t.axis] = _clamp(t.name, t.axis, key[t.axis])
        if not isinstance(e.slice, ast.Tuple):
            e.slice = key[0]
        return e

    def _empty(self, v):
        """A NumPy scalar of v's dtype, `X.dtype.type(1)`: NumPy's result
        type of an operation on it is the one on v's slice (NumPy scalars
        and arrays promote alike; 1 divides without a warning). It reads no
        element, so the guard adds no read of X to the loop nest."""
        return ast.Call(_attr(_attr(_name(v.name), "dtype"), "type"), [ast.Constant(1)], [])


class _Dots(ast.NodeTransformer):
    """Replaces the dot products of moving slices (outside lazy parts) by
    fresh names; dots: [(name, P, Q)]."""

    def __init__(self, cx):
        self.cx = cx
        self.dots = []

    def generic_visit(self, node):
        if isinstance(node, LAZY):
            return node
        pq = self._operands(node)
        if pq is None:
            return super().generic_visit(node)
        p, q = (self.cx._vec(e) for e in pq)
        if p is None or q is None or not (self.cx._vec_moves(p) or self.cx._vec_moves(q) or
                                          nest_slices.dot_taken(self.cx, p, q)):
            return super().generic_visit(node)
        name = self.cx.fresh("dot")
        self.dots.append((name, p, q))
        return _name(name)

    def _operands(self, node):
        return product_operands(self.cx, node)


def product_operands(cx, node):
    """The two operands of `P @ Q` or `np.dot(P, Q)`, or None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return node.left, node.right
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "dot" and isinstance(node.func.value, ast.Name) and \
            node.func.value.id in cx.nps and len(node.args) == 2 and not node.keywords:
        return tuple(node.args)
    return None


class _Elementwise:
    """The parts of an element-wise right side: vector operands (vecs),
    names read as scalars (names), element reads (elements: (array, items)),
    and the maximal scalar subexpressions and vectors in evaluation order
    (order)."""

    def __init__(self, cx, target):
        self.cx, self.target = cx, target
        self.vecs, self.names, self.elements, self.order = [], [], [], []
        self.mvs = []            # at most one _MatVec (its sum is one inner loop)
        self.target_reads = []   # (Vec, same line) of the target's other slices read
        self.mirror = False      # the target is read reversed (store's pair loop)
        self._vec_of, self._mv_of = {}, {}
        self.size = None         # the target's length (set before element())
        self.plain = False       # vectors read at k itself (set by store())

    def take(self, e) -> bool:
        """Whether e has the supported form (recording its parts)."""
        if not self._has_vec(e):
            if not self._scalar(e):
                return False
            self.order.append(e)
            return True
        mv = self.cx._matvec(e)
        if mv is not None:
            if self.mvs or any(v.name not in self.cx.stable or v.name == self.target.value.id
                               for v in (mv.vec, mv.mat)):
                return False
            self.mvs.append(mv)
            self._mv_of[id(e)] = mv
            self.order.append(mv)
            return True
        if isinstance(e, (ast.Subscript, ast.Name)) or _flipped(self.cx, e) is not None:
            v = self.cx._vec(e)
            if v is None or v.name not in self.cx.stable or \
                    (v.items is None and not v.rev and v.name not in self.cx.arrays):
                return False
            if v.name == self.target.value.id:
                # the target itself, or reversed (a mirror: read before the writes),
                # or another slice of it on the target's axis (target_reads)
                read = _flipped(self.cx, e) if v.rev else e
                if ast.unparse(read) == ast.unparse(self.target):
                    self.mirror = self.mirror or v.rev
                else:
                    same = None if v.rev else \
                        nest_slices.same_line(self.cx._vec(self.target), v)
                    if same is None:
                        return False
                    self.target_reads.append((v, same))
            self.vecs.append(v)
            self._vec_of[id(e)] = v
            self.order.append(v)
            return True
        if isinstance(e, ast.BinOp):
            return isinstance(e.op, _ELEMENT_OPS) and self.take(e.left) and self.take(e.right)
        if isinstance(e, ast.UnaryOp):
            return isinstance(e.op, (ast.USub, ast.UAdd)) and self.take(e.operand)
        if isinstance(e, ast.Compare):
            return len(e.ops) == 1 and isinstance(e.ops[0], _COMPARE) and \
                self.take(e.left) and self.take(e.comparators[0])
        if isinstance(e, ast.Call) and self._ufunc(e):
            return all(self.take(a) for a in e.args)
        return False

    def _has_vec(self, e) -> bool:
        """Whether e holds a slice or a fresh local array's name (not
        subscripted: `x[i]` is an element)."""
        indexed = {id(n.value) for n in ast.walk(e) if isinstance(n, ast.Subscript)}
        return any(isinstance(n, ast.Slice) or _flipped(self.cx, n) is not None or
                   (isinstance(n, ast.Name) and n.id in self.cx.arrays and id(n) not in indexed)
                   for n in ast.walk(e))

    def _scalar(self, e) -> bool:
        """A scalar subexpression: constants, names (checked to be scalars),
        element reads of stable arrays other than the target, arithmetic."""
        if isinstance(e, ast.Constant):
            return isinstance(e.value, (int, float, complex))
        if isinstance(e, ast.Name):
            if e.id == self.target.value.id:
                return False
            self.names.append(e)
            return True
        if _shape_read(e):
            return True
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name):
            name = e.value.id
            if name not in self.cx.stable or name == self.target.value.id:
                return False
            items = list(e.slice.elts) if isinstance(e.slice, ast.Tuple) else [e.slice]
            if not all(plain_index(it) for it in items):
                return False
            self.elements.append((name, items))
            return True
        if isinstance(e, ast.BinOp):
            return isinstance(e.op, _ELEMENT_OPS) and self._scalar(e.left) and \
                self._scalar(e.right)
        if isinstance(e, ast.UnaryOp):
            return isinstance(e.op, (ast.USub, ast.UAdd)) and self._scalar(e.operand)
        if isinstance(e, ast.Compare):
            return len(e.ops) == 1 and isinstance(e.ops[0], _COMPARE) and \
                self._scalar(e.left) and self._scalar(e.comparators[0])
        return False

    def _ufunc(self, e) -> bool:
        f = e.func
        if e.keywords or not e.args:
            return False
        if isinstance(f, ast.Name) and f.id == "abs":
            return len(e.args) == 1
        return isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
            f.value.id in self.cx.nps and f.attr in _UFUNCS and \
            len(e.args) == (2 if f.attr in ("minimum", "maximum") else 1)

    def element(self, cx, e, k, scalars, pre, own=None):
        """e at position k (a Name): vectors read at k, scalar parts by the
        names or constants holding them (scalars: id -> node), a product of
        a vector and a matrix by the name its sum (appended to pre) holds;
        with own = (x, y), the target read as x and reversed as y (names)."""
        def at(v):
            if self.plain or ast.dump(v.length) == ast.dump(self.size):
                return _copy(k)
            # a vector of length 1 broadcasts: its element 0 at every k
            return _call("min", [_copy(k), ast.BinOp(_copy(v.length), ast.Sub(),
                                                     ast.Constant(1))])

        def leaf(x):
            if id(x) in scalars:
                return _copy(scalars[id(x)])
            mv = self._mv_of.get(id(x))
            if mv is not None:
                return cx._matvec_element(mv, at(mv), pre)
            v = self._vec_of.get(id(x))
            if v is not None and own is not None and v.name == self.target.value.id:
                return _name(own[1] if v.rev else own[0])
            return None if v is None else cx._elem(v, at(v))
        return _rebuilt(e, leaf)

    def empty_value(self, cx, e):
        """e with every vector and element read replaced by a NumPy scalar
        of its dtype (cx._empty; other scalar parts as they are): its type,
        known when the function is compiled, is e's."""
        def leaf(x):
            mv = self._mv_of.get(id(x))
            if mv is not None:
                # (matmul's result type is the product's)
                return ast.BinOp(cx._empty(mv.vec), ast.Mult(), cx._empty(mv.mat))
            v = self._vec_of.get(id(x))
            if v is not None:
                return cx._empty(v)
            return None if self._has_vec(x) else _ElementTypes(cx).visit(_copy(x))
        return _rebuilt(e, leaf)


class _ElementTypes(ast.NodeTransformer):
    """Element reads `X[i, j]` (of a scalar part) as `X.dtype.type(1)`."""

    def __init__(self, cx):
        self.cx = cx

    def visit_Subscript(self, node):
        if isinstance(node.value, ast.Name):
            return self.cx._empty(Vec(node, node.value.id, None))
        return self.generic_visit(node)


def _rebuilt(e, leaf):
    """A new tree of e's operators (the forms _Elementwise.take accepts)
    whose leaves are leaf(node); leaf returns None for an operator node."""
    got = leaf(e)
    if got is not None:
        return got
    if isinstance(e, ast.BinOp):
        return ast.BinOp(_rebuilt(e.left, leaf), copy.deepcopy(e.op), _rebuilt(e.right, leaf))
    if isinstance(e, ast.UnaryOp):
        return ast.UnaryOp(copy.deepcopy(e.op), _rebuilt(e.operand, leaf))
    if isinstance(e, ast.Compare):
        return ast.Compare(_rebuilt(e.left, leaf), copy.deepcopy(e.ops),
                           [_rebuilt(e.comparators[0], leaf)])
    assert isinstance(e, ast.Call)
    return ast.Call(copy.deepcopy(e.func), [_rebuilt(a, leaf) for a in e.args], [])


def _flipped(cx, e):
    """V of `np.flip(V)` (one argument) or `V[::-1]`, else None."""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
            e.func.attr == "flip" and isinstance(e.func.value, ast.Name) and \
            e.func.value.id in cx.nps and len(e.args) == 1 and not e.keywords:
        return e.args[0]
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice) and \
            e.slice.lower is None and e.slice.upper is None and \
            isinstance(e.slice.step, ast.UnaryOp) and isinstance(e.slice.step.op, ast.USub) and \
            isinstance(e.slice.step.operand, ast.Constant) and e.slice.step.operand.value == 1 \
            and type(e.slice.step.operand.value) is int:
        return e.value
    return None


def _shape_read(e) -> bool:
    """`X.shape[c]` (c an int literal) or `len(X)`: an int (or NumPy's
    error, raised where Python raises it)."""
    if isinstance(e, ast.Call):
        return isinstance(e.func, ast.Name) and e.func.id == "len" and len(e.args) == 1 and \
            not e.keywords and isinstance(e.args[0], ast.Name)
    return isinstance(e, ast.Subscript) and isinstance(e.value, ast.Attribute) and \
        e.value.attr == "shape" and isinstance(e.value.value, ast.Name) and \
        isinstance(e.slice, ast.Constant) and type(e.slice.value) is int


def _clamp(name, axis, e):
    """min(e, X.shape[axis] - 1)."""
    return _call("min", [e, ast.BinOp(shape_item(name, axis), ast.Sub(), ast.Constant(1))])


def _nonneg_literal(e) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) is int and e.value >= 0


def _is_zero(e) -> bool:
    return isinstance(e, ast.Constant) and e.value == 0


def _copy(e):
    return copy.deepcopy(e)


def _name(n, ctx=None):
    return ast.Name(n, ctx or ast.Load())


def _attr(e, a):
    return ast.Attribute(e, a, ast.Load())


def _call(f, args):
    return ast.Call(_name(f), args, [])


def _call_np(cx, f, args):
    return ast.Call(_attr(_name(sorted(cx.nps)[0]), f), args, [])


def _cmp(a, op, b):
    return ast.Compare(a, [op], [b])


def _and(conds):
    return conds[0] if len(conds) == 1 else ast.BoolOp(ast.And(), conds)


