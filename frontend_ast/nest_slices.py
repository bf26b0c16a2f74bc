"""Which slice statements of a loop nest moving_slices.py also takes when no
slice bound moves, and the reads of the target array such a statement may
make (helpers of moving_slices.py).

Array code inside a loop cannot read an array the same nest writes, and a
slice store cannot share its array with element writes of the nest
(arraycode.py, array_store_loops.py). A statement whose slices stay put
but whose arrays meet either case (Gauss-Seidel's `A[i, 1:-1] += A[i - 1,
:-2] + ...` beside `A[i, j] += A[i, j - 1]`, Gram-Schmidt's
`A[:, j] -= Q[:, k] * R[k, j]` beside `Q[:, k] = A[:, k] / R[k, k]`) is
written as the same element loop as a moving slice's.

The element loop writes position t.start + k at step k; NumPy computes the
whole right side first. A read `T[f', r.start:...]` of the target T (slice
on the same axis) sees only values from before the statement where its
fixed items name another line than the target's, or where it has the
target's length and r.start >= t.start (each position read is written at
the same step or a later one). With syntactically equal fixed items the
start order must be visible in the source (literal starts); otherwise the
lines are compared at call time, after NumPy's own errors, and a read
that could see a new value raises NotImplementedError (a limit of the
compiled code, never a different value).

The guards of the statements taken here are tested once before the
top-level statement holding the nest (choose(): the rewritten nest, or the
nest as it was), not inside it."""
from __future__ import annotations

import ast
import copy
import types

from .slice_dots import raise_unless, shape_item


def nest_writes(top) -> tuple[set, set]:
    """(arrays stored into anywhere in top, arrays stored into through an
    element subscript with no slice item and no int literal >= 0 among its
    items in top: element_regions.py makes a write `a[i, 0]` a one-element
    slice store, which the nest's other slice stores of a compile with)."""
    written, elements = set(), set()
    for n in ast.walk(top):
        if isinstance(n, ast.Assign):
            targets = n.targets
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [n.target]
        else:
            continue
        for t in targets:
            for s in ast.walk(t):
                if isinstance(s, ast.Subscript) and isinstance(s.value, ast.Name) and \
                        isinstance(s.ctx, ast.Store):
                    written.add(s.value.id)
                    items = s.slice.elts if isinstance(s.slice, ast.Tuple) else [s.slice]
                    if not any(isinstance(x, ast.Slice) or (
                            isinstance(x, ast.Constant) and type(x.value) is int and
                            x.value >= 0) for x in items):
                        elements.add(s.value.id)
    return written, elements


def store_taken(cx, t, operands) -> bool:
    """Whether a slice store into Vec t reading Vecs `operands` is one
    array code cannot compile in its nest: t's array has element writes
    there, or an operand's array (not t's) is written there and a line the
    statement reads or writes moves in the nest (slices that stay put in
    every iteration are whole-array steps, which the loops carrying arrays
    compile: carried_arrays.py)."""
    return t.name in cx.nest_elements or any(
        v.name in cx.nest_written and v.name != t.name for v in operands) and \
        any(_line_moves(cx, v) for v in [t, *operands])


def dot_taken(cx, p, q) -> bool:
    """Whether a dot product of Vecs p and q reads an array the nest writes
    at a line that moves in the nest."""
    return (p.name in cx.nest_written or q.name in cx.nest_written) and \
        (_line_moves(cx, p) or _line_moves(cx, q))


def _line_moves(cx, v) -> bool:
    """Whether an index item of Vec v other than its slice reads a name the
    nest assigns (one not known before the top-level statement)."""
    return any(isinstance(n, ast.Name) and n.id not in cx.before
               for item in v.items or () if not isinstance(item, ast.Slice)
               for n in ast.walk(item))


def same_line(t, r) -> bool | None:
    """For a read r of the target t: whether r can be taken at all (one
    slice item, on t's axis), as None when not."""
    if r.items is None or len(r.items) != len(t.items):
        return None
    if [isinstance(i, ast.Slice) for i in r.items] != [isinstance(i, ast.Slice) for i in t.items]:
        return None
    return all(ast.dump(a) == ast.dump(b) for a, b in zip(r.items, t.items)
               if not isinstance(a, ast.Slice))


def visible_order(t, r) -> bool:
    """Whether r's slice visibly starts at or after t's: both lower bounds
    absent or int literals >= 0, r's the larger or equal."""
    def lower(v):
        it = next(i for i in v.items if isinstance(i, ast.Slice))
        if it.lower is None:
            return 0
        if isinstance(it.lower, ast.Constant) and type(it.lower.value) is int and \
                it.lower.value >= 0:
            return it.lower.value
        return None
    a, b = lower(t), lower(r)
    return a is not None and b is not None and b >= a


