"""The early exit of an update whose definition states an exit condition
(ir.Definition.exit: where it holds, the update does nothing at this point
and at every later iteration of it).

`exit_test(d, sl, rename, body)` wraps a stage's innermost body (inside its
guards and lets) in `if (exit) LoopExit(loop) else body`, where `loop` is the
innermost serial loop whose iterations the condition does not vary with:
the update's innermost loop, or, when the condition reads the innermost
loops' variables (a Func computed at a consumer's loop, whose pure loops
run one iteration there, around the serial loop of a `while`), the serial
loop outside them, tested at run time to hold those inner loops at one
iteration each. Every remaining iteration of the loop left then updates the
same point, which stays exited: the loop is left, not run to its end.
Otherwise the body stays as it is (the predicates already skip the update).
An update whose exit moves with its innermost RVar (ir.Definition.
exit_moves: insertion sort's shifting loop, whose state is stored at the
position the iteration writes) is left at the loop of that RVar when it is
the innermost loop and serial, although the condition reads its variable.

An update whose RDom runs a `while` loop without a stated bound
(ir.Definition.exit_required: 2**31 - 2 iterations) must be left at the
innermost loop, a serial one: a schedule that puts other loops inside it,
vectorizes or parallelizes it is a located CompileError (the loop would run
all its iterations).

An update whose exit is tested at its outermost loop (ir.Definition.
exit_outer: a `break` before an inner nest, frontend_ast/outer_exit.py) gets
`if (exit) LoopExit(loop)` at the top of that loop's body, before the inner
loops (`outer_exit`, called by build_stage as it wraps the loops): the loop
of the update's outermost RVar, which must be the outermost loop of the
stage, serial and unsplit, else a located CompileError (its values no
longer read the stop flag: the exit is what stops the update)."""
from __future__ import annotations

from pyhalide import ir


def exit_test(d: ir.Definition, sl, rename: dict, body: ir.Stmt) -> ir.Stmt:
    if d.exit_outer:
        if not _outer_placeable(d, sl, rename):
            raise ir.CompileError(
                "the loop around a `break` that stops an inner loop nest must stay the "
                "outermost serial loop of its update, unsplit, so that the `break` is "
                "tested at the top of each of its iterations" + ir.at(d.source))
        return body
    out = _exit_test(d, sl, rename, body)
    if d.exit_required and not _left_innermost(d, sl, out):
        raise ir.CompileError(
            "the loop of a `while` loop without a stated bound must stay the innermost "
            "serial loop of its update, so that it is left when the loop's test fails; "
            "this schedule splits it, puts other loops inside it, or vectorizes or "
            "parallelizes it (it would run 2**31 - 2 iterations): keep it innermost and "
            "serial, or compare a counter with a bound in the `while` condition"
            + ir.at(d.source))
    return out


def outer_exit(d: ir.Definition, rename: dict, var: str, body: ir.Stmt) -> ir.Stmt:
    """The body of the stage's loop `var`, with d's exit tested at its top
    where d's exit is tested at its outermost loop and `var` is that loop."""
    if not d.exit_outer or not var.endswith("." + d.rvars[-1].name):
        return body
    return ir.Block([ir.IfThenElse(ir.substitute(d.exit, rename), ir.LoopExit(var)), body])


def _outer_placeable(d: ir.Definition, sl, rename: dict) -> bool:
    """Whether d's outermost RVar is the stage's outermost loop, serial,
    unsplit, and the exit reads no other loop or let of the stage."""
    if not sl.loops or d.exit is None or d.schedule.splits:
        return False
    lp = sl.loops[0]
    inner = {x.var for x in sl.loops[1:]} | {name for name, _ in sl.lets}
    return lp.kind == ir.ForKind.SERIAL and lp.var.endswith("." + d.rvars[-1].name) and \
        not set(ir.free_vars(ir.substitute(d.exit, rename))) & inner


def _left_innermost(d: ir.Definition, sl, out: ir.Stmt) -> bool:
    """Whether `out` leaves the innermost loop, the loop of d's innermost
    RVar (the `while` loop's), unsplit and serial, at the exit condition
    alone (no test of inner loops' extents)."""
    pure = {a.name for a in d.args if isinstance(a, ir.Variable)}
    for s in d.schedule.splits:         # only pure loops split, fused or renamed
        if s.kind == "fuse" and {s.outer, s.inner} <= pure:
            pure.add(s.old)
        elif s.kind != "fuse" and s.old in pure:
            pure |= {s.outer, s.inner}
        else:
            return False
    if not (sl.loops and d.rvars and d.exit is not None and
            isinstance(out, ir.IfThenElse) and isinstance(out.then_case, ir.LoopExit)):
        return False
    lp = sl.loops[-1]
    return out.then_case.loop == lp.var and lp.kind == ir.ForKind.SERIAL and \
        lp.var.endswith("." + d.rvars[0].name) and not isinstance(out.condition, ir.And)


def _exit_test(d: ir.Definition, sl, rename: dict, body: ir.Stmt) -> ir.Stmt:
    if d.exit is None or not sl.loops or not d.schedule.rvars:
        return body
    cond = ir.substitute(d.exit, rename)
    if d.exit_moves:
        lp = sl.loops[-1]
        if lp.kind == ir.ForKind.SERIAL and lp.var.endswith("." + d.rvars[0].name):
            return ir.IfThenElse(cond, ir.LoopExit(lp.var), body)
        return body
    for j in reversed(range(len(sl.loops))):
        loop, inner = sl.loops[j], sl.loops[j + 1:]
        if loop.kind != ir.ForKind.SERIAL:
            return body
        varying = _varying(sl.lets, {loop.var})
        if any(set(ir.free_vars(e)) & varying for lp in inner for e in (lp.min, lp.extent)):
            return body
        if set(ir.free_vars(cond)) & varying:
            continue
        single = [ir.EQ(lp.extent, ir.Const(lp.extent.type, 1)) for lp in inner]
        return ir.IfThenElse(ir.conjunction(single + [cond]), ir.LoopExit(loop.var), body)
    return body


def _varying(lets, varying: set) -> set:
    """The loop variables `varying` and the lets that depend on them."""
    varying = set(varying)
    grew = True
    while grew:
        grew = False
        for name, value in lets:
            if name not in varying and set(ir.free_vars(value)) & varying:
                varying.add(name)
                grew = True
    return varying
