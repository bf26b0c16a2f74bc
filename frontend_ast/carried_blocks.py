"""Inner `for` loops in a phase-mode loop body (carried_phases.py): LU with
a hand-written pivot search, its row swap and its update nest in one `k`
loop:

    for k in range(n):
        p = k
        for i in range(k + 1, n):                       # a block
            if abs(a[i, k]) > abs(a[p, k]):
                p = i
        for j in range(n):                              # a block
            t = a[k, j]; a[k, j] = a[p, j]; a[p, j] = t
        for i in range(k + 1, n):                       # a block holding a block
            f = a[i, k] / a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= f * a[k, j]

A Block is one entry of Phases.phases standing for such a loop: its
children are the phases (and blocks) its body makes, in Python's order.
Phases.define gives each block two RVars of its own, the loop's iteration
(outer) and the index of the running child (inner, unrolled), inner to the
RVars of the blocks around it, so the update runs the children of each
iteration in order and the iterations in order, as Python does. Each
iteration's own RVar runs over an upper bound of the trip count over the
enclosing loops (`trip_bound`); the predicate keeps the iterations of the
running enclosing iteration.

Scalars the body rebinds and that it had before the loop (the pivot `p`)
are 0-d members: written before the loop, read in the body, written back
at the end of each iteration (copy_back), read after the loop. Names first
bound in the body (`t`, `f`, the loop's variable) are not readable after
the loop (Python's last value; a located error where read)."""
from __future__ import annotations

import ast

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import ops, unions
from .analyze import names_assigned
from .arrayexpr import ArrayExpr
from .carried_body import HINT
from .carried_writes import WHAT, stored
from .types import PY_BOOL, PY_FLOAT
from .values import Arr, Val, exact_aff, with_type_range


class Block:
    """One inner loop of the body: loop (Loop), trip (its trip count, a
    node of the enclosing loops' variables), children (phase tuples and
    Blocks, in order)."""

    def __init__(self, loop, trip, children):
        self.loop, self.trip, self.children = loop, trip, children


def run_block(run, s):
    """Run the `for` statement s of a PhaseRun's body as a Block."""
    cx, machine, lo = run.cx, run.m, run.loop_obj
    env = run.bld.scope.env
    il = lo.runner.make_loop(s)
    for v, where in ((il.start, "start"), (il.stop, "stop")):
        if exact_aff(v) is None and not (v.is_static or v.is_const) and \
                not _index_form(ops.node_of(cx, v)):
            raise cx.err(s.iter, f"the {where} of this inner loop is not an affine expression "
                                 f"of the enclosing loops' variables, sizes and scalar "
                                 f"arguments: not supported {WHAT}", hint=HINT)
    assigned = names_assigned(s.body)
    carried = {}
    for n in sorted(assigned - {il.name}):
        v = env.get(n)
        if v is not None and not isinstance(v, lo.done) and not (
                isinstance(v, Val) and not v.union):
            # (its next iteration would read the value of this one)
            raise cx.err(s, f"this inner loop rebinds {n!r}, which names "
                            f"{run.b.describe_obj(v)} before it: not supported {WHAT}",
                         hint=f"give the loop's value another name than {n!r}")
        if isinstance(v, Val):
            m = machine.member(n, v.ty, [])
            node = stored(cx, v, v.ty)
            machine.add([], lambda idx, m=m, node=node: (m, [], {m.index: node}))
            carried[n] = m
    try:
        _run_body(run, s, il, carried, assigned, {})
    except TypeChange as e:
        if e.member not in carried.values():
            raise
        # the body gives a Python float the NumPy float of the same bits
        # (`acc = 0.0; for k in ...: acc += a[i, k] * b[k]`): run it again
        # with the name a NumPy float from the second iteration on
        _run_body(run, s, il, carried, assigned, {e.member.index: e.ty})


