"""An array written at two depths of one loop nest, each write reading what
the other wrote (LU without pivoting, in-place triangular updates): one
serial update in Python's order.

    for k in range(n):
        for i in range(k + 1, n):
            a[i, k] /= a[k, k]                     # D1: loops k, i
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]       # D2: loops k, i, j

Each definition runs all its iterations before the next one, so neither
order is Python's (deps.check_write_order and deps.check_reads refuse it;
defs and loops defer those refusals and this module resolves them). When
every write of the array in the nest shares the same enclosing loops and
each write has at most one loop of its own inside them, the writes become
ONE update of a Func M over the array's domain, whose RDom is (slot, the
shared loops): the slots of one iteration are the writes in Python's order,
one slot for a write without a loop of its own, one per iteration of its
loop (its hull) for the others. The written element and the value are
chosen by the slot (`?:` lazy, so a write's run-time checks run in its own
slots only), and every read of the array reads M's current contents. The
array's Func becomes a copy of M."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.flat_index import is_flat_index
from pyhalide.simplify import equal_after_simplify

from .imperative_common import (
    ambiguous,
    call,
    clamped_reads,
    exprs,
    foreign_vars,
    install,
    new_state,
    node_value,
    outer_first,
    written_in_nest,
)

_MAX_WRITES = 4


def merge_writes(emitter, smap, node, arr, logged, vlogged):
    """Build the merged Func of `arr`'s writes in the nest `node` (see the
    module doc); a reason (str) when this case is not one."""
    if getattr(arr, "func", None) is None:
        return "not an array"
    A = arr.func.function()
    if written_in_nest(smap, node, A, logged):
        return "the nest writes the whole array first"
    ups = [(n, k) for n, (lf, k, _, _) in enumerate(logged) if lf.function() is A and k]
    p = len(ups)
    if not 1 <= p <= _MAX_WRITES or [k for _, k in ups] != \
            list(range(len(A.updates) - p + 1, len(A.updates) + 1)):
        return "the array's writes are not the last updates"
    defs = A.updates[-p:]
    lines = [d.source.line if d.source is not None else None for d in defs]
    if None in lines or lines != sorted(set(lines)):
        return "the writes' order is not known"
    if any(d.exit is not None for d in defs):
        return "an early exit"
    made = {id(lf.function()) for lf, _, _, _ in logged}
    for d in defs:
        for c in ir.find_calls(exprs(d)):
            if c.call_type == ir.FUNC and c.func is not A and id(c.func) in made:
                return "a write reads another value computed in the nest"
    # each write's loops: the Vars and RVars its definition uses
    a_loops = [(l, v) for _, l, v, f in vlogged if f.function() is A]
    if ambiguous(a_loops):
        return "two loops of the nest have one variable name"
    own = []
    for d in defs:
        names = set(ir.free_vars(exprs(d))) | {r.name for r in d.rvars}
        own.append([(l, v) for l, v in a_loops if v.name() in names])
    shared = []         # (once each: two writes log the same loop twice)
    for l, _ in own[0]:
        if all(any(m is l for m, _ in o) for o in own) and not any(m is l for m in shared):
            shared.append(l)
    inner = []
    for d, o in zip(defs, own):
        extra = [(l, v) for l, v in o if not any(s is l for s in shared)]
        if len(extra) > 1 or (extra and extra[0][1].node.kind != "rvar"):
            return "a write has more than one loop of its own"
        if extra and not any(r.name == extra[0][1].name() for r in d.rvars):
            return "the loops differ"
        inner.append(extra[0][1] if extra else None)
    if not shared:
        return "no loop is shared"
    shared = outer_first(shared)
    # the slots of one iteration: one per write, or its loop's hull
    sizes = [ir.index(1) if r is None else node_value(r.extent()) for r in inner]
    offs = [ir.index(0)]
    for s in sizes:
        offs.append(ir.Add(offs[-1], s))
    mapping, rdom, tri, pairs = emitter.loop_vars(
        [], shared, f"r_{arr.name}_seq", inner=[(ir.index(0), offs[-1])])
    q = rdom[0].node
    new_rv = {id(l): rv for l, rv in pairs}
    rens = []
    for d, o, r, off in zip(defs, own, inner, offs):
        ren = {}
        for l, v in o:
            if r is not None and v.name() == r.name():
                # the write's own loop at slot q, clamped into its hull
                m, e = node_value(r.min()), node_value(r.extent())
                ren[v.name()] = ir.Add(m, ir.Max(ir.Min(ir.Sub(q, off), ir.Sub(e, ir.index(1))),
                                                 ir.index(0)))
            elif v.node.kind != "rvar":
                ren[v.name()] = mapping[l.sym]
            else:
                rv = new_rv[id(l)]
                if not (equal_after_simplify(node_value(v.min()), node_value(rv.min())) and
                        equal_after_simplify(node_value(v.extent()), node_value(rv.extent()))):
                    return "the loops differ"
                ren[v.name()] = rv.node
        rens.append(ren)

    Mf, M = new_state(emitter, arr, A)
    to_m = ir.FuncMutator(
        lambda n: call(M, tuple(to_m.mutate(a) for a in n.args), n.value_index)
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func is A else None)
    true = ir.Const(ir.Bool(), True)
    keys, vals, preds, active = [], [], [], []
    for d, ren, r, off, size in zip(defs, rens, inner, offs, sizes):
        def moved(e, ren=ren, r=r):
            e = to_m.mutate(ir.substitute(e, ren))
            return e if r is None else clamped_reads(e)
        key = [ir.substitute(a, ren) for a in d.args]
        if any(not is_flat_index(c) for c in ir.find_calls(key)):
            return "the written element depends on data"    # (computed at every slot)
        keys.append(key)
        vals.append([moved(v) for v in d.values])
        preds.append(moved(ir.conjunction(list(d.predicates)) or true))
        active.append(ir.EQ(q, off) if r is None else
                      ir.And(ir.LE(off, q), ir.LT(q, ir.Add(off, size))))
    if foreign_vars([a for k in keys for a in k] + [v for vs in vals for v in vs] + preds +
                    list(tri), rdom):
        return "a dimension of the writes is not a loop of the nest"
    # the chains on the slot: the last write is the default
    key, value, pred = keys[-1], vals[-1], preds[-1]
    for k in range(p - 2, -1, -1):
        key = [ir.Select(active[k], a, b) for a, b in zip(keys[k], key)]
        value = [ir.lazy_select(active[k], a, b) for a, b in zip(vals[k], value)]
        pred = ir.lazy_select(active[k], preds[k], pred)
    install(emitter, arr, A, Mf, (key, value, list(tri) + [pred], rdom, defs[-1].source), p)
    return None
