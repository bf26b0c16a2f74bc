"""The early exit of an update whose definition states an exit condition
(ir.Definition.exit: where it holds, the update does nothing at this point
and at every later iteration of it).

`exit_test(d, sl, rename, body)` wraps a stage's innermost body (inside its
guards and lets) in `if (exit) LoopExit(loop) else body` when the innermost
loop is serial and the condition does not vary with it (then every remaining
iteration of that loop updates the same point, which stays exited): the
loop is left, not run to its end. Otherwise the body stays as it is (the
predicates already skip the update)."""
from __future__ import annotations

from pyhalide import ir


def exit_test(d: ir.Definition, sl, rename: dict, body: ir.Stmt) -> ir.Stmt:
    if d.exit is None or not sl.loops or not d.schedule.rvars:
        return body
    loop = sl.loops[-1]
    if loop.kind != ir.ForKind.SERIAL:
        return body
    cond = ir.substitute(d.exit, rename)
    varying = {loop.var}
    grew = True
    while grew:
        grew = False
        for name, value in sl.lets:
            if name not in varying and set(ir.free_vars(value)) & varying:
                varying.add(name)
                grew = True
    if set(ir.free_vars(cond)) & varying:
        return body
    return ir.IfThenElse(cond, ir.LoopExit(loop.var), body)