def _run_body(run, s, il, carried, assigned, promoted):
    """The body of the inner loop s as the Block's children. promoted:
    {member index: type} of the carried names whose type the body changes
    (same bits): the name has the member's type in the first iteration and
    after a loop that does not run, the body's type elsewhere."""
    cx, machine, lo = run.cx, run.m, run.loop_obj
    env = run.bld.scope.env
    outer, machine.phases = machine.phases, []
    loops = run.bld.array_code.state.symbolic_loops
    old = {n: env.get(n) for n in assigned | {il.name}}
    saved = dict(run.promoted)
    run.promoted.update(promoted)
    pushed = False
    try:
        for n, m in carried.items():
            env[n] = _view(run, m, _compare(cx, ir.EQ, il.val, il.start))
        env[il.name] = il.val
        loops.append(il)
        cx.carried_loops.append(il)
        pushed = True
        run.block_names.append(carried)
        for st in s.body:
            run.exec_stmt(st)
        copy_back(run, carried, s)
    except TypeChange:
        for n, v in old.items():
            if v is None:
                env.pop(n, None)
            else:
                env[n] = v
        raise
    finally:
        if run.block_names and run.block_names[-1] is carried:
            run.block_names.pop()
        children, machine.phases = machine.phases, outer
        if pushed:
            loops.pop()
            cx.carried_loops.pop()
        run.promoted = saved
    if children:
        machine.phases.append(Block(il, lo.trip(il), children))
    ran = Val(ir.GT(lo.trip(il), ir.index(0)), PY_BOOL)
    for n in assigned | {il.name}:
        if n in carried:
            m = carried[n]
            env[n] = machine.scalar_view(m) if m.index not in promoted else \
                unions.make_union(cx, [(ran, _typed_view(run, m, promoted[m.index])),
                                       (unions.negate(cx, ran), machine.scalar_view(m))])
        else:
            env[n] = lo.done(n, array=isinstance(old[n], (Arr, ArrayExpr)))


class TypeChange(Exception):
    """A carried name's binding in the body has another type than the
    member (same bits): run_block runs the body again with it promoted."""

    def __init__(self, member, ty):
        super().__init__(member.name)
        self.member, self.ty = member, ty


def _compare(cx, cls, a, b):
    return Val(cls(cast(ir.INDEX, ops.node_of(cx, a)), cast(ir.INDEX, ops.node_of(cx, b))),
               PY_BOOL)


def _typed_view(run, m, ty):
    """Member m (a Python float's) read as a value of type ty (a NumPy
    float, exact: the member holds it widened)."""
    return with_type_range(Val(cast(ty.ir(), run.m.read(m, [])), ty))


def first_or_later(cx, machine, m, ty, var, start) -> Val:
    """A carried Python float promoted to the NumPy float ty (TypeChange)
    at the start of an iteration of the loop over var from start: the
    member as it is in the first iteration, read as ty in the later ones."""
    first = _compare(cx, ir.EQ, var, start)
    later = with_type_range(Val(cast(ty.ir(), machine.read(m, [])), ty))
    return unions.make_union(cx, [(first, machine.scalar_view(m)),
                                  (unions.negate(cx, first), later)])


def after_loop(cx, machine, m, ty, trip) -> Val:
    """The promoted member (first_or_later) after the loop: ty where the
    loop ran, the member's own type (its value before the loop) where not."""
    ran = Val(ir.GT(trip, ir.index(0)), PY_BOOL)
    later = with_type_range(Val(cast(ty.ir(), machine.read(m, [])), ty))
    return unions.make_union(cx, [(ran, later),
                                  (unions.negate(cx, ran), machine.scalar_view(m))])


def _view(run, m, first):
    """The carried name's value at the start of an iteration: the member,
    of the promoted type after the first iteration."""
    ty = run.promoted.get(m.index)
    if ty is None:
        return run.m.scalar_view(m)
    later = _typed_view(run, m, ty)
    return unions.make_union(run.cx, [(first, run.m.scalar_view(m)),
                                      (unions.negate(run.cx, first), later)])


