"""Lifted dimensions a value does not depend on (after a build): a Func made
by array code inside loops has one pure dimension per enclosing loop
(lifted.py), also where its value is the same in every iteration
(`for i ...: if x.sum() > 0.0: for k in range(lo, hi): ...` makes the sum a
Func over (slot, i) of the merged loops: loop_merge.py). Its consumers read
it at the loops' variables, so it was computed at every iteration (the sum
over the inner loop's range: a 2**30-slot buffer, a false MemoryError).

A lifted Var v of Func f is *unread* when it occurs in f's definitions only
as its own left-hand side coordinate and as the same coordinate of f's
calls of itself (and in no bound of f's schedule, no reduction domain,
predicate or exit), or at a coordinate of another Func's call that is
itself unread (a chain of helper Funcs: name_lanes, name_tree, name): then
f(..., v, ...) is the same for every v (each stage computes every v's
element from the same values), and the Funcs that are not lifted (the
loops' own Funcs) read it at 0 instead: f is computed at one index of that
dimension, and its helpers at the region f's reads of them give. The loop's
reduction domain still bounds that index: a loop of no iteration computes
nothing (its lifted Funcs' checks, `y[k]` with k out of range, made only
where Python makes them)."""
from __future__ import annotations

from pyhalide import ir


def pin_unread_lifts(lifted, funcs) -> None:
    """Rewrite the calls in the definitions of `funcs` (ir.Functions) of the
    Functions in `lifted` ([(ir.Function, [lifted Var names])]) so that
    each lifted coordinate the Function's value does not depend on is 0.
    Calls in the definitions of the lifted Functions themselves keep their
    coordinates: there the coordinate is the consumer's own lifted Var, whose
    region (empty where the loop runs no iteration) bounds the producer's."""
    todo = [(fn, names) for fn, names in lifted if fn.pure is not None and names]
    if not todo:
        return
    pinned = {}                 # id(Function) -> {positions its value does not depend on}
    changed = True
    while changed:
        changed = False
        for fn, names in todo:
            have = pinned.get(id(fn), set())
            new = {p for p, v in enumerate(fn.args)
                   if v in names and p not in have and _position_only(fn, p, v, pinned)}
            if new:
                pinned[id(fn)] = have | new
                changed = True
    if pinned:
        inside = {id(fn) for fn, _ in todo}
        _rewrite_calls(pinned, [fn for fn in funcs if id(fn) not in inside])


def _position_only(fn, p, v, pinned) -> bool:
    """Whether fn's value does not depend on its coordinate p (pure Var v):
    v is each definition's coordinate p and occurs elsewhere only as
    coordinate p of fn's calls of itself or at a coordinate of a call
    whose Function does not depend on it (`pinned`)."""
    for b in fn.schedule.bounds:
        if b.var == v:
            return False
    for d in fn.definitions():
        a = d.args[p] if p < len(d.args) else None
        if not (isinstance(a, ir.Variable) and a.name == v):
            return False
        if any(r.name == v for r in d.rvars) or d.exit is not None:
            return False
        rest = [e for k, e in enumerate(d.args) if k != p] + list(d.values) + \
            list(d.predicates) + [e for r in d.rvars for e in (r.min, r.extent)]
        if _mentions(rest, fn, p, v, pinned):
            return False
    return True


def _mentions(exprs, fn, p, v, pinned) -> bool:
    """Whether Var v occurs in exprs other than as coordinate p of calls of
    fn or at a coordinate of a call that `pinned` says its Function does
    not depend on."""
    found = [False]

    def visit(n):
        if found[0]:
            return n
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func is not None:
            skip = set(pinned.get(id(n.func), ()))
            if n.func is fn and len(n.args) > p and isinstance(n.args[p], ir.Variable) and \
                    n.args[p].name == v:
                skip.add(p)
            if skip:
                for k, a in enumerate(n.args):
                    if k not in skip:
                        m.mutate(a)
                return n
            return None
        if isinstance(n, ir.Variable) and n.name == v:
            found[0] = True
            return n
        return None

    m = ir.FuncMutator(visit)
    for e in exprs:
        m.mutate(e)
    return found[0]


def _rewrite_calls(pinned, funcs) -> None:
    """Each call of a pinned Function in the definitions of `funcs` with its
    pinned coordinates 0."""
    def visit(n):
        if isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func is not None and \
                id(n.func) in pinned:
            pos = pinned[id(n.func)]
            args = tuple(ir.zero(a.type) if k in pos else m.mutate(a)
                         for k, a in enumerate(n.args))
            return ir.Call(n.type, n.name, args, n.call_type, n.value_index, n.func)
        return None

    for fn in funcs:
        m = ir.FuncMutator(visit)
        for d in fn.definitions():
            _mutate_definition(d, m)


def _mutate_definition(d, m) -> None:
    args = tuple(m.mutate(a) for a in d.args)
    if any(x is not y for x, y in zip(args, d.args)):
        d.args = args
    values = tuple(m.mutate(e) for e in d.values)
    if any(x is not y for x, y in zip(values, d.values)):
        d.values = values
    for k, e in enumerate(d.predicates):
        new = m.mutate(e)
        if new is not e:
            d.predicates[k] = new
    if d.exit is not None:
        new = m.mutate(d.exit)
        if new is not d.exit:
            d.exit = new
    # (a reduction domain's bounds keep their calls: read as before)
