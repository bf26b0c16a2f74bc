"""Loops: `for v in range(...)` nests become pure definitions over Vars and
update definitions over RDoms in Python loop order. Scalars a loop carries
form one tuple-valued Func ("group") whose type is what Python's promotion
makes it after one iteration; a group whose running value is read by other
definitions inside the loop is a scan (one value per iteration)."""
from __future__ import annotations

import ast

from pyhalide import ir
from pyhalide.checks import checked_value, is_check_read

from . import (
    array_store_loops,
    carried_arrays,
    complex_loops,
    deps,
    loop_scans,
    loop_start,
    loop_trips,
    ops,
    unions,
)
from .analyze import assigned_in_nested_loop, carried, home
from .arrayexpr import ArrayExpr
from .context import single_aff
from .emit import FirstInfo
from .imperative_nests import merge_imperative
from .lifted import LiftedFunc
from .loop_bound_reach import reached_only
from .loop_bounds import affine_bounds, unguarded
from .loop_cycles import cross_reads, merge_cycles
from .loop_exits import EXIT_ATTR, UNBOUNDED_ATTR, describe_name
from .loop_params import index_param
from .loop_state import Frame, Group
from .names import user_name
from .ranges import INT32, INT64, Aff, n_union, n_within
from .scan_nests import merge_scan_nests
from .types import PY_BOOL
from .unbound_reads import after_loop, carry_flags, flag_name
from .values import Arr, Loop, MaybeUnbound, Val, const_val, fresh, loop_symbol


def _static_aff(a, sym_static) -> bool:
    """An Aff over argument symbols only, not a bound from a type's range
    (a constant of 2**30 or more)."""
    return all(s in sym_static for s in a.terms) and abs(a.c) < 2**30


def _type_edge(a) -> bool:
    """An Aff whose constant is near or past an end of int32 (2**31 - 2**24
    or more): a bound from a type's range, not a program's constant."""
    return abs(a.c) >= 2**31 - 2**24


class LoopVarDone:
    """The value of a loop variable after its loop, or of an array value
    computed inside a loop (`array`), after the loop (not supported)."""

    def __init__(self, name, array=False, what=None):
        self.name = name
        self.array = array
        self.what = what        # the message of a read after the loop, or None


