"""Update definitions, run in their serial order.

An update `f(args) = values` over RDom r (rvars[0] innermost) where all
predicates hold. A pure Var of f standing alone at its own position d of the
LHS makes d a *pure dimension*: each value of the pure dimensions is an
independent *instance* of the update, and the instance at a point's pure
coordinates is the only one that writes (or reads) it. The other dimensions
are *key* dimensions, written wherever the LHS says.

For the instances asked for, the run keeps `state[e][instance, slot]`, where
a slot is a point of the key dimensions (a `PointSet`): every point the
update writes or reads and every point asked for. Slots start from the
previous stage's values. The RDom then runs in order, vectorized over the
instances, chunk by chunk, in one of three ways, all equal to the serial loop:

- chain: when all iterations of a chunk write one point (chains.py), from
  array operations over the history of each tuple element.
- vector: when no predicate, coordinate or value reads the state except a
  value `f(lhs)[i] op y` (op a ufunc, y free of f), whole chunks of
  iterations run at once: `op.at` applies in order, and for plain
  assignments the last write of each point wins.
- serial: one RDom iteration at a time. What does not depend on the state
  (maximal subtrees free of self-calls and of let-bound names, the slots of
  the LHS and of self-calls with such coordinates) is precomputed per chunk.

Tuple values are all computed from the old state before any is written.
"""
from __future__ import annotations

import math

import numpy as np

from ..ir import nodes as N
from ..ir.mutator import children
from ..ir.ops import equal
from . import chains
from .exprs import Context
from .points import PointSet

# Iterations x instances evaluated at once.
CHUNK = 1 << 19

# Update values `f(lhs) op y` that ufunc.at applies exactly, by type category
# (i: int/uint, f: float, b: bool). Float min/max are not among them: NumPy's
# NaN and signed-zero rules differ from select(a < b, a, b).
_ACCUMULATE = {
    N.Add: (np.add, "if"), N.Sub: (np.subtract, "if"), N.Mul: (np.multiply, "if"),
    N.Min: (np.minimum, "i"), N.Max: (np.maximum, "i"),
    N.BitAnd: (np.bitwise_and, "ib"), N.BitOr: (np.bitwise_or, "ib"),
    N.BitXor: (np.bitwise_xor, "ib"),
    N.And: (np.logical_and, "b"), N.Or: (np.logical_or, "b"),
}


def _category(t) -> str:
    return "b" if t.is_bool() else "f" if t.is_float() else "i"


def walk(exprs) -> list:
    """Every distinct node (by identity) of the given Expr trees."""
    seen, stack, out = set(), list(exprs), []
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        stack.extend(children(n))
    return out


