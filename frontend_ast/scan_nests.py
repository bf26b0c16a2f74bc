"""A running value of a top-level loop and an inner loop's reduction that
read each other: one serial update in Python's order (convergence loops).

    x = 1.0                                 X(it) = x's start
    for it in range(maxit):                 X(r) = f(X(r - 1), E(r))
        err = 0.0                           E(it) = 0.0
        for i in range(n):                  E(it) = E(it) + g(a(r_i), X(it - 1))
            err += abs(a[i] - x)
        x = x - 0.01 * err                  (and with `if err < tol: break`,
                                             X's stop flag reads E(r))

X's update reads E at its own iteration and E's update reads X at the
previous one, so each Func needs the other first (lowering's cycle error).
Both become the elements of one tuple Func M over X's dimension, updated by
ONE serial update whose RDom is (slot q, the loop's iteration r), q
innermost: slot m - 1 starts the reduction (E's pure definition at r),
slots [m, m + N) are the inner loop's iterations (E's update at r_i = q),
slot m + N is X's update:

    M(it) = (X's pure values, E's pure values at it)
    M(r) = (q == m + N ? f(M(r - 1)[x], M(r)[e]) : M(r)[x],
            q == m - 1 ? E's start : q == m + N ? M(r)[e] : g(a(q), M(r - 1)[x]))

Reads of X at the previous iteration are M's X elements there (final: that
iteration is over), reads of E at r are M's current E elements, so every
read sees what Python's read sees. `?:` is the lazy if_then_else: a slot
evaluates only its own phase (its index checks too). X and E become copies
of M's elements (a read of either after the loop reads M). An exit stated
on X's update (a `break`) becomes the merged update's: once the stop flag
is set no later iteration writes anything, so the loop over r is left (it
is not the innermost RVar: lowering/loop_exit.py keeps or drops it).
Anything else keeps lowering's cycle error."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.ir.function import FuncSchedule, copy_stage
from pyhalide.simplify import equal_after_simplify
from pyhalide.var import RDom

from .imperative_common import call, calls_of, exprs
from .loop_state import Group


def merge_scan_nests(emitter, node, groups, logged, err):
    """After a top-level nest `node` (`logged`: the emitter's def_log entries
    of its definitions): merge each scan of `groups` that reads an inner
    reduction made in the nest and is read by it (see the module doc);
    err(loop node, message, hint) makes the located error of such a pair
    that is not this case (the Funcs would call each other in a cycle)."""
    made = []
    for lf, _, _, _ in logged:
        fn = lf.function() if hasattr(lf, "function") else None
        if fn is not None and all(fn is not m for m in made):
            made.append(fn)
    # the Funcs of the nest's running values (loop_state.Group), not arrays
    reductions = {id(f.function()) for _, f, o in emitter.funcs
                  if isinstance(o, Group) and hasattr(f, "function")}
    for g in groups:
        if not g.scan or g.func is None:
            continue
        X = g.func.function()
        partners = [E for E in made if E is not X and id(E) in reductions and
                    any(calls_of(exprs(d), E) for d in X.definitions()) and
                    any(calls_of(exprs(d), X) for d in E.definitions())]
        if not partners:
            continue
        why = "the loop holds several inner loops whose values it reads" \
            if len(partners) > 1 else None
        if why is None and not (len(X.updates) == 1 and len(X.args) == 1 and
                                len(partners[0].updates) == 1 and len(partners[0].args) == 1 and
                                _merge(emitter, X, partners[0], made, _stop_member(g))):
            why = "not in the one form compiled (one inner loop over a range that does not " \
                  "read the loop's values, its value read by the loop after it)"
        if why is not None:
            names = ", ".join(_py_name(emitter, E) for E in partners)
            what = "the value" if len(partners) == 1 else "the values"
            raise err(node, f"this loop's running value {_py_name(emitter, X)} and {what} "
                            f"{names} of its inner loops read each other: {why}",
                      "compute what the inner loops compute in one inner loop "
                      "(e1 += ...; e2 = max(e2, ...)) whose values the loop reads after it")


def _py_name(emitter, fn) -> str:
    """The Python name a Func was made for (quoted), else its own name."""
    return next((repr(py) for py, f, _ in emitter.funcs
                 if hasattr(f, "function") and f.function() is fn), repr(fn.name))


def _stop_member(g):
    """The index in g of its loop's stop flag (a `break`), or None."""
    return next((k for k, n in enumerate(g.names) if n.startswith("?stop")), None)


