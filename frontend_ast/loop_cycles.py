"""An array and a scan of one loop that read each other: one tuple Func.

A scan group (loop_scans.py: a running value read by another definition of
the loop, e.g. the stop flag loop_exits.py adds for a `break`) whose update
reads an array the same loop writes, while that array's update reads the
scan, makes two Funcs that call each other:

    for i in range(1, n):              out(r) = out(r - 1) * k  where !stop(r - 1)
        out[i] = out[i - 1] * k        stop(r) = stop(r - 1) or out(r - 1) * k > t
        if out[i] > t:
            break

Each definition runs all its iterations before the next one, so neither
order computes what Python computes. When the array is written at one
element per iteration, at the loop's position (one update of the nest,
its other coordinates constants), both become the elements of one tuple
Func M over the array's domain, updated once per iteration in Python's
order (the array's write, then the scan):

    M(x) = (out_before(x), stop's initial value)
    M(r) = (S ? M(r)[0] : out(r - 1) * k,  S ? S : (S or new > t))
           with S = M(max(r - 1, first))[1]

(`?:` is the lazy if_then_else: once the stop flag is set nothing of the
iteration is computed, not even an index check.) The scan's state at the
start of iteration r is stored at the position iteration r - 1 wrote; at
the first iteration that position holds the initial value (M(first)
before its update: the pure definition), so M is never read outside the
positions the loop writes. The array's Func becomes a copy of M's array
elements and the scan's own Func reads those (it is computed again only
where a later statement reads the scan's value).

Session 20 widened the cases where the scan starts anew in each iteration
of the enclosing loops, at the loop's first iteration (computed there from
its pure definition, reading M as the array was when the loop started; M's
own positions never hold it):
- the array is written at the same element in every iteration
  (`out[i] += a[i, j]; if out[i] > t: break` in a loop over j): the scan's
  state lives in that element's extra members;
- the enclosing loops are RVars of the array's update (an argument array,
  a loop over another array's rows): their values are those at which the
  array's update reads the scan;
- the write is at a constant offset from the loop's position (`a[j + 1] =
  a[j]`: insertion sort, see while_exit_write.py); also for a top-level
  loop, whose scan starts as in the first case above (M's initial
  contents at the first written position) and keeps its Func;
- the scan's update has the loop's own condition as predicate (the hull of
  a loop whose bounds depend on an enclosing loop), and its start may read
  the array (`key = a[i]` carried by the loop).
There the scan's own Func is not computed any more (a read of it after the
loop is a located error: merge_cycles returns those merges).

Anything else (a row per iteration, reads of the scan at other iterations,
several places written) is a located error; cycles through several arrays
or in inner loops are left to lowering's cycle error."""
from __future__ import annotations

import ast
import copy
import dataclasses

from pyhalide import ir
from pyhalide.ir.function import FuncSchedule, copy_stage
from pyhalide.simplify import equal_after_simplify, simplify

from . import ops
from .deps import CrossRead, unchecked
from .loop_exits import EXIT_ATTR, RELATIVE_ATTR, describe_name
from .loop_state import Group
from .outer_exit import merge_outer_exit
from .values import Arr
from .while_exit_range import range_guard


