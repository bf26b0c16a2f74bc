"""Assignments into slices, masks and index arrays inside loops
(`out[row, :] = ...` in `for row in range(n)`): one update of the array's
Func per assignment, over an RDom of the stored region (innermost) and of
every enclosing loop (outer, in Python's order), so the stores happen in
the order Python makes them. As for element writes in loops, an array
written here must not be written elsewhere in the same loop nest, and reads
of it in the nest that the update could not order are refused
(deps.check_reads)."""
from __future__ import annotations

from types import SimpleNamespace

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.expr import cast_node as cast

from . import ops


def reads_elsewhere(func, dest, at, nodes) -> bool:
    """Whether `nodes` read Func `func` at other elements than `at`, the
    element the destination `dest` writes (any element if dest is not
    injective): an update evaluating them would see its own earlier writes."""
    fn = func.function()
    return any(c.call_type == ir.FUNC and c.func is fn and not (
        dest.injective and all(ir.equal(x, y) for x, y in zip(reversed(c.args), at)))
        for c in ir.find_calls(nodes))


def define_in_loop(bld, dest, p, at, vnode, preds, node):
    """arr.func[at] = vnode where preds hold, for each point p of the region
    (placeholders) in each iteration of the active loops."""
    cx, defs, state = bld.cx, bld.defs, bld.state
    arr = dest.arr
    site = (id(arr), cx.stmt_pos, "region")
    record = SimpleNamespace(arr=arr, idx=list(at), chain=list(state.loops),
                             pos_min=cx.stmt_pos, pos_max=cx.stmt_pos, site=site,
                             loc=cx.smap.loc(node))
    if cx.typing:
        if state.recording:
            state.nest_writes.append(record)
        return
    other = next((w for w in state.nest_writes if w.arr is arr and w.site != site), None)
    if other is not None:
        raise cx.err(node, f"{arr.name!r} is written at two places of one loop nest (also at "
                           f"line {other.loc.line}), one of them a slice, mask or index-array "
                           f"assignment", hint="write the array once per iteration, or split "
                                               "the loop")
    defs.ensure_defined(arr)
    if reads_elsewhere(arr.func, dest, at, [vnode] + list(preds)):
        raise cx.err(node, f"inside a loop, the value assigned into {arr.name!r} reads "
                           f"{arr.name!r} at other elements than the ones it writes",
                     hint=f"compute the value into another array first, or assign "
                          f"element by element ({arr.name}[i] = ...)")
    inner = [(ir.index(0), cast(ir.INDEX, ops.node_of(cx, dest.shape[j])))
             for j in reversed(range(len(p)))]
    mapping, rdom, tri, pairs = bld.emitter.loop_vars(
        [], list(state.loops), "r_" + arr.name, inner=inner)
    for i, j in enumerate(reversed(range(len(p)))):
        mapping[p[j].name] = rdom[i].node
    defs.check_reads([vnode] + list(preds) + list(at), record)
    defs.mark_emitted([vnode] + list(preds) + list(at), arr.func)
    where = f"the assignment into {arr.name}"
    vals = bld.emitter.finalize([vnode], mapping, where)
    key = bld.emitter.finalize(list(at), mapping, where)
    preds = bld.emitter.finalize(list(preds), mapping, where) + tri
    bld.emitter.define(arr.func, tuple(Expr.wrap(k) for k in reversed(key)), vals, preds,
                       rdom, cx.smap.loc(node), label=arr.name, loops=pairs)
