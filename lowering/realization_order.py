"""Which Funcs get storage, and in what order they are computed."""
from __future__ import annotations

from pyhalide import ir

from .context import LoweringContext


def is_inlined(fn: ir.Function, outputs) -> bool:
    """The default schedule: a pure Func that is not an output is inlined,
    unless its schedule says otherwise."""
    level = fn.schedule.compute_level
    if fn.name in outputs or fn.updates:
        return False
    return level is None or level.is_inlined()


def _callees(fn: ir.Function) -> list:
    names = []
    for d in fn.definitions():
        exprs = list(d.args) + list(d.values) + list(d.predicates)
        for c in ir.find_calls(exprs):
            if c.call_type == ir.FUNC and c.name != fn.name:
                names.append(c.name)
    return names


def realization_order(ctx: LoweringContext) -> list:
    """Names of the Funcs computed with storage, producers before consumers
    (depth-first from the outputs, callees in first-call order)."""
    order, state = [], {}

    def visit(name, path):
        s = state.get(name)
        if s == "done":
            return
        if s == "active":
            cycle = " -> ".join(path + [name])
            raise ir.CompileError(f"the Funcs call each other in a cycle: {cycle}")
        state[name] = "active"
        for callee in _callees(ctx.env[name]):
            visit(callee, path + [name])
        state[name] = "done"
        if not is_inlined(ctx.env[name], ctx.outputs):
            order.append(name)

    for out in ctx.outputs:
        visit(out, [])
    return order