class LoopRunner:
    """Runs `for` loops: loop headers, typing passes, and the groups of
    scalars the loops carry.

    A loop nest runs twice and more: a typing pre-pass learns every write
    the nest makes; each group is typed by runs of its loop (the type
    fixpoint, then range inference) with `cx.typing` set, nothing emitted
    and the scope and loop state restored after; then the real run emits.

    Uses `evaluate(node, what)` (the interpreter's ev_val) for the bounds
    and `execute(stmts)` (its exec_block) for the body. Binds loop variables
    and state in `scope`; pushes loops, frames and groups on `state`;
    records placeholder resolutions on `emitter`; defines groups and
    flushes frames through `defs`; adds call-time checks to `cx`.
    """

    def __init__(self, cx, scope, state, emitter, defs, live, evaluate, execute):
        self.cx, self.scope, self.state = cx, scope, state
        self.emitter, self.defs, self.live = emitter, defs, live
        self.ev_val, self.exec_block = evaluate, execute
        self.bound_params = {}      # (id(For node), "start"/"stop") -> its int32 Param
        # (For node, Val): computes a bound's checks where the loop statement runs
        # (loop_bound_reach.sink; set by the Builder)
        self.bound_sink = None

    # loop headers -------------------------------------------------------------------

    def make_loop(self, node: ast.For) -> Loop:
        """The Loop of a `for` header (its checks: Context.in_loop_header)."""
        self.cx.in_loop_header += 1
        try:
            return self._make_loop(node)
        finally:
            self.cx.in_loop_header -= 1

    def _make_loop(self, node: ast.For) -> Loop:
        name = node.target.id
        if any(l.name == name for l in self.state.loops):
            raise self.cx.err(node.target, f"the loop variable {name!r} is already the variable of "
                                           f"an enclosing loop", hint="use another name")
        args = [self.ev_val(a, "an integer loop bound") for a in node.iter.args]
        # a bound whose integer type depends on the data means the same number
        args = [ops.to_python_int(self.cx, a) if a.union and all(
            t.is_int() or t.is_bool() for t in a.types()) else a for a in args]
        for a, where in zip(args, node.iter.args):
            if not (a.ty.is_int() or a.ty.is_bool()):
                raise self.cx.err(where, f"range() needs integers, got {a.ty.describe()}",
                                  hint="convert with int(...)")
            self._check_bound(a, where)
        # checks in the bounds raise only where Python evaluates them
        sink = None if self.bound_sink is None else lambda v: self.bound_sink(node, v)
        args = [reached_only(self.cx, a, sink) for a in args]
        if len(args) == 1:
            start, stop, step = const_val(0), args[0], const_val(1)
        elif len(args) == 2:
            start, stop, step = args[0], args[1], const_val(1)
        else:
            start, stop, step = args
        if not step.is_const:
            raise self.cx.err(node.iter.args[2], "the step of range() must be a constant",
                              hint="write the step as a literal (range(0, n, 2))")
        k = int(step.const)
        if k == 0:
            raise self.cx.err(node.iter.args[2], "range() arg 3 must not be zero")
        start = wide = ops.to_python_int(self.cx, start)
        stop = ops.to_python_int(self.cx, stop)
        # a call-time bound past 32 bits where the range is empty: one that fits
        body_ranges = []
        start, stop = loop_start.empty_static_bounds(self.cx, start, stop, k, body_ranges)
        bounds = []
        for v, which in ((start, "start"), (stop, "stop")):
            if v.is_static:
                v = index_param(self.cx, v, f"{self.cx.smap.loc(node.iter)}: this range()",
                                self.bound_params, (id(node), which))
            else:
                v = self._bound(v, node, which == "start")
            bounds.append(v)
        start, stop = bounds
        if start is None:       # clamped towards the stop: the same values (loop_start.py)
            start = loop_start.clamped_start(self.cx, wide, stop, k)
            start = self._bound(start if start is not None else wide, node, False)
        # (a range of 2**31 iterations or more: OverflowError, not a wrapped extent)
        stop = loop_trips.check_trips(self.cx, start, stop, k,
                                      f"{self.cx.smap.loc(node.iter)}: this range()", sink)
        sym = loop_symbol(name, node)
        if k > 0:
            lows, highs = start.lbs, [u.shift(-1) for u in stop.ubs]
            lo = start.lo
            hi = None if stop.hi is None else stop.hi - 1
        else:
            lows, highs = [l.shift(1) for l in stop.lbs], start.ubs
            lo = None if stop.lo is None else stop.lo + 1
            hi = start.hi
        self.cx.syms.add_loop(sym, lows, highs, lo, hi)
        self.cx.loop_bounds[sym] = (start, stop, k)
        loop = Loop(name, node, start, stop, k, self.cx.smap.loc(node), self.state.nest_id,
                    pure_var=self.state.pure_vars.setdefault(sym, self.emitter.new_var(name)),
                    lo=lo, hi=hi)
        loop.body_ranges = body_ranges
        self.state.headers[id(node)] = loop
        return loop

    def _bound(self, v: Val, node, clampable: bool):
        """A computed loop bound v as the loop takes it; None for a start
        (`clampable`) that does not fit in 32 bits, which make_loop then
        clamps to the stop."""
        if n_within(v.rng, INT32) and single_aff(v) is not None:
            return v
        exact = self.certified_bound(v, node)
        if exact is None:
            exact = self.hull_checked_bound(v, node)
        if exact is not None:
            return exact
        if n_within(v.rng, INT32):
            return v
        if clampable:
            return None
        raise self.cx.err(node.iter, "loop bounds must fit in 32 bits",
                          hint="build the bounds from array sizes, scalar arguments "
                               "and outer loop variables with +, - and constant "
                               "factors, min and max")

    def certified_bound(self, v: Val, node):
        """v with exact affine bounds, under a call-time check that the
        arithmetic computing it neither wraps nor leaves 32 bits (None if
        its form is not affine in loop variables and argument symbols, or
        if that check fails for every argument)."""
        n = ops.node_of(self.cx, v)
        sym_of = {l.sym: l.sym for l in self.state.loops}
        sym_of.update({sn.name: s for s, sn in self.cx.sym_nodes.items()
                       if isinstance(sn, ir.Variable) and s in self.cx.sym_static})
        found = affine_bounds(n, sym_of, INT32[0], INT32[1])
        if found is None:
            return None
        lbs, ubs, constraints = found
        bounded = []
        for ls, us, lo, hi in constraints:
            # (not a bound from a type's range: `j + lo` with j's start a min, whose
            # bound is the int32 range, would require lo >= 0; hull_checked_bound
            # bounds such a value by its hull)
            # (a side without a bound, None: a max's upper side, affine_bounds)
            lows = [c for a in ls for c in self.cx.syms.expand(a, False) if not _type_edge(c)] \
                if lo is not None else []
            highs = [c for a in us for c in self.cx.syms.expand(a, True) if not _type_edge(c)] \
                if hi is not None else []
            if (lo is not None and not lows) or (hi is not None and not highs) or \
                    any(s not in self.cx.sym_static for c in lows + highs for s in c.terms):
                return None
            bounded.append((lows, lo, highs, hi))
        if any(_never(self.cx, lows, lo, highs, hi) for lows, lo, highs, hi in bounded):
            return None     # (a bound known only from a type's range)
        for lows, lo, highs, hi in bounded:
            if lo is not None:
                self.cx.require(self.cx.smap.loc(node).line, lows, lo, None)
            if hi is not None:
                self.cx.require(self.cx.smap.loc(node).line, highs, None, hi)
        out = Val(unguarded(n), v.ty)
        lo = INT32[0] if v.lo is None else max(v.lo, INT32[0])
        hi = INT32[1] if v.hi is None else min(v.hi, INT32[1])
        out.set_range(lo, hi, list(dict.fromkeys(lbs + list(v.lbs))),
                      list(dict.fromkeys(ubs + list(v.ubs))))
        return out

    def hull_checked_bound(self, v: Val, node):
        """v (its own checks kept) where its hull over the enclosing loops is
        in argument symbols (_hull_choices): a call-time check that the hull
        is within 32 bits (the widened stop `min(lo - 1, i - 1) - 1` of a
        `while j >= lo` loop, `range(min(i, lo) - 2, n)` with lo a Python int
        argument, a merged loop's `max(0, n - i - 1) + max(0, m)`, whose int64
        forms certified_bound does not read). None if it has none."""
        line = self.cx.smap.loc(node).line
        reqs = []
        for upper, bound in ((False, INT32[0]), (True, INT32[1])):
            choices = self._hull_choices(v, upper, 0)
            if not choices:
                return None
            ones = [c[0] for c in choices if len(c) == 1]
            # some single bound fits; else each Aff of the first choice (the
            # hull is their max/min)
            reqs += [(ones, upper, bound)] if ones else [([a], upper, bound) for a in choices[0]]
        for cands, upper, bound in reqs:
            self.cx.require(line, cands, None if upper else bound, bound if upper else None)
        out = Val(ops.node_of(self.cx, v), v.ty, risky=v.risky)
        lo = INT32[0] if v.lo is None else max(v.lo, INT32[0])
        hi = INT32[1] if v.hi is None else min(v.hi, INT32[1])
        return out.set_range(lo, hi, list(v.lbs), list(v.ubs))

    def _hull_choices(self, v: Val, upper: bool, depth: int) -> list:
        """Upper (lower) bounds of v over the enclosing loops, in argument
        symbols, as a list of choices: each a list of Affs whose max (min)
        bounds v wherever v's checks pass (any one choice does). From v's
        own affine bounds (each a choice of one), a sum of two Python ints
        (context.sum_parts: the sums of its operands' first choices), or
        emit.hull_node (a max/min, through its guard and a constant offset:
        one choice, its operands' hulls)."""
        static = self.cx.sym_static
        own = [[c] for a in (v.ubs if upper else v.lbs) for c in self.cx.syms.expand(a, upper)
               if _static_aff(c, static)]
        if own:
            return own
        n = v.node
        while n is not None and checked_value(n) is not None:
            n = checked_value(n)
        for rec, a, b in (self.cx.sum_parts.values() if isinstance(n, ir.Add) and depth < 4
                          else ()):
            if rec is not n and not ir.equal(rec, n):
                continue
            ca, cb = self._hull_choices(a, upper, depth + 1), self._hull_choices(b, upper, depth + 1)
            if ca and cb:
                return [[x + y for x in ca[0] for y in cb[0]]]
        _, affs = self.emitter.hull_node(v, upper=upper, shift=0)
        if affs and all(_static_aff(a, static) for a in affs):
            return [affs]
        return []

    def _check_bound(self, v: Val, where):
        n = ops.node_of(self.cx, v)
        data = any(c.call_type != ir.INTRINSIC and not is_check_read(c)
                   for c in ir.find_calls(n)) or any(
            var.kind == "" and not (name in self.cx.syms.loops or name in self.state.ph_owner)
            for name, var in ir.free_vars(n).items())
        if data:
            raise self.cx.err(where, "loop bounds must not read array contents",
                              hint="loop over the whole range and skip iterations with `if`/"
                                   "`continue`")
        for name in ir.free_vars(n):
            if name in self.state.ph_owner:
                raise self.cx.err(where, "loop bounds must not depend on values computed in a "
                                         "loop", hint="compute the bound from array sizes, scalar "
                                                      "arguments and outer loop variables")

    # execution -------------------------------------------------------------------------
    def exec_for(self, node: ast.For):
        if not self.state.loops and not self.cx.typing:
            self.state.deferred_reads = None    # (none left by a nest that raised)
        if carried_arrays.applies(self, node) and \
                carried_arrays.CarriedLoop(self, node, LoopVarDone).run() is not False:
            return
        if self.state.frames and not self.state.frames[-1].top:
            self.defs.flush_frame(self.state.frames[-1], partial=True)
        top = not self.state.loops
        if top and not self.cx.typing:
            self.state.nest_id = id(node)
            self.state.nest_funcs_from = len(self.emitter.funcs)
            self.state.unconditional_starts = set()
            self.prepass(node)
            # conflicts the nest may resolve as one serial update (imperative_nests.py)
            deferred = self.state.deferred_reads = []
            deps.check_write_order(self.state.nest_writes, self.cx.smap_error,
                                   lambda arr, err: deferred.append((arr, None, err)),
                                   self.state.nest_id)
            self.defs.version_nest()
        logged, vlogged = len(self.emitter.def_log), len(self.emitter.var_log)
        loop = self.make_loop(node)
        new_groups = self.start_groups(node, loop)
        self.run_loop(node, loop, new_groups)
        for g in new_groups:
            self.finish_group(g)
        if top and not self.cx.typing:
            self._refuse_per_iteration_storage(node, self.emitter.def_log[logged:])
            merge_scan_nests(self.emitter, node, new_groups, self.emitter.def_log[logged:],
                             lambda at, msg, hint: self.cx.err(at, msg, hint=hint))
            dropped = merge_cycles(self.emitter, node, new_groups,
                                   self.emitter.def_log[logged:],
                                   self.emitter.var_log[vlogged:],
                                   lambda at, msg, hint: self.cx.err(at, msg, hint=hint))
            # (outer_exit's merge of a tuple flag keeps its Func's values)
            self._no_reads_after([g for g, _ in dropped if not g.func.function().updates],
                                 "carried by a loop that writes an array element it reads")
            array_store_loops.unflushed(self)      # phased stores all emitted
            deferred, self.state.deferred_reads = self.state.deferred_reads, None
            # a merged group's reads of its array are M's now
            deferred = [d for d in deferred
                        if not any(d[1] is g and d[0] is arr for g, arr in dropped)]
            deferred = cross_reads(deferred, dropped)
            self._no_reads_after(
                merge_imperative(self.emitter, self.cx.smap, node, deferred,
                                 self.emitter.def_log[logged:], self.emitter.var_log[vlogged:]),
                "summed and read by the array it helps compute")
            self.state.nest_id = None

    def _no_reads_after(self, groups, how):
        """The Funcs of merged `groups` no longer hold their values: a read
        of their names after the nest is refused."""
        for g in groups:
            for name in g.names[:g.base]:
                if name in self.scope.env:
                    self.scope.env[name] = LoopVarDone(name, what=(
                        f"{user_name(name)!r} is read after the loop nest in which it is "
                        f"{how}: not supported"))

    def _refuse_per_iteration_storage(self, node, defs):
        """A located error where a Func of the nest has a dimension per
        iteration of a `while` loop without a stated bound (loop_exits.py:
        its loop runs up to WHILE_LIMIT iterations, whose values would all be
        stored): a running value read inside the loop, array code in it."""
        for loop in ast.walk(node):
            if not (isinstance(loop, ast.For) and getattr(loop, UNBOUNDED_ATTR, False)):
                continue
            var = self.state.pure_vars.get(loop_symbol(loop.target.id, loop))
            # the loop's pure Var (a scan's state) and lifted.py's Vars for it
            # (`<name>_l`, `<name>_l_`, ...: a `while` loop's name is the rewrite's own)
            names = {var.name()} if var is not None else set()
            lifted = f"{loop.target.id}_l"
            for f, _, _, label in defs:
                if any(a in names or a.rstrip("_") == lifted for a in f.function().args):
                    raise self.cx.err(loop, f"this `while` loop has no bound the compiler can "
                                            f"state, and {user_name(label or f.name())!r} "
                                            f"would keep a value per iteration (a running value "
                                            f"read inside the loop, or array code in it): not "
                                            f"supported",
                                      hint="compare a counter with a bound in the condition "
                                           "(`while i < n and ...:` with `i += 1`), or write "
                                           "`for k in range(n):` with `if not cond: break`")

    def prepass(self, node):
        """Type the whole nest once, to learn every write it makes."""
        self.state.nest_writes = []
        saved = self._save()
        self.cx.typing += 1
        self.state.recording = True
        try:
            loop = self.make_loop(node)
            gs = self.start_groups(node, loop)
            self.run_loop(node, loop, gs)
        finally:
            self.cx.typing -= 1
            self.state.recording = False
            self._restore(saved)

    def _save(self):
        return (dict(self.scope.env), list(self.state.frames), list(self.scope.path),
                list(self.scope.alive),
                list(self.state.active_groups), dict(self.emitter.state_subst))

    def _restore(self, saved):
        env, frames, path, alive, groups, subst = saved
        self.scope.env = env
        self.state.frames = frames
        self.scope.path = path
        self.scope.alive = alive
        self.state.active_groups = groups
        self.emitter.state_subst = subst

    def run_loop(self, node, loop, new_groups):
        self.state.loops.append(loop)
        frame = Frame(loop)
        for g in self.state.active_groups + new_groups:
            if g.chain_nodes[-1] is node:
                frame.groups.append(g)
            if node in g.chain_nodes:
                g.chain.append(loop)
        self.state.active_groups.extend(new_groups)
        self.state.frames.append(frame)
        self.scope.alive.append(None)
        self.scope.env[loop.name] = loop.val
        for g in new_groups:
            self.enter_group(g)
        nested = [(g, g.chain_nodes.index(node)) for g in self.state.active_groups
                  if g.scan and not g.typing and g not in new_groups and node in g.chain_nodes]
        for g, depth in nested:
            self.defs.bind_state(g, depth)
        if getattr(node, EXIT_ATTR, False):
            # `if <stopped>: continue` opens the body (loop_exits.py): where the
            # test holds, the iteration and every later one do nothing
            self.state.exit_conds[id(node)] = ops.truth(self.cx, self.ev_val(node.body[0].test))
        before = dict(self.scope.env)
        # a bound clamped where the range is empty is within int32 in the body
        # (loop_start._narrowed); after the loop, its own range again
        saved = [(v, v.lo, v.hi, v.lbs, v.ubs) for v, _, _ in loop.body_ranges]
        for v, lo, hi in loop.body_ranges:
            v.set_range(lo, hi, v.lbs, v.ubs)
        try:
            self.exec_block(node.body)
            self.defs.flush_frame(frame)
            self._end_array_values(before)
            for g, depth in nested:
                self._after_nested_scan_loop(g, depth)
        finally:
            for v, lo, hi, lbs, ubs in saved:
                v.set_range(lo, hi, lbs, ubs)
            self.scope.alive.pop()
            self.state.frames.pop()
            self.state.loops.pop()
            for g in new_groups:
                self.state.active_groups.remove(g)
            for g in self.state.active_groups + new_groups:
                if node in g.chain_nodes and g.chain and g.chain[-1] is loop:
                    g.chain.pop()
        self.scope.env[loop.name] = LoopVarDone(loop.name)

    def _after_nested_scan_loop(self, g, depth):
        """After chain loop `depth` of a scan nest, in the body of the loop
        enclosing it: values computed before it read the state at that
        iteration's start again; the members are their state after it."""
        self.defs.bind_state(g, depth - 1)
        self.finish_group(g, depth)

    def _end_array_values(self, before):
        """Array values bound inside the loop hold one value per iteration:
        after the loop their names are not readable."""
        carried_names = {n for g in self.state.active_groups for n in g.names}
        for name, v in list(self.scope.env.items()):
            if before.get(name) is v:
                continue
            if isinstance(v, ArrayExpr) or (isinstance(v, Arr) and
                                            isinstance(v.func, LiftedFunc)):
                if name in carried_names:
                    raise self.cx.err(self.state.loops[-1].node,
                                      f"the array {name!r} computed inside this loop is read "
                                      f"after it or in its next iteration: not supported yet",
                                      hint="store what you need into an array created before "
                                           "the loop (out[i] = ...)")
                self.scope.env[name] = LoopVarDone(name, array=True)

    # groups ------------------------------------------------------------------------------
    def start_groups(self, node, loop) -> list:
        names = carried(node, self.live)
        active = complex_loops.bases(n for g in self.state.active_groups for n in g.names)
        specs = {}
        for v in names:
            if v in active:
                continue
            cur = self.scope.env.get(v)
            if isinstance(cur, (Arr, ArrayExpr)):
                raise self.cx.err(node, f"the array {v!r} is given a new value in this loop and "
                                        f"read after it or in its next iteration: array code that carries "
                                        f"arrays from one iteration to the next is not "
                                        f"supported yet",
                                  hint="write the loop with element assignments into an array "
                                       "created before the loop (a[i] = ...)")
            if isinstance(cur, LoopVarDone):
                cur = None
            chain = home(node, v)
            inner = assigned_in_nested_loop(chain[-1], v)
            if inner is not None:
                line = self.cx.smap.loc(chain[-1]).line
                raise self.cx.err(inner, f"{describe_name(v)} is assigned both in this loop and in the loop at "
                                         f"line {line} that encloses it",
                                  hint="update a variable at one loop depth only (use a separate "
                                       "variable for the inner loop and combine after it)")
            key = tuple(id(n) for n in chain)
            specs.setdefault(key, (chain, []))[1].extend(
                complex_loops.members(self.cx, self.scope.env, v))
        groups = []
        for chain, vs in specs.values():
            g = Group(vs, chain, self.state.loops, self.cx.smap.loc(chain[-1]))
            self.create_group(g, node, loop)
            groups.append(g)
        return groups

    def create_group(self, g: Group, node, loop):
        g.typing = bool(self.cx.typing)
        g.init = []
        g.unbound = []
        for v in g.names:
            cur = self.scope.env.get(v)
            if isinstance(cur, Val):
                g.init.append(cur)
                g.unbound.append(False)
            else:
                g.init.append(None)
                g.unbound.append(True)
        g.base = len(g.names)
        if self.cx.typing:
            self.defs.mark_start_reads(g)
        self._add_unbound_flags(g)
        # the type fixpoint: a member's loop type is the type the loop gives
        # it (what Python's promotion makes it after one iteration); while
        # probing, a member whose initial value has another type is read as
        # "its initial value until the loop has given it its type"
        tys = [_first_type(v) for v in g.init]
        g.probing = True
        for _ in range(8):
            g.tys = tys
            new = self.typing_run(g, node)
            new_tys = [self._next_type(g, k, nv, t, node)
                       for k, (nv, t) in enumerate(zip(new, tys))]
            if new_tys == tys:
                break
            tys = new_tys
        else:
            raise self.cx.err(node, f"the type of {_names(g.names)} keeps changing from one "
                                    f"iteration to the next",
                              hint="start it with a NumPy value of the final type, e.g. "
                                   "np.float64(0)")
        g.probing = False
        for k, t in enumerate(tys):
            if t is None:
                raise self.cx.err(node, f"{describe_name(g.names[k])} is never assigned in this "
                                        f"loop")
        g.tys = tys
        self._add_tags(g, node, new)
        self._add_assigned_flags(g, node)
        carry_flags(g, self._add_flag)
        if g.scan_needed:
            if len(g.chain_nodes) != 1 and not self._nest_scan_ok(g):
                raise self.cx.err(node, f"the running value of {_names(g.names)} is read "
                                        f"inside a loop nest it accumulates over, whose bounds "
                                        f"depend on each other",
                                  hint="a scan (reading the running value) is supported over a "
                                       "single loop or loops with independent bounds; store "
                                       "per-row results in an array instead")
            g.scan = True
        g.ranges = self.infer_ranges(g, node) if not self.cx.typing else \
            [(None, None)] * len(g.names)
        g.store = []
        for t in g.tys:
            # Python ints live in int64 (their ranges only decide where checks go)
            g.store.append(ir.Int(64) if t.kind == "int" else t.ir())
        if not self.cx.typing:
            self.defs.define_group(g, node, loop)

    def _nest_scan_ok(self, g) -> bool:
        """Whether a scan over g's loop nest can be compiled (loop_scans.py):
        the chain loops' bounds do not depend on each other."""
        return loop_scans.rectangular(self.state, g)

    def _next_type(self, g, k, nv, cur, node):
        """A member's loop type after one more typing run: the type the loop
        gives it, other than its initial value's."""
        if nv is None:
            return cur
        types = []
        for _, v in unions.alternatives(nv):
            if isinstance(v, MaybeUnbound):
                continue
            if v.ty not in types:
                types.append(v.ty)
        init = g.init[k]
        init_tys = {v.ty for _, v in unions.alternatives(init)} if init is not None else set()
        new = [t for t in types if t not in init_tys]
        strong = [t for t in new if not t.weak]
        if len(new) > 1 and cur is None and g.unbound[k] and len(strong) == 1:
            # the first typing run read the unassigned member as a bool
            # placeholder (unbound_reads.py), whose arithmetic gave the Python
            # types: the next runs check the NumPy type the loop assigns
            return strong[0]
        if len(new) > 1:
            raise self.cx.err(node, f"the type of {describe_name(g.names[k])} after an iteration "
                                    f"depends on the data "
                                    f"({' or '.join(t.describe() for t in new)})",
                              hint="convert the values assigned to it to one type, or start it "
                                   "with a NumPy value of the type it should have")
        if new:
            return new[0]
        if cur in types or not types:
            return cur
        if len(types) == 1:
            return types[0]
        raise self.cx.err(node, f"the type of {describe_name(g.names[k])} after an iteration "
                                f"depends on the data ({' or '.join(t.describe() for t in types)})",
                          hint="start it with a value of the type it should have")

    def _add_tags(self, g: Group, node, new):
        """A member that keeps its initial value, of another type than the
        loop's, on some path (`m = 1000; m = max(m, a[i])` with uint8 a: m
        stays the Python int 1000 unless an element wins) gets a bool element,
        its tag: true once the member has the loop's type. Where the loop
        variable, read exactly, would compute the same with the initial value
        converted to the loop's type, the value element starts from that
        conversion and its update reads only itself ("peeled"); otherwise
        both are read under the tag."""
        if g.tags_added:
            return
        g.tags_added = True
        g.tag_of = {}
        g.other_of = {}
        g.peel = {}
        for k in range(g.base):
            init, t, nv = g.init[k], g.tys[k], new[k]
            if init is None or nv is None or g.unbound[k]:
                continue
            tag_ph = g.probe_tag.get(k)
            others = [(c, v) for c, v in unions.alternatives(nv)
                      if v.ty != t and _possible(c, tag_ph)]
            if not others:
                continue
            name = g.names[k]
            init_alts = {v.ty: v for _, v in unions.alternatives(init)}
            other_ty = others[0][1].ty
            keeps_init = all(v.ty in init_alts and _same_value(v, init_alts[v.ty])
                             for _, v in others)
            if not keeps_init and (any(v.ty != other_ty for _, v in others) or init.union or
                                   init.ty != other_ty):
                raise self.cx.err(node, f"{describe_name(name)} is a {t.describe()} on some paths "
                                        f"of this loop "
                                        f"and a {other_ty.describe()} on others, in a way that "
                                        f"cannot be compiled exactly",
                                  hint=f"start it with a value of type {t.describe()} (e.g. "
                                       f"{_example(t)}), or convert what is assigned to it")
            tag = name + "?tag"
            g.tag_of[name] = tag
            g.names.append(tag)
            g.init.append(const_val(False))
            g.tys.append(PY_BOOL)
            g.unbound.append(False)
            if not keeps_init:
                # its value of the other type changes too: an element holds it
                other = name + "?other"
                g.other_of[name] = other
                g.names.append(other)
                g.init.append(init)
                g.tys.append(other_ty)
                g.unbound.append(False)
                continue
            peeled = self._peeled_start(g, k, nv)
            if peeled is not None:
                g.peel[name] = peeled

    def _peeled_start(self, g, k, nv):
        """The loop-type constant equal to the initial value, if the update
        read with the member at that constant is the exact update (see
        _add_tags); else None."""
        init, t = g.init[k], g.tys[k]
        if init.union or not init.is_const:
            return None
        start = _exact_const(init.const, t)
        if start is None:
            return None
        tag, p = g.probe_tag[k], g.ph[k].name
        alts = unions.alternatives(nv)
        tl = [(c, v) for c, v in alts if v.ty == t]
        if len(tl) != 1:
            return None
        c, v = tl[0]
        # once the member has the loop type it keeps it
        for c2, v2 in alts:
            if v2.ty != t and not ir.is_const(_sub(c2.node, {tag: True}), False):
                return None
        cond0 = _sub(c.node, {tag: False, p: start}) if c is not None else \
            ir.Const(ir.Bool(), True)
        e1 = _sub(v.node, {tag: True, p: start})
        e2 = _sub(v.node, {tag: False, p: start})
        if not ir.equal(e1, e2):
            return None
        if ir.is_const(cond0, True) or ir.equal(e1, start):
            return start
        sel = _select_parts(e1)
        if sel is not None and ir.equal(sel[0], cond0) and ir.equal(sel[2], start):
            return start
        return None

    def _add_unbound_flags(self, g: Group):
        """Members unassigned before the loop get a bool element recording
        that the loop assigned them (unbound_reads.py: a read before raises
        UnboundLocalError), before the typing runs, which see the reads."""
        for k in range(g.base):
            if g.unbound[k]:
                self._add_flag(g, g.names[k])

    def _add_flag(self, g: Group, name: str):
        flag = flag_name(name)
        g.names.append(flag)
        g.init.append(const_val(False))
        g.tys.append(PY_BOOL)
        g.unbound.append(False)
        g.flag_of[name] = flag

    def _add_assigned_flags(self, g: Group, node):
        """Members whose value after the loop is what Python returns only if
        the loop assigned them get a bool element recording that: members
        first assigned in the loop (_add_unbound_flags), and members whose
        type the loop changes when whether the loop ran is not a condition
        on its bounds."""
        if g.flags_added:
            return
        g.flags_added = True
        # whether the loop ran says whether it assigned them, unless a condition
        # outside the loop skips the update
        ran_known = self.state.ran_condition_known(g) and not g.skippable
        for k in range(g.base):
            init, t = g.init[k], g.tys[k]
            name = g.names[k]
            if name in g.tag_of or name in g.flag_of or init is None:
                continue
            if ran_known or not (init.union or init.ty != t):
                continue
            self._add_flag(g, name)

    def typing_run(self, g: Group, node):
        saved = self._save()
        self.cx.typing += 1
        was_typing = g.typing
        g.typing = True
        try:
            loop = self.make_loop(node)
            g.new_vals = None
            others = self.start_groups_except(node, loop, g)
            self.run_loop(node, loop, [g] + others)
            new = g.new_vals or [None] * len(g.names)
        finally:
            self.cx.typing -= 1
            g.typing = was_typing
            self._restore(saved)
        return new

    def start_groups_except(self, node, loop, g):
        # other groups starting at this loop (different homes) are typed too
        names = set(g.names)
        saved_active = list(self.state.active_groups)
        self.state.active_groups = self.state.active_groups + [g]
        try:
            gs = self.start_groups(node, loop)
        finally:
            self.state.active_groups = saved_active
        return [x for x in gs if not set(x.names) & names]

    def infer_ranges(self, g: Group, node):
        """Numeric ranges of Python-int state: a few rounds of iteration, then
        a bound on the growth per iteration times the trip count."""
        inits = []
        for v, t in zip(g.init, g.tys):
            if t.kind != "int":
                inits.append(None)
            elif v is None:
                inits.append((None, None, True))
            else:
                inits.append((v.lo, v.hi, False))
        if all(i is None for i in inits):
            return [(None, None)] * len(g.names)
        cur = [(i[0], i[1]) if i is not None and not i[2] else None for i in inits]
        g.range_syms = [fresh(f"st_{n}") for n in g.names]
        result = None
        last_new = None
        for _ in range(3):
            g.cur_ranges = cur
            new = self.typing_run(g, node)
            nxt = []
            stable = True
            for k, (i, nv) in enumerate(zip(inits, new)):
                if i is None:
                    nxt.append(None)
                    continue
                r = (nv.lo, nv.hi) if nv is not None else (None, None)
                merged = r if cur[k] is None else n_union(cur[k], r)
                if merged != cur[k]:
                    stable = False
                nxt.append(merged)
            if stable:
                result = cur
                break
            cur = nxt
            last_new = new
        if result is None:
            result = self._growth_ranges(g, inits, last_new)
            result = self._inductive_ranges(g, node, inits, result, last_new)
        g.cur_ranges = None
        return [r if r is not None else (None, None) for r in result]

    def _trip(self, g):
        """The most iterations the group's loops run in all, or None."""
        trip = 1
        for n in g.chain_nodes:
            l = self.state.headers.get(id(n))
            if l is None or l.max_trip is None:
                return None
            trip *= l.max_trip
        return trip

    def _growth_ranges(self, g, inits, new):
        trip = self._trip(g)
        out = []
        for k, (i, nv) in enumerate(zip(inits, new)):
            if i is None or nv is None or trip is None or i[2]:
                out.append((None, None) if i is not None else None)
                continue
            sym = g.range_syms[k]
            hi = self._growth_bound(nv.ubs, sym, True, i[1], trip)
            lo = self._growth_bound(nv.lbs, sym, False, i[0], trip)
            r = (lo, hi)
            out.append(r if n_within(r, INT64) else (None, None))
        return out

    def _inductive_ranges(self, g, node, inits, result, new):
        """result, where a side bounded by a constant (a bound not growing with
        the member, _growth_bound's k == 0) holds for one more iteration from
        the ranges result states; else that side bounded by the growth per
        iteration alone, or unknown. (A constant can come from the ranges the
        last round assumed, as the numeric bound of a select between the
        member and its product, and then bounds nothing.)"""
        if not any(r is not None and r != (None, None) for r in result):
            return result
        g.cur_ranges = result
        got = self.typing_run(g, node)
        out = list(result)
        for k, (r, nv) in enumerate(zip(result, got)):
            if r is None or r == (None, None):
                continue
            lo, hi = r
            if hi is not None and (nv is None or nv.hi is None or nv.hi > hi):
                hi = self._growth_bound(new[k].ubs, g.range_syms[k], True, inits[k][1],
                                        self._trip(g), grows=True)
            if lo is not None and (nv is None or nv.lo is None or nv.lo < lo):
                lo = self._growth_bound(new[k].lbs, g.range_syms[k], False, inits[k][0],
                                        self._trip(g), grows=True)
            out[k] = (lo, hi) if (lo, hi) == r or n_within((lo, hi), INT64) else (None, None)
        return out

    def _growth_bound(self, bounds, sym, upper, init, trip, grows=False):
        if init is None or trip is None:
            return None
        best = None
        for b in bounds:
            k = b.terms.get(sym, 0)
            rest = Aff({s: c for s, c in b.terms.items() if s != sym}, b.c)
            if any(s.startswith("%st_") for s in rest.terms):
                continue
            d = self.cx.syms.numeric_of(rest, upper)
            if d is None:
                continue
            if k == 0 and not grows:
                cand = max(init, d) if upper else min(init, d)
            elif k == 1:
                cand = init + trip * max(0, d) if upper else init + trip * min(0, d)
            else:
                continue
            if best is None or (cand < best if upper else cand > best):
                best = cand
        return best

    def enter_group(self, g: Group):
        """Bind the group's state to placeholders for one iteration."""
        g.ph = []
        for k, (name, t) in enumerate(zip(g.names, g.tys)):
            if t is None:           # assigned only in the loop: its type is not known yet
                t = PY_BOOL
            st = g.store[k] if (g.store and not g.typing) else \
                (ir.Int(64) if t.kind == "int" else t.ir())
            p = ir.Variable(st, fresh(f"st:{name}"))
            g.ph.append(p)
            self.state.ph_owner[p.name] = g
            v = Val(p, t)
            if t.kind == "int":
                rng = None
                if g.typing and g.cur_ranges is not None:
                    rng = g.cur_ranges[k]
                    v.set_range(rng[0] if rng else None, rng[1] if rng else None,
                                [Aff.sym(g.range_syms[k])], [Aff.sym(g.range_syms[k])])
                elif not g.typing:
                    v.set_range(*g.ranges[k])
            elif t.is_int():
                it = t.ir()
                v.set_range(it.min_value(), it.max_value())
            self.scope.env[name] = _unbound_state(v) if g.unbound[k] else v
        # a member read as "its initial value until the loop gives it the
        # loop's type" (tagged members; every type-changing one while probing)
        g.probe_tag = {}
        g.first = None
        for k in range(g.base):
            name, init = g.names[k], g.init[k]
            if init is None or g.unbound[k]:
                continue
            tag_name = g.tag_of.get(name)
            changes = init.union or init.ty != g.tys[k]
            if tag_name is not None:
                tag = self.scope.env[tag_name]
                if not g.typing and name in g.peel:
                    self.emitter.tag_peel[tag.node.name] = {g.ph[k].name: g.peel[name]}
            elif g.probing and changes:
                tag = Val(ir.Variable(ir.Bool(), fresh(f"tag:{name}")), PY_BOOL)
            elif changes and not g.typing:
                # its initial value in the first iteration, the loop's type after
                if g.first is None:
                    g.first = Val(ir.Variable(ir.Bool(), fresh(f"first:{g.label}")), PY_BOOL)
                    self.emitter.first_info[g.first.node.name] = FirstInfo(
                        {}, self.state.first_iteration(g), g.chain_nodes[0], [])
                info = self.emitter.first_info[g.first.node.name]
                info.starts[g.ph[k].name] = g.start_node[k]
                info.members.append((name, " or ".join(
                    t.describe() for t in {v.ty: 0 for _, v in unions.alternatives(init)}),
                    g.tys[k].describe()))
                first = g.first
                self.scope.env[name] = unions.make_union(
                    self.cx, [(first, init), (unions.negate(self.cx, first), self.scope.env[name])])
                continue
            else:
                continue
            g.probe_tag[k] = tag.node.name
            other = g.other_of.get(name)
            before = self.scope.env[other] if other is not None else init
            self.scope.env[name] = unions.make_union(
                self.cx, [(tag, self.scope.env[name]), (unions.negate(self.cx, tag), before)])
        complex_loops.join(self.cx, self.scope.env, g.names)
        if not g.typing:
            self.defs.bind_state(g)

    def finish_group(self, g: Group, depth: int = 0):
        """After the loop: each member is the group's final value; a member
        whose type the loop changes is its initial value where the loop did
        not give it the loop's type. With `depth` > 0 (a scan nest): the
        same after chain loop `depth`, in the body of the loop enclosing it
        (the extra elements stay readable)."""
        finals = []
        for k, name in enumerate(g.names):
            t = g.tys[k]
            if g.typing:
                p = ir.Variable(g.store[k] if g.store else t.ir(), fresh(f"after:{name}"))
                v = Val(p, t)
            elif depth:
                v = Val(loop_scans.state_after(self.cx, self.state, g, depth, k), t)
            else:
                v = Val(self.defs.final_call(g, k), t,
                        origin=(g, k) if _is_own_final(g, k) else None)
            if t.kind == "int":
                if g.ranges:
                    v.set_range(*g.ranges[k])
            elif t.is_int():
                it = t.ir()
                v.set_range(it.min_value(), it.max_value())
            finals.append(v)
        for k in range(g.base):
            name, v, init = g.names[k], finals[k], g.init[k]
            tag = g.tag_of.get(name)
            flag = g.flag_of.get(name)
            if tag is not None:
                tv = finals[g.names.index(tag)]
                other = g.other_of.get(name)
                before = finals[g.names.index(other)] if other is not None else init
                v = unions.make_union(self.cx, [(tv, v), (unions.negate(self.cx, tv), before)])
            elif _type_changes(g, k):
                ran = finals[g.names.index(flag)] if flag is not None else self.state.ran_value(g)
                if not g.typing and k in g.start_node and ran.node is not None:
                    # select(ran, f(final), f(init)) is f(final) where f(init) is
                    # f(final) with final at its start (what a loop that did not
                    # run leaves in the Func)
                    self.emitter.ran_info.append((ran.node, v.node, g.start_node[k]))
                v = unions.make_union(self.cx, [(ran, v), (unions.negate(self.cx, ran), init)])
            elif flag is not None and not g.typing:
                # first assigned in the loop, or carried from an earlier loop's
                # flag (unbound_reads.carry_flags): unassigned where the flag is false
                v = after_loop(self.cx, v, finals[g.names.index(flag)], name)
            self.scope.env[name] = v
        if depth:
            for k in range(g.base, len(g.names)):
                self.scope.env[g.names[k]] = finals[k]
            complex_loops.join(self.cx, self.scope.env, g.names)
            return
        for name in g.names[g.base:]:
            self.scope.env.pop(name, None)
        complex_loops.join(self.cx, self.scope.env, g.names, drop=True)

    # frames --------------------------------------------------------------------------------


