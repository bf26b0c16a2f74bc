"""A running value stored at every iteration is computed in the array.

`acc += x[i]; out[i] = acc` builds a scan Func for the loop state `acc`
(`acc(i)`: its value after iteration i) and an array `out` whose element i
is that value computed again from `acc(i - 1)`. After the build, such a
pair is rewritten so that the array is the scan Func and the state is
derived from it:

- `out`'s update over the loop's RDom r in [lo, lo + n) computes the
  state's update itself, reading `out` at the previous point, and the value
  before the loop at the first point (a *seeded* read:
  `select(r == lo, init, out(max(r - 1, lo)))`, so that out is read only
  inside the points it writes); its pure definition stays its own (the
  array's fill), or zeros when the loop writes every element;
- `acc` becomes a pure Func reading `out` inside [lo, lo + n) and its value
  before the loop elsewhere: what the returned final value and every other
  read of the state see, unchanged.

A schedule then names the scan by the array (`p.funcs["out"].update(0).
parallel_scan(p.vars["out", "i"], k)`; pyhalide/parallel_scan.py reads a
seeded update), and the serial code computes each running value once,
into the array. Pairs of any other form are left as built: a state of
several values (argmax-so-far, whose array stores one of them), an array
of another type than the state (a cast), one written at another point than
the loop's or under a condition, a loop with an exit, an argument the
function writes.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.func import Func

from .loop_state import Group
from .values import Arr


def promote_scans(builder) -> None:
    """Rewrite every (state, array) pair of the form above (see the module
    docstring) in the built Funcs of `builder`."""
    entries = [(f, owner) for _, f, owner in builder.funcs
               if hasattr(f, "function") and f.defined()]
    arrays = [f for f, owner in entries if isinstance(owner, Arr) and owner.kind == "local"
              and owner.arg_name is None]
    done = set()
    for f, owner in entries:
        if not (isinstance(owner, Group) and owner.scan) or id(f) in done:
            continue
        state = _State.of(f.function())
        if state is None:
            continue
        for a in arrays:
            if id(a) in done or a.function() is state.fn:
                continue
            lhs = state.match(a.function())
            if lhs is not None:
                state.move_into(a.function(), lhs)
                loop = _log(builder, f, a, state)
                if type(f) is Func:
                    f.__class__ = _DerivedState
                    f.scan_in = (owner.label, _array_name(builder, a),
                                 len(a.function().updates) - 1, loop)
                done |= {id(f), id(a)}
                break


class _State:
    """A loop state's scan Func: one value, one update over one RVar r
    (axis `axis`), no predicate and no exit, whose value V reads the state
    only at the previous point."""

    def __init__(self, fn, d, axis):
        self.fn, self.d, self.axis = fn, d, axis
        self.rv = d.schedule.rvars[0]
        self.r = d.args[axis]
        self.names = [a.name for a in d.args]
        self.value = d.values[0]
        self.lo = self.rv.min
        prev = list(d.args)
        prev[axis] = ir.Sub(self.r, ir.index(1))
        self.prev = tuple(prev)

    @classmethod
    def of(cls, fn):
        if len(fn.output_types) != 1 or len(fn.updates) != 1:
            return None
        d = fn.updates[0]
        if d.predicates or d.exit is not None or len(d.schedule.rvars) != 1:
            return None
        rname = d.schedule.rvars[0].name
        axis = None
        for k, a in enumerate(d.args):
            if not isinstance(a, ir.Variable):
                return None
            if a.kind == "rvar" and a.name == rname:
                axis = k if axis is None else -1
            elif a.kind != "" or a.name != fn.args[k]:
                return None
        if axis is None or axis < 0:
            return None
        s = cls(fn, d, axis)
        calls = [c for c in ir.find_calls(s.value) if c.call_type == ir.FUNC and c.func is fn]
        if not all(len(c.args) == len(s.prev) and all(ir.equal(x, y) for x, y in
                                                     zip(c.args, s.prev)) for c in calls):
            return None
        if _calls(fn.pure.values, fn):
            return None
        return s

    def match(self, afn):
        """The left-hand side of the scan update in array `afn` (Variables,
        r at the scan axis), when afn's last definition stores the state's
        value at every point of the loop; None otherwise."""
        if afn.output_types != self.fn.output_types or \
                _calls([self.value, self.fn.pure.values[0]], afn):
            return None
        if not afn.updates:
            # the loop writes every element (the array's extent is the loop's,
            # from 0): its pure definition is the value
            if sorted(afn.args) != sorted(self.fn.args) or not (
                    ir.is_const(self.lo, 0) and ir.equal(afn.pure.values[0], ir.substitute(
                        self.value, {self.r.name: ir.Variable(ir.INDEX, self.fn.args[self.axis])}))):
                return None
            return tuple(self.r if n == self.fn.args[self.axis] else ir.Variable(ir.INDEX, n)
                         for n in afn.args)
        d = afn.updates[-1]
        if d.predicates or d.exit is not None or len(d.schedule.rvars) != 1 or \
                len(d.values) != 1:
            return None
        rv = d.schedule.rvars[0]
        if rv.name != self.rv.name or not (ir.equal(rv.min, self.rv.min) and
                                           ir.equal(rv.extent, self.rv.extent)):
            return None
        # the same loop's RVar, of another RDom object: compared by name
        if not ir.equal(ir.substitute(d.values[0], {rv.name: self.r}), self.value):
            return None
        if not all(isinstance(a, ir.Variable) for a in d.args) or \
                sorted(a.name for a in d.args) != sorted(self.names):
            return None
        return tuple(d.args)

    def move_into(self, afn, lhs):
        """afn's scan update computes V from afn; the state reads afn."""
        import dataclasses
        pos = [self.names.index(a.name) for a in lhs]     # afn position -> state position
        fn = self.fn
        ty = fn.output_types[0]
        init = ir.substitute(fn.pure.values[0], {
            fn.args[self.axis]: ir.Sub(self.lo, ir.index(1))})
        r = lhs[pos.index(self.axis)]           # the array's RVar (its update's RDom)
        back = list(lhs)
        back[pos.index(self.axis)] = ir.Max(ir.Sub(r, ir.index(1)), self.lo)
        seeded = ir.Select(ir.EQ(r, self.lo), init,
                           ir.Call(ty, afn.name, tuple(back), ir.FUNC, 0, afn))
        value = _Replace(fn, seeded).mutate(ir.substitute(self.value, {r.name: r}))
        if afn.updates:
            afn.updates[-1] = dataclasses.replace(afn.updates[-1], values=(value,))
        else:
            afn.pure = dataclasses.replace(afn.pure, values=(ir.zero(ty),))
            afn.updates.append(dataclasses.replace(self.d, args=lhs, values=(value,)))
        # the state: afn inside the loop's points, its value before the loop elsewhere
        i = ir.Variable(ir.INDEX, fn.args[self.axis])
        end = ir.Add(self.lo, self.rv.extent)
        inside = ir.And(ir.LE(self.lo, i), ir.LT(i, end))
        at = [ir.Variable(ir.INDEX, fn.args[k]) for k in pos]
        at[pos.index(self.axis)] = ir.Max(ir.Min(i, ir.Sub(end, ir.index(1))), self.lo)
        read = ir.Call(ty, afn.name, tuple(at), ir.FUNC, 0, afn)
        fn.pure = dataclasses.replace(fn.pure, values=(ir.Select(inside, read,
                                                                 fn.pure.values[0]),))
        fn.updates = []