def copy_back(run, carried, node):
    """At the end of an iteration, each carried scalar's member gets the
    value its name holds then (nothing where the name reads the member:
    the body's bindings write it, write_carried)."""
    cx, env, machine = run.cx, run.bld.scope.env, run.m
    for n, m in carried.items():
        v = env.get(n)
        if isinstance(v, Val) and not v.union and \
                ir.equal(ops.node_of(cx, v), machine.call(m, [])):
            continue
        _check_type(run, n, m, v, node)
        value = stored(cx, v, m.ty)
        machine.add([], lambda idx, m=m, value=value: (m, [], {m.index: value}))


def write_carried(run, name, m, v, node) -> Val:
    """`name = v` for a scalar the running Block carries in member m: a
    phase writes m (the value reads the state as it is here); the name
    reads m."""
    _check_type(run, name, m, v, node)
    value = stored(run.cx, v, m.ty)
    run.m.add([], lambda idx: (m, [], {m.index: value}))
    return _typed_view(run, m, v.ty)


def _check_type(run, n, m, v, node):
    ty = run.promoted.get(m.index, m.ty)
    if isinstance(v, Val) and not v.union and v.ty != ty and ty == m.ty and \
            m.ty == PY_FLOAT and v.ty.is_float():
        raise TypeChange(m, v.ty)
    if not isinstance(v, Val) or v.union or v.ty != ty:
        when = "before this inner loop" if ty == m.ty else "after this inner loop's first " \
                                                           "iteration"
        raise run.cx.err(node, f"{n!r} is {ty.describe()} {when} and "
                               f"{run.b.describe_obj(v)} in its body: not supported {WHAT}",
                         hint=f"convert it before the loop ({n} = float({n}), or "
                              f"np.float64(...))")


def guarded_value(run, name, v, node):
    """`name = v` under the enclosing `if`s of a block's body: v where the
    tests hold, the name's value before elsewhere."""
    cx = run.cx
    before = run.bld.scope.env.get(name)
    if not isinstance(before, Val) or not isinstance(v, Val) or before.union or v.union or \
            before.ty != v.ty:
        raise cx.err(node, f"{name!r} is given a value under an `if` {WHAT}; it must have a "
                           f"value of the same type before the `if`", hint=HINT)
    n = ir.Call(v.ty.ir(), "if_then_else", (run.condition(), stored(cx, v, v.ty),
                                            stored(cx, before, v.ty)), ir.INTRINSIC)
    return Val(n, v.ty)


def is_block(s) -> bool:
    """Whether s is a `for ... in range(...)` statement without else."""
    if not isinstance(s, ast.For) or s.orelse or not isinstance(s.target, ast.Name):
        return False
    it = s.iter
    return isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
        it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3


# bounds ------------------------------------------------------------------------------------
def trip_bound(cx, node, e, ranges):
    """An upper bound of the index expression e over the loop variables in
    ranges (name -> (lo, hi), nodes free of them): interval arithmetic over
    + - * // by constants, min, max and casts to the index type."""
    b = _interval(e, ranges)
    if b is None:
        raise cx.err(node, f"the trip count of this inner loop has no bound over the "
                           f"enclosing loops {WHAT}: not supported", hint=HINT)
    return b[1]