def merge_cycles(emitter, node, groups, logged, vlog, err):
    """After a top-level nest (`logged`: the emitter's def_log entries of
    its definitions, `vlog`: its var_log entries): merge each scan of `groups` with the array it and that
    array's update read each other through (see the module doc);
    err(loop node, message, hint) makes the located error of a case that is
    not one. Returns (group, array) of each merge whose reads of the array
    are merged reads; where the group's Func has no update left it no longer
    holds its values (nothing may read it after the nest; outer_exit keeps
    the update of a flag carried with other names, `ok = False; break`)."""
    made = {id(lf.function()) for lf, _, _, _ in logged if hasattr(lf, "function")}
    dropped = []
    groups = list(groups) + [o for _, f, o in emitter.funcs if isinstance(o, Group) and
                             o not in groups and hasattr(f, "function") and
                             id(f.function()) in made]
    for g in groups:
        if not g.scan or g.func is None:
            continue
        G = g.func.function()
        if len(G.updates) != 1:
            continue
        arrays = {id(o): (o, f) for pyname, f, o in emitter.funcs
                  if isinstance(o, Arr) and o.func is f and hasattr(f, "function")}
        for arr, f in arrays.values():
            A = f.function()
            mine = [k for lf, k, _, _ in logged if lf.function() is A and k > 0]
            if not A.updates or len(A.updates) not in mine:
                continue
            UA, UG = A.updates[-1], G.updates[0]
            if not (_calls(UG, A) and _calls(UA, G)):
                continue
            sinks = merge_outer_exit(emitter, A, G, UA, UG, vlog, _read_elsewhere, same_loops)
            if sinks is not None:
                dropped += [(g, arr)] + [(g, o) for o in sinks]
                break
            members = _partners(arrays.values(), logged, A, G, UA)
            others = [(o, B, UB) for o, B, UB in members if B is not A]
            why = "the loop writes it at several places" if len(mine) > 1 else \
                _merge_one(emitter, arr, A, G, UA, UG, _stop_member(g, g.chain_nodes[-1]),
                           vlog, _done_member(g),
                           getattr(g.chain_nodes[-1], RELATIVE_ATTR, False), members)
            if why:
                raise err(g.chain_nodes[-1], _message(arr, g, why),
                          "write one element of the array per iteration, at the loop's "
                          "position (out[i] = ...), or find where the loop stops in a first "
                          "loop and write the array in a second one up to there")
            if not G.updates:
                dropped += [(g, arr)] + [(g, o) for o, _, _ in others]
                break
    return dropped


def _message(arr, g, why):
    names = ", ".join(describe_name(n) for n in g.names if not n.startswith("?") or
                      n.startswith("?stop"))
    return (f"this loop writes {arr.name!r} and carries {names or 'a value'}; they read each "
            f"other in the same iteration, and {why}")


def _partners(arrays, logged, A, G, UA) -> list:
    """(array, Func, its last update) of each other array the loop writes
    once per iteration at the same element as A's last update `UA`, whose
    write reads the carried value G (`idx[j + 1] = idx[j]` beside `a[j + 1]
    = a[j]` in argsort by insertion): they join A's merged Func. All of
    them with A's, in the order the loop writes them."""
    order = {}
    for n, (lf, k, _, _) in enumerate(logged):
        if hasattr(lf, "function") and k > 0:
            order.setdefault(id(lf.function()), []).append(n)
    # (A's RVar nodes: B's name the same loops, of another RDom object)
    mine = {n: v for a in UA.args for n, v in ir.free_vars(a).items()}
    out = []
    for arr, f in arrays:
        B = f.function()
        if B is A:
            out.append((order.get(id(A), [0])[-1], arr, A, UA))
            continue
        if not B.updates or len(order.get(id(B), [])) != 1:
            continue
        UB = B.updates[-1]
        if not _calls(UB, G) or _calls(G.updates[0], B) or UB.exit is not None or \
                [(v.name, str(v.min), str(v.extent)) for v in UB.rvars] != \
                [(v.name, str(v.min), str(v.extent)) for v in UA.rvars] or \
                len(UB.args) != len(UA.args) or \
                not all(equal_after_simplify(_index(unchecked(a)), _index(unchecked(
                    ir.substitute(b, {n: v for n, v in mine.items()
                                      if n in ir.free_vars(b)}))))
                        for a, b in zip(UA.args, UB.args)):
            continue
        out.append((order[id(B)][0], arr, B, UB))
    return [(arr, B, UB) for _, arr, B, UB in sorted(out, key=lambda t: t[0])]


def cross_reads(deferred, dropped) -> list:
    """`deferred` (the nest's deferred read errors) without the reads of
    one array by another's write (deps.CrossRead) that a merge made reads
    of one Func (`dropped`: merge_cycles' (group, array) pairs); any other
    such read raises its error."""
    merged = {}
    for g, arr in dropped:
        merged.setdefault(id(g), set()).add(id(arr))
    out = []
    for arr, target, err in deferred:
        if not isinstance(err, CrossRead):
            out.append((arr, target, err))
        elif not any({id(arr), id(target.arr)} <= s for s in merged.values()):
            raise err.err
    return out


def _stop_member(g, node):
    """The index in g of the flag loop_exits.py tests at the top of loop
    `node` (`if ?stop: continue`), or None."""
    if not getattr(node, EXIT_ATTR, False):
        return None
    test = node.body[0].test
    if isinstance(test, ast.Name) and test.id in g.names:
        return g.names.index(test.id)
    return None