def _merge(emitter, X, E, made, stop) -> bool:
    """Build the merged Func; False (nothing changed) when this is not such
    a case. `stop`: the element of X that is the loop's stop flag, or None."""
    UX, UE = X.updates[0], E.updates[0]
    if len(UX.rvars) != 1 or len(UE.rvars) != 1 or UE.exit is not None or \
            UX.exit is not None or \
            any(calls_of(exprs(d), E) or calls_of(exprs(d), X)
                for m in made if m is not X and m is not E for d in m.definitions()):
        return False
    rt, ri = UX.rvars[0], UE.rvars[0]
    it, eit = X.args[0], E.args[0]
    if not (isinstance(UX.args[0], ir.Variable) and UX.args[0].name == rt.name and
            isinstance(UE.args[0], ir.Variable) and UE.args[0].name == eit):
        return False
    if it in ir.free_vars(list(X.pure.values)) or eit in ir.free_vars(list(E.pure.values)):
        return False
    if eit in ir.free_vars(ri.min) or eit in ir.free_vars(ri.extent) or \
            calls_of([ri.min, ri.extent], X) or calls_of([ri.min, ri.extent], E):
        return False
    # U1: the inner loop's iterations (q) in each iteration t; U2: the
    # iterations when the inner loop runs none
    rdom1 = RDom([(Expr.wrap(ri.min), Expr.wrap(ri.extent)),
                  (Expr.wrap(rt.min), Expr.wrap(rt.extent))], f"r_{X.name}_seq")
    rdom2 = RDom([(Expr.wrap(rt.min), Expr.wrap(rt.extent))], f"r_{X.name}_empty")
    nX = len(X.output_types)
    Mf = emitter.new_func(X.name)
    M = Mf.function()
    M.args = ()
    M.output_types = tuple(X.output_types) + tuple(E.output_types)
    true = ir.Const(ir.Bool(), True)
    bad = []

    def mapper(t, e_vals):
        """Calls of X at t - 1 -> M's X elements there; calls of E at t ->
        e_vals."""
        def visit(n):
            if not (isinstance(n, ir.Call) and n.call_type == ir.FUNC and n.func in (X, E)):
                return None
            args = tuple(m.mutate(a) for a in n.args)
            want = ir.Sub(t, ir.index(1)) if n.func is X else t
            if len(args) != 1 or not equal_after_simplify(args[0], want):
                bad.append(n)
                return n
            return call(M, (), n.value_index) if n.func is X else e_vals[n.value_index]
        m = ir.FuncMutator(visit)
        return m.mutate

    def x_update(t, e_vals):
        mv = mapper(t, e_vals)
        new = [mv(ir.substitute(v, {rt.name: t})) for v in UX.values]
        pred = mv(ir.substitute(ir.conjunction(list(UX.predicates)) or true, {rt.name: t}))
        return [ir.lazy_select(pred, v, call(M, (), k)) for k, v in enumerate(new)]

    def starts(t):
        return [mapper(t, [])(ir.substitute(v, {eit: t})) for v in E.pure.values]

    # U1
    q, t = rdom1[0].node, rdom1[1].node
    first = ir.EQ(q, ri.min)
    last = ir.EQ(q, ir.Sub(ir.Add(ri.min, ri.extent), ir.index(1)))
    e_prev = [ir.lazy_select(first, s0, call(M, (), nX + k))
              for k, s0 in enumerate(starts(t))]
    ren_e = {eit: t, ri.name: q}
    me = mapper(t, e_prev)
    g = [me(ir.substitute(v, ren_e)) for v in UE.values]
    pred_e = me(ir.substitute(ir.conjunction(list(UE.predicates)) or true, ren_e))
    e_new = [ir.lazy_select(pred_e, v, o) for v, o in zip(g, e_prev)]
    values1 = [ir.lazy_select(last, v, call(M, (), k))
               for k, v in enumerate(x_update(t, e_new))] + e_new
    # U2
    t2 = rdom2[0].node
    s2 = starts(t2)
    values2 = x_update(t2, s2) + s2
    frees = ir.free_vars(values1 + values2)
    if bad or it in frees or eit in frees:
        return False
    M.pure = ir.Definition((), tuple(X.pure.values) + tuple(E.pure.values), [],
                           copy_stage(X.pure.schedule), X.pure.source, X.pure.rdom_name)
    M.schedule = FuncSchedule()
    M.source = X.source
    # once the stop flag is set nothing changes: the loops are left there
    exit_ = call(M, (), stop) if stop is not None else None
    emitter.define(Mf, (), values1, [], rdom1, None, label=X.name)
    M.updates[-1].source, M.updates[-1].exit = UX.source, exit_
    emitter.define(Mf, (), values2, [ir.LE(ri.extent, ir.index(0))], rdom2, None,
                   label=X.name)
    M.updates[-1].source, M.updates[-1].exit = UX.source, exit_
    for F, base in ((X, 0), (E, nX)):
        vars_ = tuple(ir.Variable(ir.INDEX, a) for a in F.args)
        F.pure = ir.Definition(vars_, tuple(call(M, (), base + k)
                                            for k in range(len(F.output_types))), [],
                               copy_stage(F.pure.schedule), F.pure.source, F.pure.rdom_name)
        F.updates = []
        F.schedule = FuncSchedule()
    return True
