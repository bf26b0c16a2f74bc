"""Reads of the updated array that stay the same over an update's inner
loops (the sieve's `if is_p[i]:` around `for j in range(i * i, n + 1, i):
is_p[j] = False`).

An update's value reads at every iteration of its loops; a read Python
makes outside some of them (read_loops, a strict prefix of the write's
loops) is accepted by deps.check_reads only where no iteration of the
deeper loops writes the element it reads (deps.own_write_reached). Its
value is then the same at every iteration of the deeper loops: such a
read, wrapped in the `loop_invariant` intrinsic (ir/loop_invariant.py),
tells the lowering that a test of it may move out of those loops
(lowering/hoist_invariant_if.py), which the lowering could not prove
(the loops store to the array it reads).

Marked only where it is certain: the read is recorded in this nest, the
write's definition is the only write of the array in the nest, and the
read's index uses its innermost loop's variable (so no test of it moves
out of that loop or the ones around it, where the element may change)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.loop_invariant import loop_invariant

from . import deps


def mark(node, func, read_sites, nest_writes, nest_id, target):
    """node with each read of Func `func` that is invariant over the deeper
    loops of the write `target` (see the module doc) wrapped in
    loop_invariant; node itself where there is none."""
    own = getattr(target, "site", None)
    fn = func.function()
    ids = set()
    for c in ir.find_calls([node]):
        if c.call_type == ir.FUNC and c.func is fn and \
                _invariant(c, read_sites, nest_writes, nest_id, own):
            ids.add(id(c))
    if not ids:
        return node
    return ir.FuncMutator(lambda n: loop_invariant(n) if id(n) in ids else None).mutate(node)


def _invariant(c, read_sites, nest_writes, nest_id, own) -> bool:
    entry = read_sites.get(id(c))
    if own is None or entry is None or entry[0] is not c:
        return False
    arr, _func, loops, _pos, idx, nest, _loc = entry[1]
    if nest != nest_id or idx is None or not loops:
        return False
    writes = [w for w in nest_writes if w.arr is arr]
    if not writes or any(w.site != own for w in writes):
        return False
    inner = loops[-1].sym
    if not any(inner in ir.free_vars(deps.unchecked(e)) for e in idx):
        return False
    syms = [l.sym for l in loops]
    return all(len(w.chain) > len(loops) and [l.sym for l in w.chain[:len(loops)]] == syms and
               not deps.own_write_reached(idx, loops, w) for w in writes)