def _names(names) -> str:
    return ", ".join(describe_name(n) for n in names if "?" not in n or n[0] == "?")


def _never(cx, lows, lo, highs, hi) -> bool:
    """Whether a certified bound's check (some of `lows` >= lo and some of
    `highs` <= hi; None: that side unbounded) fails for every argument."""
    return (lo is not None and all(cx.syms.nonneg(Aff.const(lo - 1) - c) for c in lows)) or \
        (hi is not None and all(cx.syms.nonneg(c.shift(-hi - 1)) for c in highs))


def _type_changes(g: Group, k: int) -> bool:
    """Whether member k has an initial value whose type differs from the
    loop's type for it (or depends on data)."""
    init = g.init[k]
    return init is not None and (init.union or init.ty != g.tys[k])


def _is_own_final(g: Group, k: int) -> bool:
    """Whether member k's value after the loop is its final state itself
    (not a union with its initial value or its previous type), so that a
    returned value can name its group (Val.origin)."""
    return k < g.base and g.tag_of.get(g.names[k]) is None and not _type_changes(g, k)


def _first_type(v):
    if v is None:
        return None
    return unions.alternatives(v)[0][1].ty


def _possible(c, tag) -> bool:
    """Whether an alternative's condition can hold (False when it folds to
    false both before and after the member got the loop's type)."""
    if c is None or tag is None:
        return True
    return not all(ir.is_const(_sub(c.node, {tag: b}), False) for b in (True, False))


