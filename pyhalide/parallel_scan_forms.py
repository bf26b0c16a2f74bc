"""What a parallel scan carries across a chunk, for each form of scan.

A scan's update is `V(x)`, x the value at the previous point (`scan.v_x`:
the update's values with that read as the Variables `scan.xs`). A chunk of
points is summed up by a *state*, and a `Lift` says how:

- `first(q)`: the state of the single point q;
- `step(s, q)`: state s followed by point q (the local scans);
- `apply(x, s)`: the value after x followed by the points of s (the carries
  and the final combination).

The forms, tried in order:

1. the tables prove V(x) = op(x, y) for an associative op (sums, products,
   min/max, argmax-so-far, bitwise operators): the state is a value, first
   is y, step is the update itself and apply is op;
2. a reset, `select(c, E, op(x, y))` (or the branches swapped) with c and E
   free of x and op proven by the tables (a segmented sum): the state is
   (whether the chunk resets, the value since its last reset);
3. an affine map `A * x + B` with A and B free of x (a linear recurrence,
   an exponential moving average): the state is the composed map (A, B).

Integer forms are exact (wrapping arithmetic is a ring); floats are
combined in another order, which the schedule asked for.
"""
from __future__ import annotations

from . import ir
from .associativity import prove_associativity
from .checks import apply as apply_checks
from .ir.errors import counted
from .parallel_scan import func_call
from .rfactor_lex import instantiate
from .rfactor_nan import exact_merge_ops


class Lift:
    """The state of a chunk (see the module docstring); expressions are at
    point `q` after `at(e, q)`."""

    def __init__(self, scan, types):
        self.scan, self.types = scan, tuple(types)

    def at(self, e, q, xs=None):
        m = {self.scan.rname: q}
        if xs is not None:
            m.update({x.name: v for x, v in zip(self.scan.xs, xs)})
        return ir.substitute(e, m)

    def guarded(self, q, values) -> tuple:
        """values with the update's run-time checks at q (each point of
        the scan is a first or a step exactly once)."""
        checks = [self.at(k, q) for k in self.scan.checks]
        return tuple(apply_checks(checks, v) for v in values)


class OpLift(Lift):
    """Form 1: the state is a partial result of the proven op. A float
    operator that compares and copies combines with the update's own form,
    and each chunk starts from the identity (rfactor_nan: NaN values)."""

    def __init__(self, scan, op, ops=None, start=None):
        super().__init__(scan, [x.type for x in scan.xs])
        self.ops = ops if ops is not None else [o.node for o in op.ops]
        self.ys = [y.node for y in op.ys]
        self.start = start

    def first(self, q):
        if self.start is not None:
            return self.step(self.start, q)
        return self.guarded(q, [self.at(y, q) for y in self.ys])

    def step(self, s, q):
        return self.guarded(q, [self.at(v, q, s) for v in self.scan.v_x])

    def apply(self, x, s):
        return tuple(instantiate(o, list(x), list(s)) for o in self.ops)


class ResetLift(Lift):
    """Form 2: (reset seen, value since the last reset)."""

    def __init__(self, scan, cond, value, op):
        super().__init__(scan, [ir.Bool(), scan.xs[0].type])
        self.cond, self.value = cond, value
        self.op, self.y = op.ops[0].node, op.ys[0].node

    def _op(self, a, b):
        return instantiate(self.op, [a], [b])

    def first(self, q):
        c = self.at(self.cond, q)
        return self.guarded(q, [c, ir.Select(c, self.at(self.value, q), self.at(self.y, q))])

    def step(self, s, q):
        f, v = self.first(q)
        return (ir.Or(s[0], f), ir.Select(f, v, self._op(s[1], v)))

    def apply(self, x, s):
        return (ir.Select(s[0], s[1], self._op(x[0], s[1])),)


class AffineLift(Lift):
    """Form 3: the map x -> a * x + b of the points so far, as (a, b)."""

    def __init__(self, scan, a, b):
        t = scan.xs[0].type
        super().__init__(scan, [t, t])
        self.a, self.b = a, b

    def first(self, q):
        return self.guarded(q, [self.at(self.a, q), self.at(self.b, q)])

    def step(self, s, q):
        a, b = self.first(q)
        return (ir.Mul(a, s[0]), ir.Add(ir.Mul(a, s[1]), b))

    def apply(self, x, s):
        return (ir.Add(ir.Mul(s[0], x[0]), s[1]),)


