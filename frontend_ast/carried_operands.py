"""Scalar operands of array code in a loop that carries arrays, computed
where Python computes them.

`y = y + a * b[int(x[i])]` reads b[int(x[i])] once per iteration whatever
a's size; compiled, the read sits in the element expression of y's step,
so with a empty its index check never ran (0.0 where Python raises
IndexError). array_scalar_sinks logs such operands per statement (a
scalar with run-time checks of its own used by an array operation); the
carried loop's body runs outside Builder.exec_stmt (carried_body.BodyRun),
so it logs them itself (OperandLog) and computes their checks
(check_order.operand_flags, only where their lazy conditions hold):

- phase mode (carried_phases.PhaseRun): a 0-d member written by a phase of
  its own at each iteration (PhaseRun.scalar: under the enclosing `if`s),
  placed where the operand was used (before the phases of the array
  operation that reads it: it reads STATE as Python's operand does);
- the recurrence (carried_arrays.CarriedLoop): a hidden 0-d Func updated
  once per iteration of the loop (an RDom over its trip count) with the
  operand's checks, realized as an unreturned output. An operand that
  reads the carried state (a slot of STATE only the step sees) is a
  located refusal there (the loop is compiled in phase mode instead,
  CarriedLoop._run)."""
from __future__ import annotations

import ast

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.expr import cast_node as cast
from pyhalide.var import RDom

from . import array_scalar_sinks, check_order, ops
from .values import Arr


class _Marked(list):
    """ScalarLog.used that records, with each operand, the place in the
    phase list where it was used (`at()`), or None."""

    def __init__(self, at):
        super().__init__()
        self.at, self.marks = at, []

    def append(self, x):
        self.marks.append(self.at() if self.at is not None else None)
        super().append(x)


class OperandLog(array_scalar_sinks.ScalarLog):
    def __init__(self, base, at=None):
        super().__init__(base)
        self.used = _Marked(at)


def logged(run, s, body):
    """Run body() (statement s of the BodyRun `run`) with its own log of
    checked scalar operands; their checks are then handed to
    run.operands_used(s, [(Val, mark)])."""
    cx = run.cx
    outer = cx.scalar_log
    log = cx.scalar_log = OperandLog(len(cx.assumed), getattr(run, "phase_mark", None))
    try:
        body()
    finally:
        cx.scalar_log = outer
    flush(run, s, log)


def flush(run, s, log):
    """The operands log holds so far, handed to run.operands_used (and
    taken out of the log)."""
    if not log.used:
        return
    out = []
    bld = run.bld
    for entry, mark in zip(log.used, log.used.marks):
        one = array_scalar_sinks.ScalarLog(log.base)
        one.used = [entry]
        for v in array_scalar_sinks.values(run.cx, one,
                                           lambda v: check_order.operand_flags(bld, v)):
            if v.risky and v.node is not None and not v.union and not v.ty.is_complex():
                out.append((v, mark))
    log.used = _Marked(log.used.at)
    if out:
        run.operands_used(s, out)


def bound_scalar(run, stmt):
    """Phase mode: the value `stmt` binds to a name logged as used (`s = k
    // (n - k)` read only by an inner loop, which may run no iteration:
    its checks are computed where Python evaluates it, not only where the
    value is read). Not where the test of an `if` after it (past binds of
    other names only) reads the name outside lazy parts: the phase mode
    computes that test where Python does, and with it the checks."""
    log = run.cx.scalar_log
    if not isinstance(log, OperandLog) or not isinstance(stmt, ast.Assign):
        return
    got = log.vals.get(id(stmt.value))
    if got is None or id(stmt.value) in log.seen or _tested_next(run.loop_node, stmt):
        return
    log.seen.add(id(stmt.value))
    log.used.append(got)


def _tested_next(root, stmt) -> bool:
    names = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if len(names) != len(stmt.targets):
        return False
    for node in ast.walk(root):
        for stmts in (getattr(node, "body", None), getattr(node, "orelse", None)):
            if not isinstance(stmts, list) or not any(s is stmt for s in stmts):
                continue
            k = next(k for k, s in enumerate(stmts) if s is stmt)
            for later in stmts[k + 1:]:
                if isinstance(later, ast.If):
                    return all(n in _eager_names(later.test) for n in names)
                if not (isinstance(later, ast.Assign) and
                        all(isinstance(t, ast.Name) and t.id not in names
                            for t in later.targets)):
                    return False
            return False
    return False