class UpdateInfo:
    """What a run needs to know about one update, computed once."""

    def __init__(self, f, u):
        self.name = f.name
        self.update = u
        self.pure_pos = [d for d, a in enumerate(u.args)
                         if isinstance(a, N.Variable) and a.kind == "" and a.name == f.args[d]]
        self.other_pos = [d for d in range(len(f.args)) if d not in self.pure_pos]
        self.pure_names = [f.args[d] for d in self.pure_pos]
        nodes = walk(list(u.args) + list(u.values) + list(u.predicates))
        let_names = {n.name for n in nodes if isinstance(n, N.Let)}
        self_calls = self._check(f, nodes, let_names)
        self.self_calls = self_calls
        self._analyze(nodes, let_names, self_calls)
        pre_ok = self._precomputable
        lhs = [u.args[d] for d in self.other_pos]
        self.lhs_free = all(pre_ok(a) for a in lhs)
        self.n_lead = 0                 # leading predicates free of the state
        while self.n_lead < len(u.predicates) and pre_ok(u.predicates[self.n_lead]):
            self.n_lead += 1
        self.has_dep_pred = self.n_lead < len(u.predicates)
        # Self-calls whose slots can be precomputed, and the maximal
        # precomputable subtrees the serial steps still evaluate.
        self.pre_calls = [c for c in self_calls if all(pre_ok(c.args[d]) for d in self.other_pos)]
        self.pre_nodes = self._maximal_precomputable(
            list(u.values) + ([] if self.lhs_free else lhs), {id(c) for c in self.pre_calls})
        self.vector = self.chain = None
        if not self.has_dep_pred and self.lhs_free:
            kinds = [self._classify(i, v) for i, v in enumerate(u.values)]
            if all(k is not None for k in kinds):
                self.vector = kinds
            self.chain = chains.plan(self, _ACCUMULATE)

    def _check(self, f, nodes, let_names) -> list:
        """Reject pure Vars outside their instance; return the self-calls."""
        unbound = set(f.args) - set(self.pure_names) - let_names
        for n in nodes:
            if isinstance(n, N.Variable) and n.kind == "" and n.name in unbound:
                raise ValueError(f"an update of {f.name} uses pure Var {n.name}, which is not "
                                 f"its own coordinate on the left-hand side")
        self_calls = [n for n in nodes if isinstance(n, N.Call) and n.call_type == N.FUNC
                      and n.name == f.name]
        for c in self_calls:
            if len(c.args) != len(f.args):
                raise ValueError(f"an update of {f.name} calls it with {len(c.args)} coordinates")
            for d in self.pure_pos:
                a = c.args[d]
                if not (isinstance(a, N.Variable) and a.name == f.args[d]):
                    raise ValueError(
                        f"an update of {f.name} reads it at coordinate {d} other than its pure "
                        f"Var {f.args[d]}: the instances of the pure Vars would depend on each "
                        f"other's order")
        return self_calls

    def _analyze(self, nodes, let_names, self_calls):
        """Per node: the tuple elements of the state it reads, and its free
        let-bound names."""
        self._reads, self._lets = {}, {}
        element = {id(c): frozenset((c.value_index,)) for c in self_calls}
        none = frozenset()

        def visit(n):
            k = id(n)
            if k in self._reads:
                return
            cs = list(children(n))
            for c in cs:
                visit(c)
            self._reads[k] = element.get(k, none).union(*(self._reads[id(c)] for c in cs))
            if isinstance(n, N.Variable):
                lets = frozenset((n.name,)) if n.name in let_names else none
            elif isinstance(n, N.Let):
                lets = self._lets[id(n.value)] | (self._lets[id(n.body)] - {n.name})
            else:
                lets = none.union(*(self._lets[id(c)] for c in cs))
            self._lets[k] = lets

        for n in nodes:
            visit(n)

    def _maximal_precomputable(self, roots, skip) -> list:
        """The largest precomputable subtrees (Consts excluded) of `roots`,
        not looking inside the nodes whose ids are in `skip`."""
        out, seen, stack = [], set(), list(roots)
        while stack:
            n = stack.pop()
            if id(n) in seen or id(n) in skip:
                continue
            seen.add(id(n))
            if self._precomputable(n):
                if not isinstance(n, N.Const):
                    out.append(n)
            else:
                stack.extend(children(n))
        return out

    def reads(self, n) -> frozenset:
        """The tuple elements of the state that node n reads."""
        return self._reads[id(n)]

    def depends(self, n) -> bool:
        return bool(self._reads[id(n)])

    def _precomputable(self, n) -> bool:
        return not self._reads[id(n)] and not self._lets[id(n)]

    def reads_lhs(self, e, i) -> bool:
        """Whether e is the call of element i of the state at the LHS point."""
        return (isinstance(e, N.Call) and e.call_type == N.FUNC and e.name == self.name
                and e.value_index == i
                and all(equal(a, b) for a, b in zip(e.args, self.update.args)))

    def _classify(self, i, v):
        if not self.depends(v):
            return ("assign", v)
        if self.reads_lhs(v, i):
            return ("keep",)
        entry = _ACCUMULATE.get(type(v))
        if entry is None or _category(v.type) not in entry[1]:
            return None
        if self.reads_lhs(v.a, i) and not self.depends(v.b):
            return ("accumulate", entry[0], v.b)
        if type(v) is not N.Sub and self.reads_lhs(v.b, i) and not self.depends(v.a):
            return ("accumulate", entry[0], v.a)
        return None


def _coords(values, n) -> list:
    return [np.broadcast_to(np.asarray(v).astype(np.int64), (n,)) for v in values]