def _done_member(g):
    """The index in g of the flag while_exit_write.py sets in the iteration
    whose test fails (`?done`: the next iteration only sets the stop flag),
    or None."""
    return next((k for k, n in enumerate(g.names) if n.startswith("?done")), None)


def _calls(d, fn) -> bool:
    exprs = list(d.values) + list(d.predicates) + list(d.args)
    return any(c.call_type == ir.FUNC and c.func is fn for c in ir.find_calls(exprs))


def _merge_one(emitter, arr, A, G, UA, UG, stop, vlog, done=None, relative=False,
               members=None):
    """Build the merged Func; a reason (str) when this case is not one.
    `stop`: the element of G that is the loop's stop flag, or None; `done`:
    the element that is while_exit_write's flag, or None; `relative`: the
    loop runs relative to its start (loop_exits.RELATIVE_ATTR); `members`:
    (array, Func, update) of A and of the arrays merged with it
    (_partners), in the loop's order."""
    members = members or [(arr, A, UA)]
    if len(UG.rvars) != 1 or UA.exit is not None or UG.exit is not None:
        return "the loop is not a single loop of its own"
    rg = UG.rvars[0]
    ctx = [getattr(a, "name", None) for a in UG.args[1:]]    # the enclosing loops' Vars
    if None in ctx or list(G.args[1:]) != ctx:
        return "the carried value is indexed by more than the loops"
    # A's variable of each of G's loops (the enclosing loops may be RVars of A)
    a_var = same_loops(vlog, A, G) if len(UA.rvars) != 1 else {}
    if len(UA.rvars) != 1 and (a_var is None or rg.name not in a_var):
        return "the loop is not a single loop of its own"
    ra = UA.rvars[0] if len(UA.rvars) == 1 else \
        next((v for v in UA.rvars if v.name == a_var[rg.name].name), None)
    if ra is None or not (ir.equal(ra.min, rg.min) and ir.equal(ra.extent, rg.extent)):
        return "they run over different iterations"
    r = ir.Variable(ir.INDEX, ra.name)
    for a in UA.args + tuple(UA.values) + tuple(UA.predicates):
        for name, v in ir.free_vars(a).items():
            if name == ra.name:
                r = v       # the RVar node (it names its RDom)
    ren = {rg.name: r}      # (the same name, but the RVar of another RDom object)
    # the enclosing loops' values in A's update: where A reads G
    at = {tuple(c.args[1:]) for c in ir.find_calls(list(UA.values) + list(UA.predicates) +
                                                   list(UA.args))
          if c.call_type == ir.FUNC and c.func is G}
    ctx_nodes = [ir.Variable(ir.INDEX, n) for n in ctx]
    if len(at) == 1 and len(UA.rvars) != 1:
        ctx_nodes = list(next(iter(at)))
        ren.update(dict(zip(ctx, ctx_nodes)))
    elif len(UA.rvars) != 1:
        return "the loop is not a single loop of its own"
    here = ir.substitute(UG.args[0], ren)
    pos = [k for k, a in enumerate(UA.args)
           if equal_after_simplify(_index(unchecked(a)), _index(here))]
    # (or at a constant offset from it: `a[j + 1] = a[j]` with j the loop's
    # position; only where the carried value starts at the first iteration)
    shifted = [k for k, a in enumerate(UA.args) if not pos and (len(UA.rvars) != 1 or not ctx)
               and isinstance(simplify(ir.Sub(_index(unchecked(a)), _index(here))), ir.Const)]
    pos = pos or shifted
    at_ctx = [[k for k, a in enumerate(UA.args) if isinstance(a, ir.Variable) and a.name == n]
              for n in ctx]
    # no coordinate follows the loop: every iteration writes the element of
    # the enclosing loops' iteration (`out[i] += ...` in a loop over j)
    same = not pos
    # the carried value starts at the loop's first iteration (computed
    # there), not at M's initial contents: where the loop writes one
    # element, or the enclosing loops are RVars of A's update (an outer
    # iteration may write the positions an earlier one wrote)
    explicit = same or len(UA.rvars) != 1
    if explicit:
        if _read_elsewhere(emitter, [B for _, B, _ in members], G):
            return "the carried value is read after the loop"
        names = set(ir.free_vars(ctx_nodes)) | ({r.name} if pos else set())
        if len(pos) > 1 or any(v.kind != "param" and name not in names
                               for name, v in ir.free_vars(list(UA.args)).items()):
            return f"{arr.name!r} is not written at one element per iteration"
    elif len(pos) > 1 or any(len(ks) != 1 for ks in at_ctx):
        return f"{arr.name!r} is not written at one element per iteration"
    if UG.predicates and not explicit:
        return "the loop is not a single loop of its own"
    fixed = set(pos) | {ks[0] for ks in at_ctx if ks}
    if not explicit and any(v.kind != "param" for k, a in enumerate(UA.args) if k not in fixed
                            for v in ir.free_vars(a).values()):
        # (an index along another loop writes several points per iteration)
        return f"{arr.name!r} is not written at one element per iteration"
    if any(G.args[0] in ir.free_vars(v) for v in G.pure.values):
        return "the carried value's start depends on the position"
    if _calls(G.pure, A) and not explicit:
        return f"the carried value starts from {arr.name!r}"
    # the carried values' start, at M's coordinates (where an iteration reads
    # the start from M: where `explicit`, the first iteration computes it)
    start_at = {} if explicit else \
        {n: ir.Variable(ir.INDEX, A.args[ks[0]]) for n, ks in zip(ctx, at_ctx)}
    first = ir.EQ(r, ra.min)
    key = list(UA.args)
    clamped = False
    if shifted or relative:
        key, clamped = _inside(emitter, arr, key, pos, ra.name, relative)
    prev_here = ir.substitute(here, {ra.name: ir.Sub(r, ir.index(1))})
    # the position the previous iteration wrote; at the first iteration the
    # first position, which still holds the initial value
    prev_key = tuple(key) if same else tuple(
        ir.substitute(a, {ra.name: ir.Max(ir.Sub(r, ir.index(1)), ra.min)}) for a in key)

    # each member array's first element in M (A's and its partners')
    base, nA = [], 0
    for _, B, _ in members:
        base.append(nA)
        nA += len(B.output_types)
    M = emitter.new_func(arr.name, arr).function()
    Aps = [emitter.new_func(o.name, o).function() for o, _, _ in members]
    M.args = A.args
    M.output_types = tuple(t for _, B, _ in members for t in B.output_types) + \
        tuple(G.output_types)
    for Ap, (_, B, _) in zip(Aps, members):
        Ap.args, Ap.output_types = B.args, B.output_types

    def call(fn, args, k):
        return ir.Call(fn.output_types[k], fn.name, tuple(args), ir.FUNC, k, fn)

    bad = []

    def start(k):
        """Element k of the carried value at the start of the iteration."""
        if explicit:
            return ir.lazy_select(first, inits[k], call(M, prev_key, nA + k))
        return call(M, prev_key, nA + k)

    def reads(new_a):
        """Calls of the members and G -> reads of M (new_a: {member index:
        its new values at `key`}, those written before in the iteration)."""
        def visit(n):
            if not (isinstance(n, ir.Call) and n.call_type == ir.FUNC):
                return None
            args = tuple(m.mutate(a) for a in n.args)
            if n.func is G:
                if not equal_after_simplify(_index(args[0]), _index(prev_here)) or \
                        not all(equal_after_simplify(a, c)
                                for a, c in zip(args[1:], ctx_nodes)):
                    bad.append("the carried value is read at another iteration")
                    return n
                return start(n.value_index)
            for i, (b_arr, B, _) in enumerate(members):
                if n.func is B:
                    # (a loop run relative to its start: its reads are
                    # clamped as its writes, for the iterations past its
                    # range that are never run)
                    old = call(M, _clamped(emitter, b_arr, args, pos, ra.name)
                               if clamped else args, base[i] + n.value_index)
                    if i not in new_a:
                        return old
                    if all(ir.equal(a, b) for a, b in zip(args, key)):
                        return new_a[i][n.value_index]
                    # (another expression of the position: where it is the
                    # one written in this iteration, the value written)
                    here = ir.conjunction([ir.EQ(_index(unchecked(a)), _index(unchecked(b)))
                                           for a, b in zip(args, key)])
                    return ir.Select(here, new_a[i][n.value_index], old)
            return None
        m = ir.FuncMutator(visit)
        return m

    def sub(e, mut):
        return mut.mutate(ir.substitute(e, ren))

    # (computed at the first iteration, before its write: M holds what the
    # arrays held when the loop started)
    inits = [sub(v, reads({})) for v in G.pure.values]
    a_nodes = ir.free_vars(list(UA.args) + list(UA.values) + list(UA.predicates))
    news, olds = {}, []
    ren_bs = []
    for _, B, UB in members:
        # (B's RVars: the same loops as A's, nodes of another RDom object)
        ren_b = dict(ren)
        ren_b.update({v.name: a_nodes[v.name] for v in UB.rvars
                      if B is not A and v.name in a_nodes})
        ren_bs.append(ren_b)
    leaves = stop is not None and explicit and ra.name == UA.rvars[0].name
    # (a loop run relative to its start: its range predicate fails only
    # after its exit, and becomes the update's predicate: while_exit_range.py)
    tri = range_guard(UG.predicates, [UB.predicates for _, _, UB in members], ren,
                      ren_bs) if clamped and leaves else None
    g_preds = [] if tri is not None else list(UG.predicates)
    for i, (_, B, UB) in enumerate(members):
        ren_b = ren_bs[i]
        mb = reads(dict(news))
        old = [call(M, key, base[i] + k) for k in range(len(B.output_types))]
        new = [mb.mutate(ir.substitute(v, ren_b)) for v in UB.values]
        b_preds = list(UB.predicates)[1 if tri is not None else 0:]
        if b_preds:
            cond = mb.mutate(ir.substitute(ir.conjunction(b_preds), ren_b))
            new = [ir.lazy_select(cond, v, o) for v, o in zip(new, old)]
        news[i] = new
        olds += old
    new_a = [v for i in range(len(members)) for v in news[i]]
    mg = reads(news)
    new_g = [sub(v, mg) for v in UG.values]
    if g_preds:
        # the loop's own condition: where it fails, the carried value stays
        pred_g = sub(ir.conjunction(g_preds), mg)
        new_g = [ir.lazy_select(pred_g, v, start(k)) for k, v in enumerate(new_g)]
    if bad:
        return bad[0]
    if stop is not None:
        # once the loop's stop flag is set, no iteration computes anything
        starts = [start(k) for k in range(len(G.output_types))]
        stopped = starts[stop]
        new_a = [ir.lazy_select(stopped, o, v) for v, o in zip(new_a, olds)]
        new_g = [ir.lazy_select(stopped, o, v) for v, o in zip(new_g, starts)]
    # each member's definitions before this loop, as their own Func
    for Ap, (_, B, _) in zip(Aps, members):
        to_ap = _func_renamer(B, Ap)
        Ap.pure = mapped_definition(B.pure, to_ap)
        Ap.updates = [mapped_definition(d, to_ap) for d in B.updates[:-1]]
        Ap.schedule = _func_schedule(B.schedule)
        Ap.source = B.source
    pure_vars = tuple(ir.Variable(ir.INDEX, a) for a in A.args)
    M.pure = ir.Definition(pure_vars, tuple(call(Ap, pure_vars, k) for Ap in Aps
                                            for k in range(len(Ap.output_types))) +
                           tuple(ir.zero(v.type) if explicit else ir.substitute(v, start_at)
                                 for v in G.pure.values), [],
                           copy_stage(A.pure.schedule),
                           A.pure.source, A.pure.rdom_name)
    M.updates = [ir.Definition(tuple(key), tuple(new_a) + tuple(new_g),
                               [] if tri is None else [tri],
                               copy_stage(UA.schedule), UA.source, UA.rdom_name)]
    if leaves:
        # once stopped, an iteration writes the array's old values and
        # carries the state to a position only the next iteration reads:
        # the loop (the update's innermost) is left there
        # (ir.Definition.exit_moves). A loop run
        # relative to its start (clamped) is also left once the `?done` flag
        # is set (the next iteration would only set the stop flag, and it may
        # be past the loop's range, where nothing sets it)
        M.updates[0].exit = ir.Or(stopped, starts[done]) if clamped and done is not None \
            else stopped
        M.updates[0].exit_moves = True
    M.schedule = _func_schedule(A.schedule)
    M.source = A.source
    # each member: a copy of its elements of M; G: its own scan, reading them
    for i, (_, B, _) in enumerate(members):
        bvars = tuple(ir.Variable(ir.INDEX, a) for a in B.args)
        B.pure = ir.Definition(bvars, tuple(call(M, bvars, base[i] + k)
                                            for k in range(len(B.output_types))), [],
                               copy_stage(B.pure.schedule), B.pure.source, B.pure.rdom_name)
        B.updates = []
    if explicit:
        # M's elements do not hold every iteration's carried value: G is no
        # longer computed (nothing else reads it, merge_cycles refuses a
        # read after the nest)
        G.updates = []
        G.schedule = FuncSchedule()
        return None
    to_m = ir.FuncMutator(
        lambda n: call(M, tuple(to_m.mutate(a) for a in n.args), n.value_index)
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func is A else None)
    G.updates = [mapped_definition(UG, to_m)]
    return None


