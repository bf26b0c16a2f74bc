"""A `break` at the top of a loop that updates an array in an inner nest.

    for k in range(n):                  a(x, y) = a_in(x, y)
        if a[k, k] == 0.0:              a(j, i) -= ... a(k, k) ...
            break                           over k, i, j  where !stop(k - 1) ...
        for i in range(k + 1, n):       stop(k) = stop(k - 1) or a(k, k) == 0.0
            for j in range(k, n): ...

loop_exits.py makes the stop flag a scan over k (G) and the array's update
(A's, over k and the inner loops) reads it: a cycle that loop_cycles.py
merges only where the array is written at one element per iteration. Here
the test is the update's exit instead (ir.Definition.exit with `exit_outer`):
lowering (lowering/loop_exit.py, outer_exit) tests it at the top of the body
of the loop over k, before the inner loops, reading the array as iteration
k finds it, and leaves that loop when it holds. The flag's Func loses its
update (nothing may read it after the loop: merge_cycles' `dropped`).

`merge_outer_exit(emitter, A, G, UA, UG, vlog)` does that and returns True,
or returns False (the cycle is left to loop_cycles' cases) unless:
- G is a top-level scan over one RVar of one element, false at the start,
  whose update is `stop(k - 1) or test(k)` (test computed only where the
  flag is not set), read by A's last update only, at `stop(k - 1)`;
- A's update with the flag unset is `if_then_else(c, new, old)` whose c is
  false where the test holds (the test comes before the inner loops);
- k is A's outermost RVar (the same loop) and A's update has inner RVars;
- the test reads A only at points no iteration k writes: a coordinate that
  A's update writes at an inner RVar v whose predicates state `e + 1 <= v`
  (or `e < v`) is read at e (LU: row k read, rows k + 1 .. written)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.simplify import equal_after_simplify, simplify


def merge_outer_exit(emitter, A, G, UA, UG, vlog, read_elsewhere, same_loops) -> bool:
    if len(G.output_types) != 1 or len(UG.rvars) != 1 or UG.predicates or \
            UG.exit is not None or UA.exit is not None or len(UA.rvars) < 2 or \
            len(G.args) != 1 or not _is_false(G.pure.values[0]):
        return False
    rg = UG.rvars[0]
    if not (isinstance(UG.args[0], ir.Variable) and UG.args[0].name == rg.name):
        return False
    a_var = same_loops(vlog, A, G)
    outer = UA.rvars[-1]
    if not a_var or rg.name not in a_var or a_var[rg.name].name != outer.name or \
            not (ir.equal(outer.min, rg.min) and ir.equal(outer.extent, rg.extent)):
        return False
    if read_elsewhere(emitter, [A], G):
        return False
    k = next((v for e in [*UA.args, *UA.values, *UA.predicates]
              for n, v in ir.free_vars(e).items() if n == outer.name), None)
    if k is None:
        return False
    test = _test(G, UG, rg)
    if test is None:
        return False
    test = ir.substitute(test, {rg.name: k})
    if not _reads_unwritten(A, UA, test, outer.name):
        return False
    prev = ir.Sub(k, ir.index(1))
    calls = [c for c in ir.find_calls([*UA.values, *UA.predicates, *UA.args])
             if c.call_type == ir.FUNC and c.func is G]
    if not all(len(c.args) == 1 and equal_after_simplify(c.args[0], prev) for c in calls):
        return False
    no_stop = ir.FuncMutator(lambda n: ir.Const(ir.Bool(), False)
                             if isinstance(n, ir.Call) and n.call_type == ir.FUNC and
                             n.func is G else None)
    stops = UG.values[0].condition if isinstance(UG.values[0], ir.Select) else None
    stops = ir.substitute(stops, {rg.name: k}) if stops is not None else None
    if stops is None or not all(_skips_where(v, stops) for v in UA.values):
        return False        # (the test follows the inner loops in the body)
    values = tuple(simplify(no_stop.mutate(v)) for v in UA.values)
    UA.values = values
    UA.predicates[:] = [simplify(no_stop.mutate(p)) for p in UA.predicates]
    UA.exit = test
    UA.exit_outer = True
    G.updates.clear()
    return True


def _skips_where(value, stops) -> bool:
    """Whether `value` (A's update as loop_exits made it) is `if_then_else(
    select(stops, false, ...), new, old)` (or a select), `stops` being G's condition for
    the flag to be set at this iteration: the update is skipped at the
    iteration whose test holds (the `break` comes before the inner loops),
    not only at the later ones."""
    if ir.is_lazy_select(value):
        c = value.args[0]
    elif isinstance(value, ir.Select):     # (no branch reads with a check)
        c = value.condition
    else:
        return False
    return isinstance(c, ir.Select) and _is_false(c.true_value) and ir.equal(c.condition, stops)


def _is_false(e) -> bool:
    return isinstance(e, ir.Const) and e.type == ir.Bool() and not e.value


def _test(G, UG, rg):
    """test(k) of `stop(k) = stop(k - 1) or test(k)`: UG's value with
    stop(k - 1) false, where with it true the value is true; else None."""
    prev = ir.Sub(UG.args[0], ir.index(1))
    value = UG.values[0]
    calls = [c for c in ir.find_calls([value]) if c.call_type == ir.FUNC and c.func is G]
    if not calls or not all(len(c.args) == 1 and equal_after_simplify(c.args[0], prev)
                            for c in calls):
        return None

    def at(flag):
        m = ir.FuncMutator(lambda n: ir.Const(ir.Bool(), flag)
                           if isinstance(n, ir.Call) and n.call_type == ir.FUNC and
                           n.func is G else None)
        return simplify(m.mutate(value))
    stopped, test = at(True), at(False)
    if not (isinstance(stopped, ir.Const) and stopped.value):
        return None
    if any(c.call_type == ir.FUNC and c.func is G for c in ir.find_calls([test])):
        return None
    return test


def _reads_unwritten(A, UA, test, k_name) -> bool:
    """Whether every read of A in `test` (an expression of the loop over
    k_name only) is at a point A's update does not write in that iteration."""
    reads = [c for c in ir.find_calls([test]) if c.call_type == ir.FUNC]
    if any(c.func is not A for c in reads):
        return False        # (another Func: computed where, is not known here)
    if set(ir.free_vars(test)) - {k_name} - {n for n, v in ir.free_vars(test).items()
                                             if v.kind == "param"}:
        return False
    below = []              # (inner RVar v, e) with e < v stated by a predicate
    for p in UA.predicates:
        for c in _conjuncts(p):
            if isinstance(c, ir.LE) and isinstance(c.b, ir.Variable):
                below.append((c.b.name, simplify(ir.Sub(c.a, ir.index(1)))))
            elif isinstance(c, ir.LT) and isinstance(c.b, ir.Variable):
                below.append((c.b.name, c.a))
    for c in reads:
        if not any(isinstance(w, ir.Variable) and w.name == v and
                   equal_after_simplify(c.args[pos], e)
                   for pos, w in enumerate(UA.args) for v, e in below):
            return False
    return True


def _conjuncts(p):
    if isinstance(p, ir.And):
        return _conjuncts(p.a) + _conjuncts(p.b)
    return [p]