def _full(v, n):
    """v as an array of n elements (a scalar is broadcast)."""
    return v if np.shape(v) == (n,) else np.broadcast_to(v, (n,))


def _last_writes(linear):
    """Indices of the last occurrence of each distinct value."""
    _, first = np.unique(linear[::-1], return_index=True)
    return len(linear) - 1 - first


def run_update(realizer, f, k, info, cols, n) -> list:
    """The values of f after update k (1-based) at n points (1-D coordinate
    arrays, dimension 0 first)."""
    if n == 0:
        return [np.empty(0, v.type.to_numpy()) for v in f.pure.values]
    return _Run(realizer, f, k, info).values_at(cols, n)


class _Run:
    def __init__(self, realizer, f, k, info):
        self.r, self.f, self.k, self.info = realizer, f, k, info
        self.u = info.update

    def values_at(self, cols, n):
        info = self.info
        self.instances = PointSet(len(info.pure_pos))
        q_inst, _ = self.instances.add([cols[d] for d in info.pure_pos], n)
        self.keys = PointSet(len(info.other_pos))
        self.filled = 0                 # slots below this hold values
        self.state = [np.empty((self.instances.size, 0), v.type.to_numpy())
                      for v in self.f.pure.values]
        q_slot = self.ensure([cols[d] for d in info.other_pos], n)
        self.run()
        self.flush()
        return [s[q_inst, q_slot] for s in self.state]

    # ---- the state -----------------------------------------------------------
    def ensure(self, cols, n):
        """Slots of the given key points, adding the absent ones (filled from
        the previous stage by the next flush)."""
        return self.keys.add(cols, n)[0]

    def flush(self):
        """Fill the slots added since the last flush from the previous stage."""
        size, filled = self.keys.size, self.filled
        if size == filled:
            return
        n_inst = self.instances.size
        cap = self.state[0].shape[1]
        if cap < size:
            cap = max(size, 2 * cap)
            grown = []
            for s in self.state:
                g = np.empty((n_inst, cap), s.dtype)
                g[:, :filled] = s[:, :filled]
                grown.append(g)
            self.state = grown
        m = size - filled
        cols = [None] * len(self.f.args)
        for j, d in enumerate(self.info.pure_pos):
            cols[d] = np.repeat(self.instances.cols[j], m)
        for j, d in enumerate(self.info.other_pos):
            cols[d] = np.tile(self.keys.cols[j][filled:size], n_inst)
        values = self.r.stage_at(self.f, self.k - 1, cols, n_inst * m)
        for s, v in zip(self.state, values):
            s[:, filled:size] = v.reshape(n_inst, m)
        self.filled = size

    # ---- the RDom loop ---------------------------------------------------------
    def run(self):
        info, u = self.info, self.u
        ctx = Context(self.r, {})
        mins = [int(ctx.ev(rv.min)) for rv in u.rvars]
        extents = [int(ctx.ev(rv.extent)) for rv in u.rvars]
        total = math.prod(max(e, 0) for e in extents)
        strides = [math.prod(extents[:i]) for i in range(len(extents))]
        n_inst = self.instances.size
        chunk = max(1, CHUNK // n_inst)
        for s0 in range(0, total, chunk):
            ev_step = np.repeat(np.arange(s0, min(total, s0 + chunk), dtype=np.int64), n_inst)
            ev_inst = np.tile(np.arange(n_inst, dtype=np.int64), len(ev_step) // n_inst)
            vars = {name: self.instances.cols[j][ev_inst] for j, name in enumerate(info.pure_names)}
            for rv, lo, e, s in zip(u.rvars, mins, extents, strides):
                vars[rv.name] = lo + (ev_step // s) % e     # rvars[0] varies fastest
            for p in u.predicates[:info.n_lead]:
                keep = np.flatnonzero(_full(Context(self.r, vars).ev(p), len(ev_step)))
                if len(keep) < len(ev_step):
                    ev_step, ev_inst = ev_step[keep], ev_inst[keep]
                    vars = {name: v[keep] for name, v in vars.items()}
            if len(ev_step):
                self._chunk(vars, ev_step, ev_inst)

    def _chunk(self, vars, ev_step, ev_inst):
        """Run the iterations (in order) of one chunk."""
        info = self.info
        if info.chain is None and info.vector is None:
            return self._serial(vars, ev_step, ev_inst)
        a = len(ev_step)
        ctx = Context(self.r, vars)
        slots = self.ensure(_coords([ctx.ev(self.u.args[d]) for d in info.other_pos], a), a)
        self.flush()
        if info.chain is not None and (ev_inst == ev_inst[0]).all() and (slots == slots[0]).all():
            point = (ev_inst[0], slots[0])
            final = chains.run(self.r, info, info.chain, vars, a, [s[point] for s in self.state])
            for state, v in zip(self.state, final):
                state[point] = v
        elif info.vector is not None:
            self._vector(ctx, ev_inst, slots)
        else:
            self._serial(vars, ev_step, ev_inst)

    def _vector(self, ctx, ev_inst, slots):
        a = len(ev_inst)
        last = None
        for state, kind in zip(self.state, self.info.vector):
            if kind[0] == "assign":
                if last is None:
                    last = _last_writes(ev_inst * state.shape[1] + slots)
                state[ev_inst[last], slots[last]] = _full(ctx.ev(kind[1]), a)[last]
            elif kind[0] == "accumulate":
                kind[1].at(state, (ev_inst, slots), ctx.ev(kind[2]))

    def _serial(self, vars, ev_step, ev_inst):
        info, u = self.info, self.u
        a = len(ev_step)
        pre, pre_slots, lhs_slots = {}, {}, None
        if not info.has_dep_pred:
            ctx = Context(self.r, vars)
            for node in info.pre_nodes:
                pre[id(node)] = ctx.ev(node)
            for c in info.pre_calls:
                pre_slots[id(c)] = self.ensure(
                    _coords([ctx.ev(c.args[d]) for d in info.other_pos], a), a)
            if info.lhs_free:
                lhs_slots = self.ensure(_coords([ctx.ev(u.args[d]) for d in info.other_pos], a), a)
            self.flush()
        scalars = {key: v for key, v in pre.items() if np.ndim(v) == 0}
        arrays = [(key, v) for key, v in pre.items() if np.ndim(v) > 0]
        cuts = (np.flatnonzero(ev_step[1:] != ev_step[:-1]) + 1).tolist()
        for lo, hi in zip([0] + cuts, cuts + [a]):
            step_pre = dict(scalars)
            for key, v in arrays:
                step_pre[key] = v[lo:hi]
            self._step({name: v[lo:hi] for name, v in vars.items()}, ev_inst[lo:hi], step_pre,
                       {key: v[lo:hi] for key, v in pre_slots.items()},
                       None if lhs_slots is None else lhs_slots[lo:hi])

    def _step(self, vars, inst, pre, pre_slots, lhs_slots):
        """One RDom iteration for the instances `inst`."""
        info, u = self.info, self.u
        for p in u.predicates[info.n_lead:]:    # only when nothing was precomputed
            keep = np.flatnonzero(_full(self._context(vars, pre, inst, pre_slots).ev(p), len(inst)))
            if len(keep) < len(inst):
                inst = inst[keep]
                vars = {name: v[keep] for name, v in vars.items()}
            if not len(inst):
                return
        m = len(inst)
        ctx = self._context(vars, pre, inst, pre_slots)
        if lhs_slots is None:
            lhs_slots = self.ensure(_coords([ctx.ev(u.args[d]) for d in info.other_pos], m), m)
            self.flush()
        values = [ctx.ev(v) for v in u.values]     # all read before any is written
        for state, v in zip(self.state, values):
            state[inst, lhs_slots] = v

    def _context(self, vars, pre, inst, pre_slots):
        other = self.info.other_pos

        def read(ctx, call):
            slots = pre_slots.get(id(call))
            if slots is None:
                slots = self.ensure(_coords([ctx.ev(call.args[d]) for d in other], len(inst)),
                                    len(inst))
                self.flush()
            return self.state[call.value_index][inst, slots]

        return Context(self.r, vars, pre, self.info.name, read)
