"""The order of an inner loop whose write reaches a value read before it.

`for i: d = a[i, i]; for j in range(n): a[i, j] /= d` (row normalisation),
LU's `f = a[i, k] / a[k, k]; for j in range(k, n): a[i, j] -= f * a[k, j]`:
Python reads the element once, before the inner loop; the write's update
evaluates the read at every iteration of that loop, so from the iteration
after the one that writes the element (j* = i, resp. k) it would see the
written value. Where the inner loop's iterations commute (its only statement
is this write, and every other element of the array it reads is one no
iteration of the same inner loop writes), running j* last instead gives
every iteration the value Python read (the loop may also be one `if` around
the write): the update visits
`j = select(j* in range and v == stop - 1, j*, v + (j* in range and v >= j*))`
for v over the loop's range (a permutation of it)."""
from __future__ import annotations

import ast

from pyhalide import ir
from pyhalide.simplify import equal_after_simplify, simplify

from . import deps, region_disjoint


def plan(read_sites, nest_writes, nest_id, cell, rvar_loops, nodes):
    """(the inner loop, j* as an index node over the loops' symbols, ids of
    the hoisted read calls the order makes right), or None where the reads
    cannot be made right by the order (deps.check_reads then refuses)."""
    chain = list(cell.chain)
    if len(chain) < 2 or chain[-1] not in rvar_loops or chain[-1].step != 1:
        return None
    loop = chain[-1]
    if not _one_write(getattr(loop.node, "body", None)):
        return None
    if any(w is not cell and loop in getattr(w, "chain", ()) for w in nest_writes):
        return None
    if cell.arr.func is None or deps.reads_through(cell.arr.func, list(nodes)):
        return None                         # (a reduction of the array in the loop)
    axis = _loop_axis(cell.idx, loop.sym)
    if axis is None:
        return None
    sym, off = axis[1]
    func = cell.arr.func.function()
    hoisted, star = [], None
    for c in ir.find_calls(list(nodes)):
        if c.call_type != ir.FUNC or c.func is not func:
            continue
        if deps.same_args(tuple(deps.unchecked(e) for e in reversed(cell.idx)),
                          tuple(deps.unchecked(e) for e in c.args)):
            continue                        # the written element's own old value
        # (unchecked: a clamped index of an axis of extent 1 simplifies to 0,
        # the same as any constant read at 0 there)
        entry = read_sites.get(id(c))
        if entry is None or entry[0] is not c:
            return None
        arr, _, loops, _, idx, nest, _ = entry[1]
        if arr is not cell.arr or idx is None or loops is None or nest != nest_id:
            return None
        syms = [l.sym for l in loops]
        if syms == [l.sym for l in chain]:
            if not _never_written_by_other(cell, loop, idx):
                return None
            continue
        if syms != [l.sym for l in chain[:-1]]:
            # a read further out (LU's `if a[k, k] == 0.0: break`) that no
            # iteration of the write's loops inside it reaches: the same value
            # at every evaluation, in any order
            if len(syms) < len(chain) - 1 and syms == [l.sym for l in chain[:len(syms)]] \
                    and not deps.own_write_reached(idx, loops, cell):
                continue
            return None
        if not deps.own_write_reached(idx, loops, cell):
            continue
        js = simplify(ir.Sub(_index(deps.unchecked(idx[axis[0]])), ir.Const(ir.INDEX, off))) \
            if off else _index(deps.unchecked(idx[axis[0]]))
        if star is not None and not equal_after_simplify(star, js):
            return None
        star = js
        hoisted.append(id(c))
    if star is None:
        return None
    return loop, star, set(hoisted)


def permuted(v, start, stop, star):
    """The loop value visited at position v of [start, stop) (nodes over
    the definition's variables): j* last, the others in order."""
    end = ir.Sub(stop, ir.Const(stop.type, 1))
    inside = ir.And(ir.LE(start, star), ir.LT(star, stop))
    last = ir.And(inside, ir.EQ(v, end))
    # (the clamps hold where their branch is taken: they give bounds
    # inference the loop's range)
    shifted = ir.Select(ir.And(inside, ir.GE(v, star)), ir.Min(ir.Add(v, ir.Const(v.type, 1)), end),
                        v)
    return ir.Select(last, ir.Max(ir.Min(star, end), start), shifted)


def _one_write(body) -> bool:
    """Whether a loop body is one assignment, or one `if` (no `else`) around one."""
    if not body or len(body) != 1:
        return False
    st = body[0]
    if isinstance(st, ast.If) and not st.orelse:
        return _one_write(st.body)
    return isinstance(st, (ast.Assign, ast.AugAssign))


def _loop_axis(idx, sym):
    """(axis, (sym, offset)) of the one axis of a write index that is
    `sym + c`; None if sym is elsewhere in the index or in no axis alone."""
    found = None
    for k, e in enumerate(idx):
        d = deps.decompose(e)
        if d is not False and d[0] == sym:
            if found is not None:
                return None
            found = (k, d)
        elif sym in ir.free_vars(e):
            return None
    return found


def _never_written_by_other(cell, loop, idx) -> bool:
    """Whether the element read at `idx` (inside the inner loop, at its
    iteration j) is never one the same inner loop writes at another
    iteration j' (Z3 over the loops' ranges, j' < j and j' > j in turn)."""
    written = [deps.unchecked(e) for e in cell.idx]
    read = [deps.unchecked(e) for e in idx]
    if deps.same_args(tuple(written), tuple(read)):
        return True                 # its own element (the write is one-to-one in j)
    loops = [(l.var, getattr(l.start, "node", None), getattr(l.stop, "node", None), l.step)
             for l in cell.chain]
    if any(n is None for l in loops for n in l[1:3]):
        return False
    other = ir.Variable(loop.var.type, loop.sym + "'")
    written = [ir.substitute(e, {loop.sym: other}) for e in written]
    start, stop = loops[-1][1], loops[-1][2]
    after = ir.Add(loop.var, ir.Const(loop.var.type, 1))
    return all(region_disjoint.never_meets(written, read, loops + [(other, lo, hi, 1)])
               for lo, hi in ((start, _same_type(loop.var, start)),
                              (_same_type(after, stop), stop)))


def _same_type(e, like):
    return e if e.type == like.type else ir.Cast(like.type, e)


def _index(e):
    return e if e.type == ir.INDEX else ir.Cast(ir.INDEX, e)
