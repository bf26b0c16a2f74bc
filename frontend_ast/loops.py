"""Loops: `for v in range(...)` nests become pure definitions over Vars and
update definitions over RDoms in Python loop order. Scalars a loop carries
form one tuple-valued Func ("group") whose type is what Python's promotion
makes it after one iteration; a group whose running value is read by other
definitions inside the loop is a scan (one value per iteration)."""
from __future__ import annotations

import ast

import pyhalide as ph
from pyhalide import ir

from . import ops
from .analyze import carried, home, assigned_in_nested_loop, mentions
from .emit import Frame
from .ranges import Aff, INT32, INT64, n_within, n_union
from .types import PY_INT, PY_BOOL
from .values import Val, Loop, Arr, fresh, const_val, int_node_type


class LoopVarDone:
    """The value of a loop variable after its loop (not supported)."""

    def __init__(self, name):
        self.name = name


class Group:
    """Scalars carried together by one loop chain: one (tuple) Func."""

    def __init__(self, names, chain_nodes, ctx, loc):
        self.names = list(names)
        self.chain_nodes = list(chain_nodes)
        self.ctx = list(ctx)
        self.loc = loc
        self.tys = []
        self.store = []
        self.ranges = []
        self.init = []
        self.func = None
        self.scan = False
        self.scan_needed = False
        self.ph = []
        self.new_vals = None
        self.chain = []
        self.typing = False
        self.label = "_".join(self.names)
        self.flag_of = {}
        self.loop_sym_for_scan = None
        self.last_node = None
        self.updated = False

    def __repr__(self):
        return f"<Group {self.names}>"