def clash_check(t, reads, same_length=()):
    """The call-time statement raising NotImplementedError where a read of
    the target (after the preludes: fixed values, starts and lengths set)
    could see a value the element loop wrote, or a vector of same_length is
    not as long as the target (one broadcast from length 1); None without
    such reads and vectors."""
    conds = [ast.Compare(copy.deepcopy(v.length), [ast.NotEq()], [copy.deepcopy(t.length)])
             for v in same_length]
    for r in reads:
        eq = []
        for ax, (a, b) in enumerate(zip(t.fixed, r.fixed)):
            if a is None or ast.dump(a) == ast.dump(b):
                continue
            eq.append(ast.Compare(_normal(a, t.name, ax), [ast.Eq()], [_normal(b, t.name, ax)]))
        ordered = ast.BoolOp(ast.And(), [
            ast.Compare(copy.deepcopy(r.length), [ast.Eq()], [copy.deepcopy(t.length)]),
            ast.Compare(copy.deepcopy(r.start), [ast.GtE()], [copy.deepcopy(t.start)])])
        clash = ast.UnaryOp(ast.Not(), ordered)
        conds.append(ast.BoolOp(ast.And(), eq + [clash]) if eq else clash)
    if not conds:
        return None
    ok = ast.UnaryOp(ast.Not(), conds[0] if len(conds) == 1 else ast.BoolOp(ast.Or(), conds))
    return raise_unless(ok, "NotImplementedError",
                        f"a slice assignment into {t.name!r} inside a loop whose right side "
                        f"reads elements its element loop writes earlier, or broadcasts a "
                        f"vector of length 1 (not compiled)")


def _normal(v, name, ax):
    """An index item's position in the axis (after NumPy's range check)."""
    v = copy.deepcopy(v)
    return ast.IfExp(ast.Compare(v, [ast.GtE()], [ast.Constant(0)]), copy.deepcopy(v),
                     ast.BinOp(copy.deepcopy(v), ast.Add(), shape_item(name, ax)))


def known_before(known: set, top) -> set:
    """The names of `known` that top does not assign (their values before
    top are theirs throughout it)."""
    stored = {n.id for n in ast.walk(top) if isinstance(n, ast.Name) and
              isinstance(n.ctx, (ast.Store, ast.Del))}
    return known - stored


def known_after(known: set, top) -> set:
    """known, with the names a top-level assignment `x = ...` binds (bound
    wherever the statements after it run)."""
    if isinstance(top, (ast.Assign, ast.AnnAssign)):
        targets = top.targets if isinstance(top, ast.Assign) else [top.target]
        return known | {n.id for t in targets for n in ast.walk(t)
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return known


def nest_guarded(cx, conds, body):
    """body (a list) for a statement taken for its nest, its guard's
    conditions (known when the function is compiled) added to the nest's
    (cx.guards, tested before the nest by choose()); None where a condition
    names something the nest assigns or that may be unbound before it."""
    conds = [c for c in conds if not _int_var_test(cx, c)]
    if any(isinstance(n, ast.Name) and n.id not in cx.before
           for c in conds for n in ast.walk(c)):
        return None
    cx.guards += conds
    return body


def copy_top(top):
    """A deep copy of a top-level statement for choose(); objects earlier
    rewrites attached to its nodes (names.VALUE_ATTR: the `(value,)` of a
    name bound to a default or an import, which may be a module deepcopy
    cannot copy) are shared, not copied: tuples and modules."""
    memo = {id(v): v for n in ast.walk(top) for v in vars(n).values()
            if isinstance(v, (tuple, types.ModuleType))}
    return copy.deepcopy(top, memo)


def choose(cx, top, orig):
    """top, or `if <the nest's guards>: top else: orig` (orig: top as it was)
    where statements were taken for their nest. The guards are tested before
    the nest, not in it: array code reading the nest's arrays inside it (the
    cast probe) is a read the nest's analysis cannot place, and the original
    statement in a branch of the nest made its checks run out of Python's
    order (an IndexError of a later iteration before a ValueError)."""
    if not cx.guards:
        return top
    test = cx.guards[0] if len(cx.guards) == 1 else ast.BoolOp(ast.And(), list(cx.guards))
    return ast.copy_location(ast.If(test, [top], [orig]), top)


def range_vars(tree) -> set:
    """Names assigned only as the variable of one `for v in range(...)`
    (always an int)."""
    stores = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
    return {f.target.id for f in ast.walk(tree)
            if isinstance(f, ast.For) and isinstance(f.target, ast.Name) and
            isinstance(f.iter, ast.Call) and isinstance(f.iter.func, ast.Name) and
            f.iter.func.id == "range" and stores.get(f.target.id) == 1}


def _int_var_test(cx, c) -> bool:
    """Whether c is `np.ndim(v) == 0` of a range loop's variable (true)."""
    return isinstance(c, ast.Compare) and isinstance(c.left, ast.Call) and \
        isinstance(c.left.func, ast.Attribute) and c.left.func.attr == "ndim" and \
        len(c.left.args) == 1 and isinstance(c.left.args[0], ast.Name) and \
        c.left.args[0].id in cx.range_vars