def lift(ctx, d, scan, pre) -> Lift:
    """The first form that applies to the update, or a CompileError with the
    tables' reason."""
    op = _prove(ctx, d, scan, scan.v_x)
    if op.associative:
        _usable(ctx, d, op, len(scan.xs))
        return _op_lift(ctx, d, scan, op)
    if len(scan.xs) == 1:
        reset = _reset(ctx, d, scan)
        if reset is not None:
            return reset
        ab = _affine(scan.v_x[0], scan.xs[0].name)
        if ab is not None and ab[0] is not None and not scan.xs[0].type.is_bool():
            a, b = ab
            from .parallel_scan_gradual import gradual_affine
            return gradual_affine(scan, a, b if b is not None else ir.zero(a.type))
    reason = op.reason.split(": ", 1)[1] if op.reason.startswith("Func ") else op.reason
    ctx.fail(f"its operator is not provably associative: {reason}", d)


def _op_lift(ctx, d, scan, op) -> OpLift:
    """OpLift with the operator's canonical form, or for float values that
    are compared and copied, the update's own form (NaN values as the loop
    has them) with chunks started from a right identity."""
    from_identity = op.identity_side in ("both", "right")
    states = [(x, i) for i, x in enumerate(scan.xs)]
    forms, why, _ = exact_merge_ops(list(scan.v_x), states, op, seeded=not from_identity)
    if why is not None:
        ctx.fail(f"its operator is not provably associative: {why}", d)
    if forms is None:
        return OpLift(scan, op)
    start = [i.node for i in op.identities] if from_identity else None
    return OpLift(scan, op, forms, start)


def _usable(ctx, d, op, n):
    if op.predicate is not None:
        ctx.fail(f"it combines a value only where {ir.expr_to_str(op.predicate)} holds; "
                 f"write the condition into the value (a select)", d)
    if any(y is None for y in op.ys):
        ctx.fail(f"it leaves some of its {counted(n, 'value')} unchanged; each value of a "
                 f"scan must combine a new element", d)


def _prove(ctx, d, scan, values):
    """prove_associativity of `values` (over scan.xs) as the update of a
    stand-in for f that reads x at the point it writes. Its reason shows
    the previous point as the user wrote it."""
    from .func import Func, Stage
    fn = ctx.fn
    proof_fn = ir.Function(name=fn.name, args=fn.args, output_types=fn.output_types,
                           pure=fn.pure, source=fn.source)
    m = {x.name: func_call(proof_fn, scan.lhs, i) for i, x in enumerate(scan.xs)}
    vals = tuple(ir.substitute(v, m) for v in values)
    sched = ir.StageSchedule(dims=list(d.schedule.dims), rvars=list(d.schedule.rvars))
    proof_fn.updates = [ir.Definition(scan.lhs, vals, [], sched, d.source, d.rdom_name)]
    shell = Func.__new__(Func)
    shell._function, shell._vars = proof_fn, []
    op = prove_associativity(Stage(shell, 1))
    if not op.associative:
        here = ir.expr_to_str(ir.Call(fn.output_types[0], fn.name, scan.lhs, ir.FUNC, 0))
        prev = ir.expr_to_str(ir.Call(fn.output_types[0], fn.name, scan.prev_args, ir.FUNC, 0))
        op.reason = op.reason.replace(here, prev)
    return op


def _free_of(e, name: str) -> bool:
    return name not in ir.free_vars(e)


def _reset(ctx, d, scan):
    """Form 2 when V is select(c, E, W(x)) or select(c, W(x), E) and the
    tables prove W."""
    v, x = scan.v_x[0], scan.xs[0].name
    if not (isinstance(v, ir.Select) and _free_of(v.condition, x)):
        return None
    t, f = v.true_value, v.false_value
    if _free_of(t, x) and not _free_of(f, x):
        cond, value, w = v.condition, t, f
    elif _free_of(f, x) and not _free_of(t, x):
        cond, value, w = ir.Not(v.condition), f, t
    else:
        return None
    op = _prove(ctx, d, scan, (w,))
    if not op.associative or op.predicate is not None or op.ys[0] is None:
        return None
    return ResetLift(scan, cond, value, op)


def _affine(e, x: str):
    """(A, B) with e == A * x + B, A and B free of x (None stands for 0), or
    None when e is not of that form."""
    if isinstance(e, ir.Variable) and e.name == x:
        return ir.one(e.type), None
    if _free_of(e, x):
        return None, e
    if isinstance(e, (ir.Add, ir.Sub)):
        pa, pb = _affine(e.a, x), _affine(e.b, x)
        if pa is None or pb is None:
            return None
        node = type(e)
        return tuple(_join(node, u, w, e.type) for u, w in zip(pa, pb))
    if isinstance(e, ir.Mul):
        for k, other in ((e.a, e.b), (e.b, e.a)):
            if _free_of(k, x):
                p = _affine(other, x)
                if p is None:
                    return None
                return tuple(None if u is None else ir.Mul(k, u) for u in p)
    return None


def _join(node, u, w, t):
    if w is None:
        return u
    if u is None:
        return w if node is ir.Add else ir.Sub(ir.zero(t), w)
    return node(u, w)
