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
Otherwise the body stays as it is (the predicates already skip the update)."""
from __future__ import annotations

from pyhalide import ir


def exit_test(d: ir.Definition, sl, rename: dict, body: ir.Stmt) -> ir.Stmt:
    if d.exit is None or not sl.loops or not d.schedule.rvars:
        return body
    cond = ir.substitute(d.exit, rename)
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