def _func_renamer(B, Ap):
    """A mutator making B's calls of itself calls of Ap."""
    def visit(n):
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func is B:
            return ir.Call(n.type, Ap.name, tuple(m.mutate(a) for a in n.args), ir.FUNC,
                           n.value_index, Ap)
        return None
    m = ir.FuncMutator(visit)
    return m


def _clamped(emitter, arr, args, pos, r):
    """args with its coordinates `pos` that depend on RVar `r` clamped to
    the array's extent (a read in a loop whose key _inside clamped: the
    iterations past the loop's range are never run, and in those run the
    position is inside the array, checked where the frontend could not
    prove it)."""
    args = list(args)
    for k in pos:
        if r in ir.free_vars(args[k]):
            args[k] = _clamp(emitter, arr, args[k], k)
    return tuple(args)


def _clamp(emitter, arr, e, k):
    """e clamped to [0, extent - 1] of arr's coordinate k."""
    ext = ops.cast(e.type, ops.node_of(emitter.cx, arr.shape[arr.ndim - 1 - k]))
    return ir.Max(ir.Min(e, ir.Sub(ext, ir.Const(e.type, 1))), ir.Const(e.type, 0))


def _inside(emitter, arr, key, pos, r, relative):
    """(key, whether changed): key with its coordinates `pos` that step by more than one per
    iteration of RVar `r` clamped to the array's extent: such a loop
    (`j -= 2`), or a `relative` one, runs relative to its start over a
    bound of its trip counts, and its iterations past its own range (never
    run: the loop is left before them) would otherwise widen M's region
    past the array. (Another loop stepping by one runs over the hull of its
    positions: nothing to clamp.)"""
    key, clamped = list(key), False
    for k in pos:
        step = simplify(ir.Sub(ir.substitute(key[k], {r: ir.Add(ir.Variable(key[k].type, r),
                                                                 ir.Const(key[k].type, 1))}),
                               key[k]))
        if not isinstance(step, ir.Const) or (abs(step.value) == 1 and not relative):
            continue
        key[k] = _clamp(emitter, arr, key[k], k)
        clamped = True
    return key, clamped


