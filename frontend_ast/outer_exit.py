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
k finds it, and leaves that loop when it holds. Inside the iterations that
run the test is false, so the update's values and predicates no longer
test it (the exit is then the only reader of its checks: lowering counts a
definition's exit among its reads). The flag's Func loses its update
(nothing may read it after the loop: merge_cycles' `dropped`), unless it
is a tuple: the names the `break`'s branch sets (`ok = False`, `stop = k`)
carried with the flag, read after the loop. Then it keeps its update,
computed after A's nest from A's final values, which are those iteration
k found where it reads A only at points no iteration from k on writes
(`_scan_reads_final`, as for the sinks below).

`merge_outer_exit(emitter, A, G, UA, UG, vlog, ...)` does that and returns
the arrays of the other Funcs it gave the exit (check_order's sinks, below),
or returns None (the cycle is left to loop_cycles' cases) unless:
- G is a top-level scan over one RVar whose element that A reads (the
  flag; `_flag_index`) is false at the start and updated as
  `stop(k - 1) or test(k)` (test computed only where the
  flag is not set), read by A's last update, at `stop(k - 1)`, and
  otherwise only by check_order's scalar sinks of the loop (`f_unused`:
  the checks of `f = a[i, k] / a[k, k]`), which get the same exit; their
  nests run after A's and read A's final values, so there the test must
  read A only at k itself (no iteration from k on writes it);
- A's update with the flag unset is `if_then_else(c, new, old)` whose c is
  false where the test holds (the test comes before the inner loops);
- k is A's outermost RVar (the same loop) and A's update has inner RVars;
- the test reads A only at points no iteration k writes: a coordinate that
  A's update writes at an inner RVar v whose predicates state `e + 1 <= v`
  (or `e < v`) is read at e (LU: row k read, rows k + 1 .. written)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.simplify import equal_after_simplify, simplify

from .values import Arr


def merge_outer_exit(emitter, A, G, UA, UG, vlog, read_elsewhere, same_loops):
    fi = _flag_index(UA, G)
    if fi is None or len(UG.rvars) != 1 or UG.predicates or \
            UG.exit is not None or UA.exit is not None or len(UA.rvars) < 2 or \
            len(G.args) != 1 or not _is_false(G.pure.values[fi]):
        return None
    rg = UG.rvars[0]
    if not (isinstance(UG.args[0], ir.Variable) and UG.args[0].name == rg.name):
        return None
    flag = _flag_call(G, fi)
    test = _test(G, UG, rg, flag, fi)
    if test is None:
        return None
    keep = len(G.output_types) > 1
    if keep and not _scan_reads_final(A, UA, G, UG, rg):
        return None
    # the other readers of G: check_order's sinks of the loop (`f_unused`,
    # the checks of `f = a[i, k] / a[k, k]`), which read A after its nest
    sinks = [R for R in _readers(emitter, G) if R is not A]
    arrs = [_array_of(emitter, R) for R in sinks]
    if any(o is None or not _sink(o, R, G) for o, R in zip(arrs, sinks)) or \
            read_elsewhere(emitter, [A, *sinks], G):
        return None
    plans = [_plan(A, B.updates[-1], G, UG, rg, test, vlog, same_loops, B, flag)
             for B in [A, *sinks]]
    if any(p is None for p in plans):
        return None
    for d, values, predicates, exit_ in plans:
        d.values = values
        d.predicates[:] = predicates
        d.exit = exit_
        d.exit_outer = True
    if not keep:
        G.updates.clear()
    return arrs


def _flag_index(UA, G):
    """The element of G that A's update reads (the stop flag: G is a tuple
    where the loop also carries the names the `break`'s branch sets), or
    None unless A reads one element of G."""
    found = {c.value_index for c in ir.find_calls([*UA.values, *UA.predicates, *UA.args])
             if c.call_type == ir.FUNC and c.func is G}
    return found.pop() if len(found) == 1 else None


def _flag_call(G, fi):
    return lambda n: isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func is G and \
        n.value_index == fi


def _scan_reads_final(A, UA, G, UG, rg) -> bool:
    """Where G keeps its update (a tuple: the names the `break`'s branch sets,
    `ok = False`, are read after the loop): G is then computed after A's
    nest and reads A's final values, which are those iteration k found
    where each read of A in G's update is at a point no iteration from k
    on writes (the sinks' condition)."""
    ka = _outer_var(UA)
    return ka is not None and all(
        _reads_unwritten(A, UA, ir.substitute(v, {rg.name: ka}), ka.name, True, G)
        for v in UG.values)


def _outer_var(U):
    """The Variable of U's outermost RVar as U's expressions use it, or None."""
    return next((v for e in [*U.args, *U.values, *U.predicates]
                 for n, v in ir.free_vars(e).items() if n == U.rvars[-1].name), None)


def _readers(emitter, G) -> list:
    out = []
    for _, f, _ in emitter.funcs:
        fn = f.function() if hasattr(f, "function") else None
        if fn is not None and fn is not G and all(fn is not o for o in out) and \
                any(_calls(d, G) for d in fn.definitions()):
            out.append(fn)
    return out


def _array_of(emitter, R):
    """The Arr whose version R is, or None (one Arr only)."""
    arrs = {id(o): o for _, f, o in emitter.funcs
            if isinstance(o, Arr) and hasattr(f, "function") and f.function() is R}
    return next(iter(arrs.values())) if len(arrs) == 1 else None


def _sink(o, R, G) -> bool:
    """Whether R, a version of Arr o, is a scalar written by the loop that
    check_order stores a value's checks into (o.sink, read by nothing in
    the function; its Func's name is `f_unused` or, after another Func of
    that name in the process, `f_unused$1`), and only its last update reads
    G."""
    return o.sink and not R.args and bool(R.updates) and \
        not any(_calls(d, G) for d in R.definitions()[:-1])


def _calls(d, fn) -> bool:
    exprs = [*d.values, *d.predicates, *d.args]
    return any(c.call_type == ir.FUNC and c.func is fn for c in ir.find_calls(exprs))


def _plan(A, U, G, UG, rg, test, vlog, same_loops, B, flag):
    """(U, values, predicates, exit) of B's update U (A's or a sink's) with
    the flag read as unset and the test as its exit at the outermost loop;
    None unless U's outermost RVar is G's loop, U reads the flag at k - 1
    only, is skipped where the test holds, and the test reads A only at
    points iteration k does not write (A's) or no iteration from k on
    writes (a sink's, computed after A's nest)."""
    if U.exit is not None or len(U.rvars) < 2:
        return None
    loops = same_loops(vlog, B, G)
    outer = U.rvars[-1]
    if not loops or rg.name not in loops or loops[rg.name].name != outer.name or \
            not (ir.equal(outer.min, rg.min) and ir.equal(outer.extent, rg.extent)):
        return None
    k = _outer_var(U)
    if k is None:
        return None
    exit_ = ir.substitute(test, {rg.name: k})
    UA = A.updates[-1]
    ka = _outer_var(UA)
    if ka is None or not _reads_unwritten(A, UA, ir.substitute(test, {rg.name: ka}), ka.name,
                                          B is not A):
        return None
    prev = ir.Sub(k, ir.index(1))
    calls = [c for c in ir.find_calls([*U.values, *U.predicates, *U.args])
             if c.call_type == ir.FUNC and c.func is G]
    if not all(flag(c) and len(c.args) == 1 and equal_after_simplify(c.args[0], prev)
               for c in calls):
        return None
    fv = UG.values[calls[0].value_index] if calls else None
    stops = fv.condition if isinstance(fv, ir.Select) else None
    if stops is None or not _skipped(U, flag, ir.substitute(stops, {rg.name: k})):
        return None         # (the test follows the inner loops in the body)
    no_stop = _replacer(flag, False)
    sk = ir.substitute(stops, {rg.name: k})
    no_test = _replacer(lambda n: isinstance(n, ir.Expr) and ir.equal(n, sk), False)

    def clean(e):
        return simplify(no_stop.mutate(no_test.mutate(e)))
    return (U, tuple(clean(v) for v in U.values), [clean(p) for p in U.predicates], exit_)


def _replacer(match, flag: bool):
    return ir.FuncMutator(lambda n: ir.Const(ir.Bool(), flag) if match(n) else None)


def _skipped(U, flag, stops) -> bool:
    """Whether U does nothing where `stops` (G's condition for the flag to be
    set at this iteration) holds and the flag is unset: its predicates are
    false there, or each value is a (lazy) select whose condition is. The
    update is skipped at the iteration whose test holds (the `break` comes
    before the inner loops), not only at the later ones."""
    def there(e):
        e = _replacer(lambda n: isinstance(n, ir.Expr) and ir.equal(n, stops), True).mutate(e)
        e = _replacer(flag, False).mutate(e)
        return _false(simplify(e))
    if U.predicates and there(ir.conjunction(list(U.predicates))):
        return True
    conds = [v.args[0] if ir.is_lazy_select(v) else v.condition if isinstance(v, ir.Select)
             else None for v in U.values]
    return all(c is not None and there(c) for c in conds)


def _false(e) -> bool:
    """Whether e is false: the constant, a conjunction with a false part,
    or a (lazy) select false on both sides."""
    if isinstance(e, ir.And):
        return _false(e.a) or _false(e.b)
    if ir.is_lazy_select(e):
        return _false(e.args[1]) and _false(e.args[2])
    if isinstance(e, ir.Select):
        return _false(e.true_value) and _false(e.false_value)
    return _is_false(e)


def _is_false(e) -> bool:
    return isinstance(e, ir.Const) and e.type == ir.Bool() and not e.value


def _test(G, UG, rg, flag, fi):
    """test(k) of `stop(k) = stop(k - 1) or test(k)` (G's element fi): UG's
    value with stop(k - 1) false, where with it true the value is true;
    else None."""
    prev = ir.Sub(UG.args[0], ir.index(1))
    value = UG.values[fi]
    calls = [c for c in ir.find_calls([value]) if c.call_type == ir.FUNC and c.func is G]
    if not calls or not all(flag(c) and len(c.args) == 1 and
                            equal_after_simplify(c.args[0], prev) for c in calls):
        return None

    def at(set_):
        return simplify(_replacer(flag, set_).mutate(value))
    stopped, test = at(True), at(False)
    if not (isinstance(stopped, ir.Const) and stopped.value):
        return None
    if any(c.call_type == ir.FUNC and c.func is G for c in ir.find_calls([test])):
        return None
    return test


def _reads_unwritten(A, UA, test, k_name, later: bool, own=None) -> bool:
    """Whether every read of A in `test` (an expression of the loop over
    k_name only) is at a point A's update does not write in that iteration;
    `later`: nor in any later one (read at k itself where iteration k'
    writes from k' + 1 on). Reads of `own` (G in its own update) are not
    reads of A."""
    reads = [c for c in ir.find_calls([test]) if c.call_type == ir.FUNC and c.func is not own]
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
                   equal_after_simplify(c.args[pos], e) and
                   (not later or (isinstance(e, ir.Variable) and e.name == k_name))
                   for pos, w in enumerate(UA.args) for v, e in below):
            return False
    return True


def _conjuncts(p):
    if isinstance(p, ir.And):
        return _conjuncts(p.a) + _conjuncts(p.b)
    return [p]
