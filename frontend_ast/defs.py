"""Making the definitions: loop state (groups) and array writes (cells)
become pure and update definitions; arrays get a new Func version when a
value read earlier must not see later writes."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

from pyhalide import checks, ir
from pyhalide.expr import Expr
from pyhalide.ir.flat_index import flat_index

from . import (
    array_complex,
    arrays,
    complex_loops,
    deps,
    forwarded_reads,
    hoisted_order,
    invariant_reads,
    loop_scans,
    ops,
    unions,
)
from .loop_state import Frame, Group
from .start_checks import start_checked
from .start_conditions import reads_allowed
from .types import PY_BOOL
from .values import Arr, MaybeUnbound, Val


def _phs(node, owner: dict) -> set:
    return {n for n in ir.free_vars(node) if n in owner}


class Definitions:
    """Loop state (groups) and array writes (cells) turned into definitions
    through the emitter; local arrays' pure definitions and their versions.

    Reads `scope` (the values state members have at the end of an
    iteration, the conditions around an update) and `state` (the active
    loops, the nest being emitted), marks groups of `state` as scans, and
    defines Funcs through `emitter`.

    Fields:
      read_sites  id(call node) -> (call node, (Arr, its Func then, active loops,
                  statement position, index nodes, nest id, Loc)) of each array read
      emitted_in  id(call node) -> (call node, {names of the Funcs whose
                  definitions contain it})
      copy_of     local Arr -> the Arr it is a copy of (arrays.ArrayAccess.copy_array)
      reads       local Arr -> [(epoch, call node)]: the reads of its current version
      written     local Arr -> the epoch of its last write (a new version at most
                  once per top-level statement)
      forwards    placeholder name -> (Arr, read call, written value) of each read
                  of an element written earlier in the iteration (forwarded_reads.py)
    """

    def __init__(self, cx, scope, state, emitter):
        self.cx, self.scope, self.state, self.emitter = cx, scope, state, emitter
        self.read_sites = {}
        self.emitted_in = {}
        self.copy_of = {}
        self.reads = {}
        self.written = {}
        self.forwards = {}

    # local arrays -------------------------------------------------------------------------
    def ensure_defined(self, arr: Arr):
        """Give a local array its pure definition (the fill value, or a copy)."""
        if isinstance(arr, array_complex.ComplexArr):
            return array_complex.ensure_defined(self, arr)
        if arr.kind != "local" or arr.defined or self.cx.typing:
            return
        f = self.emitter.new_func(arr.name, arr)
        vars_ = [self.axis_var(arr, k) for k in range(arr.ndim)]
        key = tuple(reversed(vars_))
        src = self.copy_of.get(arr)
        if src is not None:
            idx = [v.node for v in vars_]
            value = self.element_call(src, idx).node
            self.note_read(src, value)
        elif arr.fill is not None:
            value = ops.node_of(self.cx, arr.fill)
        else:
            value = ir.Const(arr.ty.ir(), 0)
        self.emitter.define(f, key, (value,), [], None, arr.loc, pure=True, label=arr.name)
        arr.func = f
        arr.defined = True
        arr.versions.append(f)

    def axis_var(self, arr, k):
        """The pure Var of NumPy axis k of arr (x for the last axis), never
        named like an argument (a Param of that name would be read instead)."""
        names = ("x", "y", "z", "w")
        rk = arr.ndim - 1 - k
        return self.emitter.new_var(names[rk] if rk < 4 else f"d{rk}")

    def element_call(self, arr: Arr, idx_nodes, risky=False) -> Val:
        """arr[idx] (NumPy axis order, int32 nodes) as a call."""
        args = tuple(Expr.wrap(n) for n in reversed(idx_nodes))
        if arr.kind == "input":
            e = arr.image[args] if args else arr.image[()]
            return Val(e.node, arr.ty, risky=risky)
        ref = arr.func[args] if args else arr.func[()]
        return Val(ref.node if len(ref) == 1 else ref[0].node, arr.ty, risky=risky)

    # frames -------------------------------------------------------------------------------
    def flush_frame(self, frame: Frame, partial: bool = False):
        for key in list(frame.order):
            self.emit_cell(frame.cells[key])
        frame.cells.clear()
        frame.order.clear()
        if partial:
            return
        for g in frame.groups:
            self.emit_group_update(g)

    # groups -----------------------------------------------------------------------------
    def define_group(self, g, node, loop):
        f = self.emitter.new_func(g.label, g)
        g.func = f
        g.scan_loop = loop if g.scan else None
        ctx = g.ctx
        key = tuple(l.pure_var for l in reversed(ctx))
        if g.scan:
            # one dimension per chain loop, innermost first (loop_scans.py)
            g.scan_var = self.emitter.new_var(loop.name)
            key = tuple(self.emitter.new_var(n.target.id) for n in reversed(g.chain_nodes[1:])) + \
                (g.scan_var,) + key
        vals = []
        ran = None
        g.start_node = {}
        for k, (v, t, st) in enumerate(zip(g.init, g.tys, g.store)):
            name = g.names[k]
            if v is None:
                vals.append(ir.Const(st, 0))
                continue
            if name in g.tag_of:
                # the value element of a tagged member: the exact conversion
                # of its initial value (peeled), or unused until the tag is set
                start = g.peel.get(name)
                vals.append(ops.cast(st, start) if start is not None else ir.Const(st, 0))
                continue
            cv = ops.convert_for_merge(self.cx, v, t)
            n = ops.node_of(self.cx, cv)
            if cv.risky and not v.risky and not g.flag_of.get(name):
                # the conversion can raise (a Python int out of the dtype's
                # range): only if the loop runs, as in Python
                if ran is None:
                    ran = ops.node_of(self.cx, self.state.ran_value(g))
                n = ir.Call(n.type, "if_then_else", (ran, n, ir.Const(n.type, 0)),
                            ir.INTRINSIC)
            g.start_node[k] = ops.cast(st, n)
            vals.append(g.start_node[k])
        mapping = {l.sym: l.pure_var.node for l in ctx}
        vals = self._start_under_ifs(vals, ctx, f)
        if self.scope.unconditional():
            self.state.unconditional_starts.add(f.name())
        vals = self.resolve_forwards(vals, target=g)
        self.check_reads(vals, g)
        self.mark_emitted(vals, f)
        vals = self.emitter.finalize(vals, mapping, f"the initial value of {g.label}")
        loc = self._init_loc(g)
        self.emitter.define(f, key, vals, [], None, loc, pure=True, label=g.label,
                            loops=[(l, l.pure_var) for l in ctx])

    def _start_under_ifs(self, vals, ctx, f) -> list:
        """A start value that reads with a run-time check (`c = x[j + 1]`
        before a loop under `if x[j] > flag`), computed where the `if`s
        around the loop hold and 0 elsewhere (the Func is computed over its
        whole region; its updates carry the condition themselves), when the
        condition cannot raise or Python evaluates it wherever the Func is
        (scope.test_reached: one `if`, reached in every iteration; a test
        holding a lazily checked read, `d = x[j + 1]` under an `if` before
        d's loop), reads only Funcs safe to read wherever the
        Func is (start_conditions.reads_allowed: defined before the nest and
        unable to raise, or an inner loop's result in the running iteration
        whose start Python computes there too) and names only the loops of
        the Func's dimensions. The Func's name goes to
        state.guarded_starts (check_order.LoopSinks stores its values)."""
        if not self.scope.condition_parts():
            return vals
        calls = ir.find_calls(list(vals))
        if not any(checks.is_check_read(c) for c in calls) and not start_checked(list(vals)):
            return vals
        cond = self.scope.current_condition()
        if cond is None or cond.risky and not self.scope.test_reached():
            return vals
        cond = ops.truth(self.cx, cond)
        if cond.is_const or cond.union or cond.risky and not self.scope.test_reached():
            return vals
        c = ops.node_of(self.cx, cond)
        syms = {l.sym for l in ctx}
        funcs = [fn.name() for _, fn, _ in self.emitter.funcs]
        cut = self.state.nest_funcs_from
        starts_kept = self.state.guarded_starts | self.state.unconditional_starts
        if not reads_allowed(c, set(funcs[:cut]), set(funcs[cut:]), starts_kept) or \
                not all(not n.startswith("%") or n in syms or self._scan_state(n)
                        for n in ir.free_vars(c)):
            return vals
        self.state.guarded_starts.add(f.name())
        return [v if ir.is_const(v) else
                ir.Call(v.type, "if_then_else", (c, v, ir.Const(v.type, 0)), ir.INTRINSIC)
                for v in vals]

    def _init_loc(self, g):
        return g.loc

    def bind_state(self, g, depth: int = 0):
        """State placeholders -> calls of the group's Func (at the current
        iteration for a reduction; for a scan, its state at the start of the
        running iteration of chain loop `depth`, loop_scans.py)."""
        if g.scan:
            for k, p in enumerate(g.ph):
                self.emitter.state_subst[p.name] = loop_scans.state_at_start(
                    self.cx, self.state, g, depth, k)
            return
        args = [Expr.wrap(l.var) for l in reversed(g.ctx)]
        ref = g.func[tuple(args)] if args else g.func[()]
        for k, p in enumerate(g.ph):
            call = ref[k].node if len(g.names) > 1 else ref.node
            self.emitter.state_subst[p.name] = call

    def final_call(self, g, k):
        if g.scan:
            return loop_scans.state_after(self.cx, self.state, g, 0, k)
        args = [Expr.wrap(l.var) for l in reversed(g.ctx)]
        ref = g.func[tuple(args)] if args else g.func[()]
        return ref[k].node if len(g.names) > 1 else ref.node

    def emit_group_update(self, g):
        complex_loops.split(self.cx, self.scope.env, g.names, g.chain_nodes[-1])
        news = []
        for name in g.names:
            v = self.scope.env.get(name)
            news.append(v if isinstance(v, Val) else None)
        if self.cx.typing:
            # a typing run (of g, or of a group of an inner loop: it reaches the
            # updates of the groups around it, which must not be defined again)
            # only learns types and reads
            if g.typing:
                g.new_vals = [None if (v is None or isinstance(v, MaybeUnbound)) else v
                              for v in news]
            for v in news:
                if v is not None:
                    for c, alt in unions.alternatives(v):
                        self._scan_marks(alt.node, g)
                        if c is not None:
                            self._scan_marks(c.node, g)
            # the condition of the update (an outer loop's `continue` on a flag
            # another group carries) reads that group's running value too
            outside = self.scope.condition_outside(len(self.scope.alive) - 1)
            if outside is not None:
                self._scan_marks(outside.node, g)
                g.skippable = True
            return
        for name, tag in g.tag_of.items():
            k, j = g.names.index(name), g.names.index(tag)
            nv = news[k]
            news[k], news[j] = self._tagged_update(g, k, j, nv)
            other = g.other_of.get(name)
            if other is not None and nv is not None:
                o = g.names.index(other)
                news[o] = next((v for _, v in unions.alternatives(nv) if v.ty == g.tys[o]), None)
        vals = []
        for k, (v, t, st) in enumerate(zip(news, g.tys, g.store)):
            if v is None:
                vals.append(g.ph[k])
                continue
            if v.union and g.first is not None:
                # alternatives that hold neither in the first iteration nor after
                first = g.first.node.name
                alts = [(c, x) for c, x in v.union if x.ty == t or
                        not all(ir.is_const(unions.fold_constants(ir.substitute(
                            c.node, {first: ir.Const(ir.Bool(), b)})), False)
                            for b in (True, False))]
                v = alts[0][1] if len(alts) == 1 else v
            if v.union:
                raise self.cx.err(g.chain_nodes[-1],
                                  f"internal error: {g.names[k]!r} has several types at the end of "
                                  f"an iteration ({unions.describe_types(v)})")
            cv = ops.convert_for_merge(self.cx, v, t) if v.ty != t else v
            vals.append(ops.cast(st, ops.node_of(self.cx, cv)))
        preds = []
        outside = self.scope.condition_outside(len(self.scope.alive) - 1)
        if g.scan:
            # a scan has a value at every iteration: where the update does not
            # run, it is the previous one (a predicate would leave the initial value)
            if outside is not None:
                vals = [ir.Select(outside.node, v, p) if v is not p else v
                        for v, p in zip(vals, g.ph)]
        else:
            if outside is not None:
                preds.append(outside.node)
            p, vals = _factor_condition(vals, g.ph)
            if p is not None:
                preds.append(p)
        exit_node = self._exit_condition(g)
        if exit_node is not None:
            if isinstance(exit_node, ir.Variable):
                # the update runs where the flag is false
                off = {exit_node.name: ir.Const(ir.Bool(), False)}
                vals = [unions.fold_constants(ir.substitute(v, off)) for v in vals]
            preds.append(ir.Not(exit_node))
        key_loops = list(g.ctx)
        mapping, rdom, tri, pairs = self.emitter.loop_vars(
            key_loops, list(g.chain), "r_" + "_".join(l.name for l in g.chain))
        key = [l.pure_var for l in reversed(g.ctx)]
        if g.scan:
            key = loop_scans.scan_key(g, mapping) + key
        vals, preds = self.resolve_forwards(vals, target=g), self.resolve_forwards(preds, target=g)
        if exit_node is not None:
            exit_node = self.resolve_forwards([exit_node], target=g)[0]
        self.check_reads(vals + preds, g)
        self.mark_emitted(vals + preds, g.func)
        vals = self.emitter.finalize(vals, mapping, f"the update of {g.label}")
        preds = self.emitter.range_guarded(
            tri, self.emitter.finalize(preds, mapping, f"the condition of {g.label}"))
        if exit_node is not None:
            exit_node = self.emitter.finalize([exit_node], mapping, f"the exit of {g.label}")[0]
        self.emitter.define(g.func, tuple(key), vals, preds, rdom, g.loc, label=g.label,
                            loops=pairs)
        g.func.function().updates[-1].exit = exit_node

    def _exit_condition(self, g):
        """The stop test of the group's innermost loop when the group holds
        the flag it reads (ir.Definition.exit), else None."""
        c = self.state.exit_conds.get(id(g.chain_nodes[-1]))
        if c is None or g.scan or c.is_const:
            return None
        owners = {self.state.ph_owner[n] for n in _phs(c.node, self.state.ph_owner)}
        return c.node if owners == {g} else None

    def _tagged_update(self, g, k, j, nv):
        """(value, tag) updates of a tagged member from its new value: the
        tag holds where the new value has the loop's type; a peeled member's
        update reads the member as having the loop's type, and its tag ORs in
        the condition under which the initial value turns into it."""
        t = g.tys[k]
        tag_name = g.ph[j].name
        p = g.ph[k]
        if nv is None:
            return None, None
        alts = unions.alternatives(nv)
        tl = [(c, v) for c, v in alts if v.ty == t]
        if not tl:
            return None, Val(ir.Const(ir.Bool(), False), PY_BOOL)
        c, v = tl[0]
        vnode = ops.node_of(self.cx, v)
        cnode = c.node if c is not None else ir.Const(ir.Bool(), True)
        start = g.peel.get(g.names[k])
        if start is None:
            return Val(vnode, t, risky=v.risky), Val(cnode, PY_BOOL, risky=c is not None and
                                                     c.risky)
        tv = ir.Const(ir.Bool(), True)
        fv = ir.Const(ir.Bool(), False)
        vnode = unions.fold_constants(ir.substitute(vnode, {tag_name: tv}))
        c0 = unions.fold_constants(ir.substitute(cnode, {tag_name: fv, p.name: start}))
        if ir.is_const(c0, False):
            tnode = g.ph[j]
        elif ir.is_const(c0, True):
            tnode = tv
        else:
            tnode = ir.Or(g.ph[j], c0)
        return Val(vnode, t, risky=v.risky), Val(tnode, PY_BOOL)

    def _scan_state(self, name) -> bool:
        """Whether placeholder `name` is the running value of an enclosing
        loop's group that is a scan (read at the running iteration) and
        starts without a check, or its "first iteration" test."""
        if name in self.emitter.first_info:
            return True
        owner = self.state.ph_owner.get(name)
        return owner is not None and owner.scan and owner in self.state.active_groups and \
            not start_checked(list(owner.start_node.values())) and \
            not any(checks.is_check_read(k) for k in ir.find_calls(list(owner.start_node.values())))

    def mark_start_reads(self, g):
        """In a typing run: a start value of g that reads the running value
        of an enclosing loop's group (`s += x[j]; c = s; for jj ...`) makes
        that group a scan, so that g's pure definition reads s at the
        running iteration, not its final value; so does the condition of
        the `if`s around g's loop where g's start value reads with a check
        (_start_under_ifs puts the condition on it)."""
        if self.scope.path:
            calls = ir.find_calls([ops.node_of(self.cx, v) for v in g.init if v is not None
                                   and not v.union])
            cond = self.scope.current_condition()
            if cond is not None and not cond.risky and not cond.union and \
                    any(checks.is_check_read(k) for k in calls):
                # over a single loop only: a scan over a nest may be refused
                for name in _phs(cond.node, self.state.ph_owner):
                    owner = self.state.ph_owner[name]
                    if owner is not g and owner in self.state.active_groups and \
                            len(owner.chain_nodes) == 1:
                        owner.scan_needed = True
        for v in g.init:
            if v is None:
                continue
            for c, alt in unions.alternatives(v):
                self._scan_marks(alt.node, g)
                if c is not None:
                    self._scan_marks(c.node, g)

    def _scan_marks(self, node, emitter):
        for name in _phs(node, self.state.ph_owner):
            owner = self.state.ph_owner[name]
            if owner is not emitter and owner in self.state.active_groups:
                owner.scan_needed = True

    # cells ------------------------------------------------------------------------------
    def emit_cell(self, cell):
        arr = cell.arr
        value = cell.value
        cond = cell.cond
        if cond is not None and cond.is_const:
            if not cond.const:
                return
            cond = None
        vnode = ops.node_of(self.cx, value)
        if self.forwards and not self.cx.typing:
            vnode = self.resolve_forwards([vnode], arr, cell)[0]
            cell.idx = self.resolve_forwards(list(cell.idx), arr, cell)
            if cond is not None:
                cond = Val(self.resolve_forwards([cond.node], arr, cell)[0], cond.ty)
        if self.cx.typing:
            for n in [vnode] + list(cell.idx) + ([cond.node] if cond is not None else []):
                self._scan_marks(n, None)
            if self.state.recording:
                self.state.nest_writes.append(cell)
            return
        exprs = [vnode] + ([cond.node] if cond is not None else [])
        old_name = cell.old.name
        pure = self.pure_axes(arr, cell.chain, cell.idx, exprs, old_name)
        rvar_loops = [l for l in cell.chain if l not in pure]
        uses_old = any(old_name in ir.free_vars(e) for e in exprs)
        fresh = (not arr.defined and cond is None and len(pure) == arr.ndim and not rvar_loops
                 and not uses_old and arr not in self.copy_of)
        if fresh:
            f = self.emitter.new_func(arr.name, arr)
            mapping, _, _, pairs = self.emitter.loop_vars(list(pure), [], "")
            key = [None] * arr.ndim
            for l, axis in pure.items():
                key[axis] = l.pure_var
            self.check_reads([vnode], cell)
            self.mark_emitted([vnode], f)
            vals = self.emitter.finalize([vnode], mapping, f"the definition of {arr.name}")
            self.emitter.define(f, tuple(reversed(key)), vals, [], None, cell.loc, pure=True,
                                label=arr.name, loops=pairs)
            arr.func = f
            arr.defined = True
            arr.versions.append(f)
            return
        self.ensure_defined(arr)
        old_call = self.element_call(arr, cell.idx).node
        preds = []
        if cond is not None:
            cn = cond.node
            if rvar_loops and not uses_old_in(cn, old_name) and not calls_func(cn, arr.func):
                preds.append(cn)
                vnode = _strip_select(vnode, cn, old_name)
        vnode = ir.substitute(vnode, {old_name: old_call})
        mapping, rdom, tri, pairs = self.emitter.loop_vars(
            [l for l in cell.chain if l in pure], rvar_loops,
            "r_" + "_".join(l.name for l in rvar_loops))
        var_of = _own_positions(arr, pure)
        mapping.update({l.sym: v.node for l, v in var_of.items()})
        order = None if self.cx.typing else hoisted_order.plan(
            self.read_sites, self.state.nest_writes, self.state.nest_id, cell, rvar_loops,
            [vnode] + preds)
        if order is not None:
            loop, star, self.hoisted_ok = order
            mapping[loop.sym] = ir.substitute(hoisted_order.permuted(
                loop.var, _as_index(loop.start.node), _as_index(loop.stop.node), star), mapping)
        pairs = [(l, var_of.get(l, v)) for l, v in pairs]
        key = []
        for axis in reversed(range(arr.ndim)):
            l = next((l for l, a in pure.items() if a == axis), None)
            if l is not None:
                key.append(var_of.get(l, l.pure_var))
            else:
                key.append(Expr.wrap(self.emitter.finalize(
                    [_promised(self.cx, cell.idx[axis])], mapping, f"an index of {arr.name}")[0]))
        self.check_reads([vnode] + preds + list(cell.idx), cell)
        self.hoisted_ok = set()
        self.mark_emitted([vnode] + preds + list(cell.idx), arr.func)
        promised_old = dataclasses.replace(
            old_call, args=tuple(_promised(self.cx, a) for a in old_call.args))
        if any(a is not b for a, b in zip(promised_old.args, old_call.args)):
            vnode = ir.FuncMutator(lambda n: promised_old if n is old_call else None).mutate(vnode)
        if cond is not None and not self.cx.typing and not _reads_state(cond.node):
            # (a test of a read its loops never write may move out of them; not
            # under a scalar the loops carry, such as a `break`'s stop flag:
            # outer_exit.py matches the reads of that update)
            vnode = invariant_reads.mark(vnode, arr.func, self.read_sites, self.state.nest_writes,
                                         self.state.nest_id, cell)
        vals = self.emitter.finalize([vnode], mapping, f"the update of {arr.name}")
        preds = self.emitter.range_guarded(
            tri, self.emitter.finalize(preds, mapping, f"the condition of {arr.name}"))
        self.emitter.define(arr.func, tuple(key), vals, preds, rdom, cell.loc, label=arr.name,
                            loops=pairs)

    def pure_axes(self, arr, chain, lhs, exprs, old_name) -> dict:
        """Loops whose variable is a pure Var of this definition -> axis."""
        by_sym = {l.sym: l for l in chain}
        cands = {}
        bad = set()
        for axis, n in enumerate(lhs):
            if isinstance(n, ir.Variable) and n.name in by_sym:
                l = by_sym[n.name]
                if l in cands:
                    bad.add(l)
                    continue
                if l.step == 1 and l.start.is_const and l.start.const == 0 and \
                        self._same_extent(l.stop, arr.shape[axis]):
                    cands[l] = axis
        for l in bad:
            cands.pop(l, None)
        for l, axis in list(cands.items()):
            if any(l.sym in ir.free_vars(lhs[a]) for a in range(len(lhs)) if a != axis):
                cands.pop(l)
                continue
            for other in chain:
                if other is not l and l.sym in ir.free_vars(
                        [ops.node_of(self.cx, other.start), ops.node_of(self.cx, other.stop)]):
                    cands.pop(l)
                    break
        if arr.func is not None:
            fn = arr.func.function()
            for c in ir.find_calls(list(exprs)):
                if c.call_type != ir.FUNC or c.func is not fn:
                    continue
                args = list(reversed(c.args))
                for l, axis in list(cands.items()):
                    a = args[axis]
                    if not (isinstance(a, ir.Variable) and a.name == l.sym) or any(
                            l.sym in ir.free_vars(args[b]) for b in range(len(args)) if b != axis):
                        cands.pop(l)
        return cands

    def _same_extent(self, stop: Val, size: Val) -> bool:
        a, b = ops.node_of(self.cx, stop), ops.node_of(self.cx, size)
        if ir.equal(ops.cast(ir.Int(64), a), ops.cast(ir.Int(64), b)):
            return True
        if len(stop.lbs) == 1 and len(stop.ubs) == 1 and stop.lbs[0] == stop.ubs[0] and \
                len(size.lbs) == 1 and len(size.ubs) == 1 and size.lbs[0] == size.ubs[0]:
            return stop.lbs[0] == size.lbs[0] and not stop.lbs[0].is_const or \
                (stop.lbs[0] == size.lbs[0])
        return False

    # reads and versions -----------------------------------------------------------------------
    def note_read(self, arr, call_node, idx_nodes=None):
        self.reads.setdefault(arr, []).append((self.cx.epoch, call_node))
        self.read_sites[id(call_node)] = (call_node, (arr, arr.func, list(self.state.loops),
                                                      self.cx.stmt_pos, idx_nodes,
                                                      self.state.nest_id,
                                                      self.cx.smap.loc(self.cx.cur_node)))

    def mark_emitted(self, nodes, func):
        name = func.name()
        for c in ir.find_calls(list(nodes)):
            entry = self.emitted_in.get(id(c))
            if entry is None or entry[0] is not c:
                entry = (c, set())
                self.emitted_in[id(c)] = entry
            entry[1].add(name)

    def version_nest(self):
        """At the start of a loop nest: arrays it writes that earlier
        statements read get a new Func version."""
        for arr in {id(c.arr): c.arr for c in self.state.nest_writes}.values():
            self.version_for_write(arr)

    def version_for_write(self, arr):
        """A write after an earlier statement read the array: later writes go
        to a new Func, so that earlier readers keep the value they read."""
        if arr.kind != "local" or not arr.defined:
            return
        if self.written.get(arr) == self.cx.epoch:
            return
        self.written[arr] = self.cx.epoch
        own = arr.func.name()
        external = False
        for ep, call in self.reads.get(arr, []):
            if ep >= self.cx.epoch:
                continue
            entry = self.emitted_in.get(id(call))
            where = entry[1] if entry is not None and entry[0] is call else None
            if where is None or (where - {own}):
                external = True
                break
        if not external:
            return
        self.new_version(arr)

    def version_for_element_write(self, arr, reads):
        """version_for_write; outside loops also a new version where `reads`
        (the value and index of the write, evaluated before it) read the
        array through another Func: `a[a.argmax()] = 0` (the reduction reads
        the array as it was before the write)."""
        self.version_for_write(arr)
        if arr.defined and not self.state.loops and deps.reads_through(arr.func, reads):
            self.cx.epoch += 1
            self.version_for_write(arr)

    def new_version(self, arr):
        """Later writes of arr go to a new Func, a copy of the current one,
        which is returned (its readers keep the value they read)."""
        old = arr.func
        f = self.emitter.new_func(arr.name, arr)
        vars_ = [self.axis_var(arr, k) for k in range(arr.ndim)]
        key = tuple(reversed(vars_))
        args = tuple(reversed(vars_))
        ref = old[args] if args else old[()]
        self.emitter.define(f, key, (ref.node,), [], None, self.cx.smap.loc(self.cx.cur_node),
                            pure=True, label=arr.name)
        arr.func = f
        arr.versions.append(f)
        arr.fresh_copy = f          # a copy nothing has written or read yet
        self.reads[arr] = []
        return old

    def replaces_fresh_copy(self, arr, vnode) -> bool:
        """Whether a write of value vnode to every element of arr goes to the
        copy new_version just made of its previous version, which nothing has
        read or written since and which vnode does not read: vnode is then
        the new version's definition (the copy would be overwritten at every
        point: array_store)."""
        f = getattr(arr, "fresh_copy", None)
        if f is None or f is not arr.func or arr.kind != "local" or self.cx.typing:
            return False
        return not f.function().updates and not self.reads.get(arr) and \
            not calls_func(vnode, f)

    def resolve_forwards(self, nodes, own_arr=None, target=None) -> list:
        """nodes with the forwarded reads resolved for the definition of
        `target` (a Cell or Group; None: unknown), which writes own_arr
        (None: no array; forwarded_reads.resolve)."""
        if not self.forwards:
            return list(nodes)

        def call_holds(call) -> bool:
            errs = []
            deps.check_reads(SimpleNamespace(typing=self.cx.typing, nest_id=self.state.nest_id,
                                             read_sites=self.read_sites,
                                             nest_writes=self.state.nest_writes,
                                             smap_error=self.cx.smap_error),
                             [call], target, lambda arr, err, pos: errs.append(err))
            return not errs
        return forwarded_reads.resolve(self.forwards, nodes, own_arr, call_holds)

    def check_reads(self, nodes, target):
        """A located error where `nodes` read an array that the loop nest
        being emitted writes later (deps.check_reads)."""
        # a reduction's reads, and an array's reads by its own writes, are
        # resolved after the nest (imperative_nests.py)
        deferred = getattr(self.state, "deferred_reads", None)
        defer = None
        if deferred is not None and (isinstance(target, Group) or hasattr(target, "arr")):
            def defer(arr, err, pos):
                # a write's own reads of its array, made by its own statement:
                # the merged update makes them where the write is made (a value
                # read earlier, `f = a[i, k]` before `a[i, k] = f`, stays refused)
                if not isinstance(target, Group) and arr is not target.arr:
                    # another array's read: kept only where loop_cycles merges
                    # both arrays into one Func (loops.py raises it otherwise)
                    deferred.append((arr, target, deps.CrossRead(err)))
                    return
                if not isinstance(target, Group) and not (
                        arr is target.arr and pos is not None and
                        pos == target.pos_min == target.pos_max):
                    raise err
                deferred.append((arr, target, err))
        deps.check_reads(SimpleNamespace(typing=self.cx.typing, nest_id=self.state.nest_id,
                                         read_sites=self.read_sites,
                                         nest_writes=self.state.nest_writes,
                                         smap_error=self.cx.smap_error,
                                         hoisted_ok=getattr(self, "hoisted_ok", set())),
                         nodes, target, defer)


def _as_index(n):
    return n if n.type == ir.INDEX else ir.Cast(ir.INDEX, n)


def uses_old_in(node, name) -> bool:
    return name in ir.free_vars(node)


def calls_func(node, func) -> bool:
    """Whether node reads Func func."""
    fn = func.function()
    return any(c.call_type == ir.FUNC and c.func is fn for c in ir.find_calls(node))


def _is_select_on(n, cond):
    if isinstance(n, ir.Select):
        return ir.equal(n.condition, cond), n.true_value, n.false_value
    if isinstance(n, ir.Call) and n.call_type == ir.INTRINSIC and n.name == "if_then_else":
        return ir.equal(n.args[0], cond), n.args[1], n.args[2]
    return False, None, None


def _strip_select(vnode, cond, old_name):
    """select(cond, v, old) under `where cond` is v."""
    ok, t, f = _is_select_on(vnode, cond)
    if ok and isinstance(f, ir.Variable) and f.name == old_name:
        return t
    return vnode


def _factor_condition(vals, phs):
    """If every changed state value is select(P, x, its old value) with one
    state-free P, return (P, values without the select)."""
    P = None
    out = []
    names = {p.name for p in phs}
    for v, p in zip(vals, phs):
        if isinstance(v, ir.Variable) and v.name == p.name:
            out.append(v)
            continue
        cond = None
        if isinstance(v, ir.Select):
            cond, t, f = v.condition, v.true_value, v.false_value
        elif isinstance(v, ir.Call) and v.call_type == ir.INTRINSIC and v.name == "if_then_else":
            cond, t, f = v.args
        if cond is None and isinstance(v, ir.Cast) and isinstance(v.value, (ir.Select,)):
            return None, vals
        if cond is None or not (isinstance(f, ir.Variable) and f.name == p.name):
            return None, vals
        if P is None:
            P = cond
        elif not ir.equal(P, cond):
            return None, vals
        out.append(t)
    if P is None or names & set(ir.free_vars(P)):
        return None, vals
    return P, out


def _own_positions(arr, pure: dict) -> dict:
    """loop -> the Var of arr's pure definition at its axis, for the pure
    loops of an update of arr (pure: loop -> axis) when one's Var is named
    like another axis's Var there (`for x in range(a.shape[0]): a[x, 0] =
    ...` of a 2-d array a(x, y): the loop's x would stand at y's position,
    which Halide's rule for updates refuses); {} when none is."""
    own = arr.func.args()
    names = [v.node.name for v in own]

    def position(axis):
        return arr.ndim - 1 - axis
    if not any(l.pure_var.node.name in names and
               names[position(a)] != l.pure_var.node.name for l, a in pure.items()):
        return {}
    return {l: own[position(a)] for l, a in pure.items()}


def _promised(cx, idx):
    """An element write's index node, within flat_index where to_index
    proved it in [0, last] but the lowering cannot bound it
    (arrays.promised_indices): the write and its read of the old value
    (wrapped after the frontend's checks of the reads) are then not checked
    at run time."""
    last = arrays.promised_last(cx, idx)
    return idx if last is None else flat_index(idx, ir.index(0), last)


def _reads_state(node) -> bool:
    """Whether node reads a scalar a loop carries (its `%st:` state)."""
    return any(name.startswith("%st:") for name in ir.free_vars([node]))