def same_loops(vlog, A, G):
    """{name of G's variable of a loop: A's variable node of that loop}
    for the loops both definitions run over (emitter.var_log entries
    `vlog`); None where a loop is seen with two variables of one Func."""
    mine = {}
    for _, loop, v, f in vlog:
        fn = f.function() if hasattr(f, "function") else None
        if fn is A or fn is G:
            old = mine.setdefault((id(fn), id(loop)), v)
            if old is not v and old.name() != v.name():
                return None
    out = {}
    for (fid, lid), v in mine.items():
        if fid == id(G) and (id(A), lid) in mine:
            out[v.name()] = mine[(id(A), lid)].node
    return out


def _read_elsewhere(emitter, As, G) -> bool:
    """Whether a Func other than G and those of `As` reads G, or a
    definition of one of `As` other than its last update does."""
    for _, f, _ in emitter.funcs:
        fn = f.function() if hasattr(f, "function") else None
        if fn is None or fn is G or any(fn is A for A in As):
            continue
        if any(_calls(d, G) for d in fn.definitions()):
            return True
    return any(_calls(d, G) for A in As for d in A.definitions()[:-1])


def _func_schedule(s):
    return dataclasses.replace(s, bounds=list(s.bounds))


def mapped_definition(d, m):
    d = copy.copy(d)
    d.args = tuple(m.mutate(a) for a in d.args)
    d.values = tuple(m.mutate(v) for v in d.values)
    d.predicates = [m.mutate(p) for p in d.predicates]
    return d


def _index(e):
    return e if e.type == ir.INDEX else ir.Cast(ir.INDEX, e)
