"""An array and a per-iteration inner reduction that read each other: one
serial update in Python's order (forward and back substitution, triangular
solves, Gauss-Seidel-like sweeps).

    for i in range(n):                       s(i) = 0.0
        s = 0.0                              s(i) = s(i) + L(i, r_j) * x(r_j)  where r_j < i
        for j in range(i):                   x(i) = (b(i) - s(i)) / L(i, i)
            s += L[i, j] * x[j]
        x[i] = (b[i] - s) / L[i, i]

Each definition runs all its iterations before the next one, so s would
read x after the whole nest (deps.check_reads refuses this; defs defers the
refusal when the reader is such a reduction and this module resolves it).
When the array is written by one definition of the nest after the
reduction's inner loop, in the same iteration of the loops enclosing that
loop, both become the elements of one tuple Func M over the array's
domain, updated by ONE serial update whose RDom is (slot, the enclosing
loops): slot m - 1 starts the reduction (its pure definition at this
iteration: `s = 0.0`, `s = b[i]`), slots [m, m + E) are the inner loop's
iterations over its hull (the reduction's update at j = slot, where the
loop's own condition holds), slot m + E is the array's write:

    M(x) = (x_before(x), 0.0)
    M(r_i) = (q == m + E ? (b - M(r_i)[1]) / L : M(r_i)[0],
              q == m - 1 ? 0.0 : q == m + E ? M(r_i)[1] : M(r_i)[1] + L(r_i, q) * M(q)[0])
             where q == m - 1 || (q == m + E ? <the write's condition> : <the loop's>)

Every read of the array and of the reduction inside the nest reads M's
current contents, so each read sees exactly the writes Python made before
it (the array changes only in the write's slot, so a value Python read
earlier in the iteration, also into a scalar, is the one M holds). `?:` is the lazy if_then_else: a phase's run-time checks run only in its
own slots. The array's Func becomes a copy of M's array elements; the reduction's
Func no longer holds its values (nothing else may read it; loops.py refuses
a read of it after the nest). Anything else keeps deps.check_reads' located
error."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.function import FuncSchedule
from pyhalide.simplify import equal_after_simplify

from .imperative_common import (
    ambiguous,
    call,
    calls_of,
    clamped_reads,
    exprs,
    foreign_vars,
    install,
    new_state,
    node_value,
    outer_first,
    written_in_nest,
)
from .imperative_writes import merge_writes
from .loop_state import Group


def merge_imperative(emitter, smap, node, deferred, logged, vlogged):
    """Resolve each deferred conflict (arr, reader, error) of the nest
    `node` that just ended (`smap`: its source map; `logged`, `vlogged`:
    the emitter's def_log and var_log entries of the nest) by merging the array and the group (see the module
    doc); raise the deferred error where this is not such a case. Returns
    the merged groups (their Funcs no longer hold their values)."""
    groups = {}
    for arr, target, exc in deferred:
        groups.setdefault(id(arr), (arr, []))[1].append((target, exc))
    merged = []
    for arr, items in groups.values():
        gs = [t for t, _ in items if isinstance(t, Group)]
        if gs:
            # an array and one inner reduction; nothing else conflicting
            why = None if len({id(g) for g in gs}) == 1 and len(gs) == len(items) else \
                "several conflicts"
            why = why or _merge(emitter, smap, node, arr, gs[0], logged, vlogged)
            gs[0].merged = why is None
            merged.append(gs[0])
        else:
            # writes of the array in the nest only (reads of it by its own writes)
            why = merge_writes(emitter, smap, node, arr, logged, vlogged)
        if why is not None:
            raise items[0][1]
    return merged


def _merge(emitter, smap, node, arr, g, logged, vlogged):
    """Build the merged Func; a reason (str) when this case is not one."""
    if g.func is None or g.scan or getattr(arr, "func", None) is None:
        return "not an inner reduction"
    A, G = arr.func.function(), g.func.function()
    a_defs = [(n, k) for n, (lf, k, _, _) in enumerate(logged) if lf.function() is A and k]
    g_defs = [(n, k) for n, (lf, k, _, _) in enumerate(logged) if lf.function() is G]
    if written_in_nest(smap, node, A, logged):
        return "the nest writes the whole array first"
    if len(a_defs) != 1 or a_defs[0][1] < 1 or a_defs[0][1] != len(A.updates):
        return "the array is not written by one update of the nest"
    if [k for _, k in g_defs] != [0, 1] or len(G.updates) != 1:
        return "the reduction is not one loop"
    if not g_defs[1][0] < a_defs[0][0]:
        return "the array is written before the reduction's loop"
    DA, UG = A.updates[-1], G.updates[0]
    if DA.exit is not None or UG.exit is not None:
        return "an early exit"
    if calls_of(exprs(G.pure), G) or len(G.args) != len(UG.args):
        return "the reduction's start is not its own"
    # nothing but the array's write and the reduction itself reads the reduction
    for _, f, _ in emitter.funcs:
        fn = f.function() if hasattr(f, "function") else None
        if fn is None or fn is G or fn is A:
            continue
        if any(calls_of(exprs(d), G) for d in fn.definitions()):
            return "the reduction is read elsewhere"
        sched = fn.schedule.compute_level
        if sched is not None and getattr(sched, "func", None) in (A.name, G.name):
            return "another Func is computed inside the nest"
    if any(calls_of(exprs(d), G) for d in A.definitions() if d is not DA):
        return "the reduction is read elsewhere"
    # the loops of each definition
    a_loops = [(l, v) for _, l, v, f in vlogged if f.function() is A]
    g_loops = [(l, v) for _, l, v, f in vlogged if f.function() is G]
    if ambiguous(a_loops + g_loops):
        return "two loops of the nest have one variable name"
    outer = [l for l, _ in a_loops]
    inner = [(l, v) for l, v in g_loops if l not in outer]
    if len(inner) != 1 or len(UG.rvars) != 1 or {id(l) for l, _ in g_loops} - \
            {id(l) for l in outer} != {id(inner[0][0])} or \
            {id(l) for l in outer} - {id(l) for l, _ in g_loops}:
        return "the loops differ"
    if inner[0][1].name() != UG.rvars[0].name:
        return "the loops differ"
    outer = outer_first(outer)
    rj = UG.rvars[0]
    last = ir.Add(rj.min, rj.extent)
    start = ir.Sub(rj.min, ir.index(1))
    mapping, rdom, tri, pairs = emitter.loop_vars(
        [], outer, f"r_{arr.name}_seq", inner=[(start, ir.Add(rj.extent, ir.index(2)))])
    q = rdom[0].node
    # the reduction's values read at j = q clamped into the loop's hull, so the
    # write's slot (q = m + E) reads nothing outside what the loop reads
    ren = {rj.name: ir.Max(ir.Min(q, ir.Sub(last, ir.index(1))), rj.min)}
    new_rv = {id(l): rv for l, rv in pairs}
    for (l, v) in a_loops + [p for p in g_loops if p[0] is not inner[0][0]]:
        if v.node.kind != "rvar":
            ren[v.name()] = mapping[l.sym]          # a pure Var is the loop's value
            continue
        # an RVar counts the loop's iterations as the new one does, over the same range
        rv = new_rv[id(l)]
        if not (equal_after_simplify(node_value(v.min()), node_value(rv.min())) and
                equal_after_simplify(node_value(v.extent()), node_value(rv.extent()))):
            return "the loops differ"
        ren[v.name()] = rv.node
    key = [ir.substitute(a, ren) for a in DA.args]
    if ir.find_calls(key):
        return "the written element depends on data"    # (computed at every slot)
    g_key = [ir.substitute(a, ren) for a in UG.args]

    nA = len(A.output_types)
    Mf, M = new_state(emitter, arr, A, G.output_types)
    bad = []

    def visit(n):
        if not (isinstance(n, ir.Call) and n.call_type == ir.FUNC):
            return None
        args = tuple(to_m.mutate(a) for a in n.args)
        if n.func is G:
            if len(args) != len(g_key) or \
                    not all(equal_after_simplify(a, b) for a, b in zip(args, g_key)):
                bad.append("the reduction is read at another iteration")
                return n
            return call(M, key, nA + n.value_index)
        if n.func is A:
            return call(M, args, n.value_index)
        return None
    to_m = ir.FuncMutator(visit)

    def moved(e):
        return to_m.mutate(ir.substitute(e, ren))

    write, reset = ir.EQ(q, last), ir.EQ(q, start)
    olds = [call(M, key, k) for k in range(len(M.output_types))]
    # the reduction's start at this iteration (G's pure definition at its key)
    at_key = {name: a for name, a in zip(G.args, g_key)}
    inits = [to_m.mutate(ir.substitute(v, at_key)) for v in G.pure.values]
    new_a = [moved(v) for v in DA.values]
    new_g = [clamped_reads(moved(v)) for v in UG.values]
    pred_a = moved(ir.conjunction(list(DA.predicates)) or ir.Const(ir.Bool(), True))
    pred_g = clamped_reads(moved(ir.conjunction(list(UG.predicates)) or
                                  ir.Const(ir.Bool(), True)))
    if bad:
        return bad[0]
    if foreign_vars(key + new_a + new_g + inits + [pred_a, pred_g] + list(tri), rdom):
        return "a dimension of the definitions is not a loop of the nest"
    # the first slot (the reduction's start) always runs, the write's slot where
    # its condition holds, the loop's slots where the loop runs
    values = [ir.lazy_select(write, v, o) for v, o in zip(new_a, olds[:nA])] + \
        [ir.lazy_select(reset, c, ir.lazy_select(write, o, v))
         for v, c, o in zip(new_g, inits, olds[nA:])]
    preds = list(tri) + [ir.lazy_select(reset, ir.Const(ir.Bool(), True),
                                        ir.lazy_select(write, pred_a, pred_g))]
    install(emitter, arr, A, Mf, (key, values, preds, rdom, DA.source), 1)
    # G: no longer computed (nothing reads it)
    G.updates = []
    G.schedule = FuncSchedule()
    return None