def _interval(e, ranges):
    free = ir.free_vars(e)
    if not any(k in ranges for k in free):
        return e, e
    if isinstance(e, ir.Variable):
        return ranges[e.name]
    if isinstance(e, ir.Cast):
        if _narrowed_shift(e):
            # the ends in the wide type, saturated: the values fit e's type
            lo, hi = _interval(e.value.a.value, ranges)
            return tuple(_saturated(e.type, ir.Add(cast(e.value.type, x), e.value.b)
                                    if isinstance(e.value, ir.Add) else
                                    ir.Sub(cast(e.value.type, x), e.value.b)) for x in (lo, hi))
        inner = _interval(e.value, ranges)
        if inner is None or not e.type.is_int() or e.type.bits < e.value.type.bits:
            return None
        return cast(e.type, inner[0]), cast(e.type, inner[1])
    if isinstance(e, (ir.Add, ir.Sub, ir.Min, ir.Max)):
        a, b = _interval(e.a, ranges), _interval(e.b, ranges)
        if a is None or b is None:
            return None
        if isinstance(e, ir.Add):
            return ir.Add(a[0], b[0]), ir.Add(a[1], b[1])
        if isinstance(e, ir.Sub):
            return ir.Sub(a[0], b[1]), ir.Sub(a[1], b[0])
        f = ir.Min if isinstance(e, ir.Min) else ir.Max
        return f(a[0], b[0]), f(a[1], b[1])
    if isinstance(e, ir.Select):
        a, b = _interval(e.true_value, ranges), _interval(e.false_value, ranges)
        if a is None or b is None:
            return None
        return ir.Min(a[0], b[0]), ir.Max(a[1], b[1])
    if isinstance(e, ir.Mul) and isinstance(e.a, ir.Const):
        return _interval(ir.Mul(e.b, e.a), ranges)
    if isinstance(e, (ir.Mul, ir.Div)) and isinstance(e.b, ir.Const):
        a = _interval(e.a, ranges)
        c = e.b.value
        if a is None or (isinstance(e, ir.Div) and c <= 0):
            return None
        f = ir.Mul if isinstance(e, ir.Mul) else ir.Div
        lo, hi = f(a[0], e.b), f(a[1], e.b)
        return (lo, hi) if c >= 0 else (hi, lo)
    return None


def _narrowed_shift(e) -> bool:
    """Whether e is `cast(v.type, cast(wide, v) + c)` (or `- c`) of a loop
    variable v and a constant c (`range(i + 1, n)`'s start, computed in 64
    bits). Its values fit v's type (a loop's start and stop are checked to
    fit its variable's type, loops.py), so the ends of its interval
    saturated to that type bound it."""
    x = e.value
    return isinstance(x, (ir.Add, ir.Sub)) and isinstance(x.a, ir.Cast) and \
        isinstance(x.a.value, ir.Variable) and isinstance(x.b, ir.Const) and \
        x.a.value.type == e.type and x.a.type == x.type and x.b.type == x.type and \
        x.type.is_int() and e.type.is_int() and x.type.bits > e.type.bits


def _saturated(ty, x):
    """x (of a wider int type) clamped to ty's range and cast to ty."""
    lo, hi = -2 ** (ty.bits - 1), 2 ** (ty.bits - 1) - 1
    return cast(ty, ir.Min(ir.Max(x, ir.Const(x.type, lo)), ir.Const(x.type, hi)))


_INDEX_NODES = (ir.Variable, ir.Const, ir.Cast, ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Min, ir.Max,
                ir.Select, ir.LT, ir.LE, ir.GT, ir.GE, ir.EQ, ir.NE, ir.And, ir.Or, ir.Not)


def _index_form(e) -> bool:
    """Whether e is built of the enclosing loops' variables, sizes and
    scalar arguments with the operations of _interval (and the comparisons
    of a select's condition): the bounds of moving_slices.py's element loops
    (`min(j, A.shape[1])`, Python's rules for a negative bound)."""
    if not isinstance(e, _INDEX_NODES):
        return False
    if isinstance(e, ir.Variable):
        return True
    return all(_index_form(c) for c in ir.children(e))


def loop_range(cx, loop, trip, ranges):
    """(lo, hi) of loop's variable over its iterations and the enclosing
    loops (ranges)."""
    start = cast(ir.INDEX, ops.node_of(cx, loop.start))
    last = ir.Add(start, ir.Mul(ir.index(loop.step), ir.Sub(trip, ir.index(1))))
    a, b = _interval(start, ranges), _interval(last, ranges)
    if a is None or b is None:
        return None
    return ir.Min(a[0], b[0]), ir.Max(a[1], b[1])