def _eager_names(e) -> set:
    """The names e reads wherever it is evaluated (not in the later parts
    of `and`/`or`, the branches of a conditional expression, lambdas or
    comprehensions)."""
    if isinstance(e, ast.Name):
        return {e.id}
    if isinstance(e, ast.BoolOp):
        return _eager_names(e.values[0])
    if isinstance(e, ast.IfExp):
        return _eager_names(e.test)
    if isinstance(e, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp,
                      ast.NamedExpr)):
        return set()
    return {n for c in ast.iter_child_nodes(e) for n in _eager_names(c)}


def phase_operands(run, vals):
    """Phase mode: each operand's checks stored into a 0-d member by a
    phase placed at its mark (the phase list and the index where it was
    used)."""
    machine = run.m
    for v, (phases, at) in reversed(vals):
        run.scalar("operand", v, run.cx.cur_node, snapshot=True)
        entry = machine.phases.pop()
        phases.insert(at, entry)


def reads_arrays(cx, operands, arrays) -> bool:
    """Whether one of the operands' checks (a BodyRun's, run over the
    arrays as they are before the loop) reads one of `arrays` (the arrays
    the loop carries: the recurrence cannot compute it outside its step)."""
    names = set()
    for a in arrays:
        names.update(f.name() for f in getattr(a, "versions", ()))
        if getattr(a, "image", None) is not None:
            names.add(a.image.name())
        for part in getattr(a, "parts", lambda: ())():
            names.update(f.name() for f in part.versions)
    return any(c.call_type in (ir.FUNC, ir.IMAGE) and c.name in names
               for v in operands for c in ir.find_calls([ops.node_of(cx, v)]))


def step_sink(loop_obj, operands, state, it, loop):
    """The recurrence: the operands' checks (Vals of the loop variable)
    computed at each iteration by a hidden 0-d Func (an update over the
    trip count), an unreturned output. False where one reads the carried
    state (not computable outside the step)."""
    if not operands:
        return True
    cx, bld = loop_obj.cx, loop_obj.bld
    if bld.state.loops:
        return False        # (the sink would need the enclosing loops' iterations)
    name = state.name()
    for v in operands:
        n = ops.node_of(cx, v)
        if it.name in ir.free_vars(n) or any(
                c.call_type == ir.FUNC and c.name == name for c in ir.find_calls([n])):
            return False
    if cx.typing:
        return True
    node = loop_obj.node
    loc = cx.smap.loc(node)
    T = loop_obj.trip(loop)
    cond = loop_obj.scope.current_condition()
    for k, v in enumerate(operands):
        n = ops.node_of(cx, v)
        arr = Arr("operand_unused", v.ty, [], "local", loc)
        arr.sink = True
        f = bld.emitter.new_func(f"operand_unused{k}", arr)
        rdom = RDom([(Expr.wrap(ir.index(0)), Expr.wrap(T))], f"r_operand{k}")
        t = rdom[0].node
        at = ir.Add(cast(ir.INDEX, ops.node_of(cx, loop.start)), ir.Mul(ir.index(loop.step), t))
        value = ir.substitute(n, {loop.var.name: at})
        if cond is not None:
            c = ops.node_of(cx, ops.truth(cx, cond))
            value = ir.Call(value.type, "if_then_else", (c, value, _zero(value.type)),
                            ir.INTRINSIC)
        zero = _zero(value.type)
        bld.emitter.define(f, (), (zero,), [], None, loc, pure=True, label=f.name())
        bld.emitter.define(f, (), (value,), [], rdom, loc, label=f.name())
        bld.defs.mark_emitted([zero, value], f)
        arr.func, arr.defined = f, True
        arr.versions.append(f)
        bld.array_code.checked.append(arr)
    return True


def _zero(ty):
    return ir.Const(ty, False if ty.is_bool() else 0)
