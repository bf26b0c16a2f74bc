"""Which stage of its consumer a Func computed at a loop is computed in.

`f.compute_at(g, x)` names loop x of g, and g's stages each have a loop x.
As in Halide (a LoopLevel's stage -1 matches that loop in every stage), f
is computed inside each stage of g that uses it: one stage, f's level is
that stage's loop; several, f is computed once per stage, as a copy of f
for each stage but the last (named `f$s<stage>`; its values carry f's
trace events), whose calls in that stage read the copy. Where a Func other
than g also uses f, or Funcs are computed or stored inside f's own loops
(with more than one stage using f), the level stays g's last stage (bounds
inference then says which use is outside it). A store level at a loop of
g is taken in the same stage as the compute level."""
from __future__ import annotations

import dataclasses

from pyhalide import ir

from .context import LoweringContext, compute_level, store_level


class _RenameCalls(ir.Mutator):
    def __init__(self, old: str, new: str):
        super().__init__()
        self.old, self.new = old, new

    def visit_Call(self, c):
        c = self.mutate_children(c)
        if c.call_type == ir.FUNC and c.name == self.old:
            return dataclasses.replace(c, name=self.new)
        return c


def _calls(d: ir.Definition, name: str) -> bool:
    exprs = list(d.args) + list(d.values) + list(d.predicates)
    return any(c.call_type == ir.FUNC and c.name == name for c in ir.find_calls(exprs))


def _at_stage(level: ir.LoopLevel, stage: int) -> ir.LoopLevel:
    return dataclasses.replace(level, stage=stage)


def _rename_in(d: ir.Definition, old: str, new: str) -> ir.Definition:
    m = _RenameCalls(old, new).mutate
    return dataclasses.replace(d, args=tuple(m(a) for a in d.args),
                               values=tuple(m(v) for v in d.values),
                               predicates=[m(p) for p in d.predicates])


def _fresh(env: dict, base: str) -> str:
    name, n = base, 1
    while name in env:
        name, n = f"{base}.{n}", n + 1
    return name


def _placed_inside(ctx: LoweringContext, name: str) -> bool:
    """Whether some Func is computed or stored at a loop of Func `name`."""
    for other in ctx.order:
        for level in (compute_level(ctx, other), store_level(ctx, other)):
            if not level.is_root() and level.func == name:
                return True
    return False


def place_at_stages(ctx: LoweringContext) -> None:
    """Give each compute level of stage -1 its stage (ctx.env and ctx.order
    updated in place; the Functions changed are copies)."""
    for name in list(ctx.order):
        compute, store = compute_level(ctx, name), store_level(ctx, name)
        if compute.is_root() or compute.stage >= 0 or compute.func not in ctx.env:
            continue
        g = ctx.env[compute.func]
        users = [i for i, d in enumerate(g.definitions()) if _calls(d, name)]
        others = [o for o in ctx.order if o not in (name, g.name)
                  and any(_calls(d, name) for d in ctx.env[o].definitions())]
        if not users or others or (len(users) > 1 and _placed_inside(ctx, name)):
            continue
        fn = ctx.env[name]
        position = ctx.order.index(name)
        for stage in users[:-1]:
            clone = _fresh(ctx.env, f"{name}$s{stage}")
            ctx.env[clone] = _with_levels(fn, clone, compute, store, stage)
            defs = g.definitions()
            defs[stage] = _rename_in(defs[stage], name, clone)
            g = _with_definitions(g, defs)
            ctx.env[g.name] = g
            ctx.order.insert(position, clone)
            position += 1
        ctx.env[name] = _with_levels(fn, name, compute, store, users[-1])


def _with_levels(fn: ir.Function, name: str, compute, store, stage: int) -> ir.Function:
    if not store.is_root() and store.func == compute.func:
        store = _at_stage(store, stage)
    schedule = dataclasses.replace(fn.schedule, compute_level=_at_stage(compute, stage),
                                   store_level=store)
    copy = dataclasses.replace(fn, name=name, schedule=schedule)
    if name != fn.name:        # its updates' reads of itself
        defs = [_rename_in(d, fn.name, name) for d in fn.definitions()]
        copy = _with_definitions(copy, defs)
    return copy


def _with_definitions(g: ir.Function, defs: list) -> ir.Function:
    if g.pure is None:
        return dataclasses.replace(g, updates=defs)
    return dataclasses.replace(g, pure=defs[0], updates=defs[1:])