class _Replace(ir.Mutator):
    """Reads of Function `fn` replaced by `by` (V reads it only at the
    previous point)."""

    def __init__(self, fn, by):
        super().__init__()
        self.fn, self.by = fn, by

    def visit_Call(self, c):
        if c.call_type == ir.FUNC and c.func is self.fn:
            return self.by
        return self.mutate_children(c)


def _calls(exprs, fn) -> bool:
    return any(c.call_type == ir.FUNC and c.func is fn for c in ir.find_calls(list(exprs)))


def _log(builder, state_f, array_f, state):
    """The array's new update in the logs p.funcs / p.vars read: the loop
    variable of the state's update now names the array's (returns the
    loop's name)."""
    afn = array_f.function()
    if not any(f is array_f and k == len(afn.updates) for f, k, _, _ in builder.def_log):
        loc = next((loc for f, k, loc, _ in builder.def_log if f is state_f and k == 1), None)
        builder.def_log.append((array_f, len(afn.updates), loc, afn.name))
    name = None
    for label, loop, var, f in list(builder.var_log):
        if f is state_f and var.name() == state.rv.name:
            builder.var_log.append((label, loop, var, array_f))
            name = loop.name
    return name


def _array_name(builder, array_f) -> str:
    return next(owner.name for _, f, owner in builder.funcs if f is array_f)


class _DerivedState(Func):
    """The Func of a state whose running values an array computes: its
    update is the array's (a schedule names the scan by the array)."""

    def update(self, i: int = 0):
        from .schedules import ScheduleNameError
        state, array, k, loop = self.scan_in
        raise ScheduleNameError(
            f"the running values of {state} are computed in the array {array}, which the "
            f"loop stores them in; {state} only reads {array}: schedule the scan as "
            f"p.funcs[{array!r}].update({k}).parallel_scan(p.vars[{array!r}, {loop!r}], "
            f"chunk_size)")