class LoopMixin:
    # loop headers -------------------------------------------------------------------
    def make_loop(self, node: ast.For) -> Loop:
        name = node.target.id
        if any(l.name == name for l in self.loops):
            raise self.err(node.target, f"the loop variable {name!r} is already the variable of "
                                        f"an enclosing loop", hint="use another name")
        args = [self.ev_val(a, "an integer loop bound") for a in node.iter.args]
        for a, where in zip(args, node.iter.args):
            if not (a.ty.is_int() or a.ty.is_bool()):
                raise self.err(where, f"range() needs integers, got {a.ty.describe()}",
                               hint="convert with int(...)")
            self._check_bound(a, where)
        if len(args) == 1:
            start, stop, step = const_val(0), args[0], const_val(1)
        elif len(args) == 2:
            start, stop, step = args[0], args[1], const_val(1)
        else:
            start, stop, step = args
        if not step.is_const:
            raise self.err(node.iter.args[2], "the step of range() must be a constant",
                           hint="write the step as a literal (range(0, n, 2))")
        k = int(step.const)
        if k == 0:
            raise self.err(node.iter.args[2], "range() arg 3 must not be zero")
        start = ops.to_python_int(self, start)
        stop = ops.to_python_int(self, stop)
        for v, where in ((start, node.iter), (stop, node.iter)):
            if not n_within(v.rng, INT32):
                if v.is_static:
                    self.static_checks.append(_int32_check(v.static))
                    v.set_range(max(v.lo, INT32[0]) if v.lo is not None else INT32[0],
                                min(v.hi, INT32[1]) if v.hi is not None else INT32[1],
                                v.lbs, v.ubs)
                else:
                    raise self.err(where, "loop bounds must fit in 32 bits")
        loop = Loop(name, node, start, stop, k, self.smap.loc(node), self.nest_id)
        self._typing_loops[id(node)] = loop
        loop.pure_var = self.loop_var_objects.setdefault(loop.sym, ph.Var(name))
        if k > 0:
            lows, highs = start.lbs, [u.shift(-1) for u in stop.ubs]
            lo = start.lo
            hi = None if stop.hi is None else stop.hi - 1
        else:
            lows, highs = [l.shift(1) for l in stop.lbs], start.ubs
            lo = None if stop.lo is None else stop.lo + 1
            hi = start.hi
        self.syms.add_loop(loop.sym, lows, highs, lo, hi)
        loop.val = Val(loop.var, PY_INT, lo, hi, [Aff.sym(loop.sym)], [Aff.sym(loop.sym)])
        if lo is not None and hi is not None:
            loop.max_trip = max(0, (hi - lo) // abs(k) + 1)
        else:
            loop.max_trip = None
        return loop

    def _check_bound(self, v: Val, where):
        n = ops.node_of(self, v)
        data = bool(ir.find_calls(n)) or v.risky or any(
            var.kind == "" and not (name in self.syms.loops or name in self.ph_owner)
            for name, var in ir.free_vars(n).items())
        if data:
            raise self.err(where, "loop bounds must not read array contents",
                           hint="loop over the whole range and skip iterations with `if`/"
                                "`continue`")
        for name in ir.free_vars(n):
            if name in self.ph_owner:
                raise self.err(where, "loop bounds must not depend on values computed in a "
                                      "loop", hint="compute the bound from array sizes, scalar "
                                                   "arguments and outer loop variables")

    # execution -------------------------------------------------------------------------
    def exec_for(self, node: ast.For):
        if self.frames and not self.frames[-1].top:
            self.flush_frame(self.frames[-1], partial=True)
        top = not self.loops
        if top and not self.typing:
            self.nest_id = id(node)
            self.prepass(node)
            self.version_nest()
        loop = self.make_loop(node)
        new_groups = self.start_groups(node, loop)
        self.run_loop(node, loop, new_groups)
        for g in new_groups:
            self.finish_group(g)
        if top and not self.typing:
            self.nest_id = None

    def prepass(self, node):
        """Type the whole nest once, to learn every write it makes."""
        self.nest_writes = []
        saved = self._save()
        self.typing += 1
        self.recording = True
        try:
            loop = self.make_loop(node)
            gs = self.start_groups(node, loop)
            self.run_loop(node, loop, gs)
        finally:
            self.typing -= 1
            self.recording = False
            self._restore(saved)

    def _save(self):
        return (dict(self.env), list(self.frames), list(self.path), list(self.alive),
                list(self.active_groups), dict(self.state_subst))

    def _restore(self, saved):
        env, frames, path, alive, groups, subst = saved
        self.env = env
        self.frames = frames
        self.path = path
        self.alive = alive
        self.active_groups = groups
        self.state_subst = subst

    def run_loop(self, node, loop, new_groups):
        self.loops.append(loop)
        frame = Frame(loop)
        for g in self.active_groups + new_groups:
            if g.chain_nodes[-1] is node:
                frame.groups.append(g)
            if node in g.chain_nodes:
                g.chain.append(loop)
        self.active_groups.extend(new_groups)
        self.frames.append(frame)
        self.alive.append(None)
        self.env[loop.name] = loop.val
        for g in new_groups:
            self.enter_group(g)
        try:
            self.exec_block(node.body)
            self.flush_frame(frame)
        finally:
            self.alive.pop()
            self.frames.pop()
            self.loops.pop()
            for g in new_groups:
                self.active_groups.remove(g)
            for g in self.active_groups + new_groups:
                if node in g.chain_nodes and g.chain and g.chain[-1] is loop:
                    g.chain.pop()
        self.env[loop.name] = LoopVarDone(loop.name)

    # groups ------------------------------------------------------------------------------
    def start_groups(self, node, loop) -> list:
        names = carried(node, self.live)
        active = {n for g in self.active_groups for n in g.names}
        specs = {}
        for v in names:
            if v in active:
                continue
            cur = self.env.get(v)
            if isinstance(cur, Arr):
                continue
            if isinstance(cur, LoopVarDone):
                cur = None
            chain = home(node, v)
            inner = assigned_in_nested_loop(chain[-1], v)
            if inner is not None:
                raise self.err(inner, f"{v!r} is assigned both in this loop and in the loop at "
                                      f"line {self.smap.loc(chain[-1]).line} that encloses it",
                               hint="update a variable at one loop depth only (use a separate "
                                    "variable for the inner loop and combine after it)")
            key = tuple(id(n) for n in chain)
            specs.setdefault(key, (chain, []))[1].append(v)
        groups = []
        for chain, vs in specs.values():
            g = Group(vs, chain, self.loops, self.smap.loc(chain[-1]))
            self.create_group(g, node, loop)
            groups.append(g)
        return groups

    def create_group(self, g: Group, node, loop):
        g.typing = bool(self.typing)
        g.init = []
        g.unbound = []
        for v in g.names:
            cur = self.env.get(v)
            if isinstance(cur, Val):
                g.init.append(cur)
                g.unbound.append(False)
            else:
                g.init.append(None)
                g.unbound.append(True)
        tys = [v.ty if v is not None else None for v in g.init]
        for _ in range(6):
            g.tys = tys
            new = self.typing_run(g, node)
            new_tys = [nv.ty if nv is not None else t for nv, t in zip(new, tys)]
            if new_tys == tys:
                break
            tys = new_tys
        else:
            raise self.err(node, f"the type of {', '.join(g.names)} keeps changing from one "
                                 f"iteration to the next", hint="start it with a NumPy value of "
                                                               "the final type, e.g. np.float64(0)")
        for k, t in enumerate(tys):
            if t is None:
                raise self.err(node, f"{g.names[k]!r} is never assigned in this loop")
        g.tys = tys
        self._add_assigned_flags(g, node)
        if g.scan_needed:
            if len(g.chain_nodes) != 1:
                raise self.err(node, f"the running value of {', '.join(g.names)} is read inside a "
                                     f"loop nest it accumulates over",
                               hint="a scan (reading the running value) is supported over a "
                                    "single loop; store per-row results in an array instead")
            g.scan = True
        g.ranges = self.infer_ranges(g, node) if not self.typing else \
            [(None, None)] * len(g.names)
        g.store = []
        for t, r in zip(g.tys, g.ranges):
            g.store.append(int_node_type(*r) if t.kind == "int" else t.ir())
        if not self.typing:
            self.define_group(g, node, loop)

    def _add_assigned_flags(self, g: Group, node):
        """A member whose type after the loop differs from its initial one is
        what Python returns only if the loop assigned it: conditionally
        assigned members get a bool element recording that."""
        if getattr(g, "flags_added", False) or g.ctx:
            return
        g.flags_added = True
        g.flag_of = {}
        for k in range(len(g.names)):
            init, t = g.init[k], g.tys[k]
            if (init is not None and init.ty == t) or g.names[k].endswith("?assigned"):
                continue
            nv = g.new_vals[k] if g.new_vals else None
            if nv is None:
                continue
            if not _conditional(nv.node, g.ph[k].name if g.ph else None):
                continue
            flag = g.names[k] + "?assigned"
            g.names.append(flag)
            g.init.append(const_val(False))
            g.tys.append(PY_BOOL)
            g.unbound.append(False)
            g.flag_of[g.names[k]] = flag

    def typing_run(self, g: Group, node):
        saved = self._save()
        saved_scan = g.scan_needed
        self.typing += 1
        was_typing = g.typing
        g.typing = True
        try:
            loop = self.make_loop(node)
            g.new_vals = None
            others = self.start_groups_except(node, loop, g)
            self.run_loop(node, loop, [g] + others)
            new = g.new_vals or [None] * len(g.names)
        finally:
            self.typing -= 1
            g.typing = was_typing
            self._restore(saved)
        return new

    def start_groups_except(self, node, loop, g):
        # other groups starting at this loop (different homes) are typed too
        names = set(g.names)
        saved_active = list(self.active_groups)
        self.active_groups = self.active_groups + [g]
        try:
            gs = self.start_groups(node, loop)
        finally:
            self.active_groups = saved_active
        return [x for x in gs if not set(x.names) & names]

    def infer_ranges(self, g: Group, node):
        """Numeric ranges of Python-int state: a few rounds of iteration, then
        a bound on the growth per iteration times the trip count."""
        out = []
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
        g.cur_ranges = None
        return [r if r is not None else (None, None) for r in result]

    def _growth_ranges(self, g, inits, new):
        trip = 1
        for n in g.chain_nodes:
            l = self._loop_for_node(n)
            if l is None or l.max_trip is None:
                trip = None
                break
            trip *= l.max_trip
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

    def _growth_bound(self, bounds, sym, upper, init, trip):
        if init is None:
            return None
        best = None
        for b in bounds:
            k = b.terms.get(sym, 0)
            rest = Aff({s: c for s, c in b.terms.items() if s != sym}, b.c)
            if any(s.startswith("%st_") for s in rest.terms):
                continue
            d = self.syms.numeric_of(rest, upper)
            if d is None:
                continue
            if k == 0:
                cand = max(init, d) if upper else min(init, d)
            elif k == 1:
                cand = init + trip * max(0, d) if upper else init + trip * min(0, d)
            else:
                continue
            if best is None or (cand < best if upper else cand > best):
                best = cand
        return best

    def _loop_for_node(self, n):
        return self._typing_loops.get(id(n))

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
            self.ph_owner[p.name] = g
            v = Val(p, t)
            if t.kind == "int":
                rng = None
                if g.typing and getattr(g, "cur_ranges", None) is not None:
                    rng = g.cur_ranges[k]
                    v.set_range(rng[0] if rng else None, rng[1] if rng else None,
                                [Aff.sym(g.range_syms[k])], [Aff.sym(g.range_syms[k])])
                elif not g.typing:
                    v.set_range(*g.ranges[k])
            elif t.is_int():
                it = t.ir()
                v.set_range(it.min_value(), it.max_value())
            self.env[name] = _unbound_state(v) if g.unbound[k] else v
        if not g.typing:
            self.bind_state(g)

    def finish_group(self, g: Group):
        """After the loop: each member is the group's final value."""
        for k, name in enumerate(g.names):
            t = g.tys[k]
            if g.typing:
                p = ir.Variable(g.store[k] if g.store else t.ir(), fresh(f"after:{name}"))
                v = Val(p, t)
            else:
                v = Val(self.final_call(g, k), t)
            if t.kind == "int":
                if g.ranges:
                    v.set_range(*g.ranges[k])
            elif t.is_int():
                it = t.ir()
                v.set_range(it.min_value(), it.max_value())
            v.origin = None
            g.chain_loops_for_trip = [self._typing_loops[id(n)] for n in g.chain_nodes
                                      if id(n) in self._typing_loops]
            if not g.typing:
                self.note_group_result(g, k, v)
            self.env[name] = v
        for name, flag in g.flag_of.items():
            self.env.pop(flag, None)

    # frames --------------------------------------------------------------------------------
    def flush_frame(self, frame: Frame, partial: bool = False):
        for key in list(frame.order):
            self.emit_cell(frame.cells[key])
        frame.cells.clear()
        frame.order.clear()
        if partial:
            return
        for g in frame.groups:
            self.emit_group_update(g)


def _int32_check(f):
    def check(env):
        v = f(env)
        if not INT32[0] <= v <= INT32[1]:
            raise OverflowError(f"loop bound {v} does not fit in 32 bits")
    return check


class _UnboundState:
    pass


def _conditional(node, ph_name) -> bool:
    """Whether a new state value keeps the old one on some path."""
    if ph_name is None:
        return True
    if isinstance(node, ir.Variable):
        return node.name == ph_name
    if isinstance(node, ir.Cast):
        return _conditional(node.value, ph_name)
    if isinstance(node, ir.Select):
        return _conditional(node.true_value, ph_name) or _conditional(node.false_value, ph_name)
    if isinstance(node, ir.Call) and node.call_type == ir.INTRINSIC and \
            node.name == "if_then_else":
        return _conditional(node.args[1], ph_name) or _conditional(node.args[2], ph_name)
    return False


def _unbound_state(v):
    from .values import MaybeUnbound
    out = MaybeUnbound(v.node, v.ty)
    out.set_range(v.lo, v.hi, v.lbs, v.ubs)
    return out