def _same_value(v, w) -> bool:
    """Whether two values are the same value (the same object or equal IR)."""
    if v is w:
        return True
    if v.ty != w.ty or v.node is None or w.node is None:
        return v.is_const and w.is_const and v.ty == w.ty and repr(v.const) == repr(w.const)
    return ir.equal(v.node, w.node)


def _exact_const(value, t):
    """The IR constant of type t equal to the Python/NumPy scalar value, if
    the conversion is exact (sign of zero included); else None."""
    import numpy as np
    try:
        conv = t.python_value(value) if t.weak else t.dtype.type(value)
    except (OverflowError, ValueError, TypeError):
        return None
    try:
        if t.is_float():
            same = (float(conv) == float(value) and
                    np.signbit(float(conv)) == np.signbit(float(value))) or \
                (conv != conv and value != value)
        elif t.is_bool():
            same = bool(conv) == bool(value) and (int(value) in (0, 1))
        else:
            same = int(conv) == value and float(value) == float(int(value))
    except (OverflowError, ValueError, TypeError):
        return None
    if not same:
        return None
    it = t.ir()
    if it.is_float():
        return ir.Const(it, float(conv))
    if it.is_bool():
        return ir.Const(it, bool(conv))
    return ir.Const(ir.Int(64) if t.kind == "int" else it, int(conv))


def _sub(node, mapping):
    """node with placeholders replaced (True/False for tags), folded."""
    m = {}
    for k, v in mapping.items():
        m[k] = ir.Const(ir.Bool(), v) if isinstance(v, bool) else v
    return unions.fold_constants(ir.substitute(node, m))


def _select_parts(e):
    if isinstance(e, ir.Select):
        return e.condition, e.true_value, e.false_value
    if isinstance(e, ir.Call) and e.call_type == ir.INTRINSIC and e.name == "if_then_else":
        return tuple(e.args)
    return None


def _example(t) -> str:
    if t.weak:
        return {"int": "0", "float": "0.0", "bool": "False"}[t.kind]
    return f"np.{t.dtype.name}(0)"


def _unbound_state(v):
    out = MaybeUnbound(v.node, v.ty)
    out.set_range(v.lo, v.hi, v.lbs, v.ubs)
    return out
