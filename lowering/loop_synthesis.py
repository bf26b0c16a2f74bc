"""Build the loop nest from the Funcs and their schedules.

Each Func with storage becomes `realize f { produce f { stages } consume f {
...its consumers... } }`, producers outermost. A stage loops over its dims
(innermost first in the schedule; the loop nest is built outermost first).
Pure Vars loop over the Func's computed region (symbols `f.bD.min` and
`f.bD.extent`, defined later by bounds inference); RVars over their RDom
bounds; RDom predicates guard the body."""
from __future__ import annotations

from pyhalide import ir

from .context import (LoweringContext, region_min, region_extent, loop_name, index_var)


def stage_loop_vars(fn: ir.Function, stage: int, d: ir.Definition) -> dict:
    """user variable name -> (loop variable name, (min, extent))."""
    loops = {}
    rvars = {rv.name: rv for rv in d.schedule.rvars}
    pure_dim = {}
    for pos, a in enumerate(d.args):
        if isinstance(a, ir.Variable) and a.kind == "":
            pure_dim[a.name] = pos
    for dim in d.schedule.dims:
        name = loop_name(fn.name, stage, dim.var)
        if dim.var in rvars:
            rv = rvars[dim.var]
            loops[dim.var] = (name, (rv.min, rv.extent))
        elif dim.var in pure_dim:
            p = pure_dim[dim.var]
            loops[dim.var] = (name, (index_var(region_min(fn.name, p)),
                                     index_var(region_extent(fn.name, p))))
    return loops


def build_stage(fn: ir.Function, stage: int, d: ir.Definition) -> ir.Stmt:
    loops = stage_loop_vars(fn, stage, d)
    rename = {v: index_var(name) for v, (name, _) in loops.items()}
    args = tuple(ir.substitute(a, rename) for a in d.args)
    values = tuple(ir.substitute(v, rename) for v in d.values)
    body: ir.Stmt = ir.Provide(fn.name, values, args)
    preds = [ir.substitute(p, rename) for p in d.predicates]
    if preds:
        body = ir.IfThenElse(ir.conjunction(preds), body)
    for dim in d.schedule.dims:               # innermost first
        if dim.var not in loops:
            continue
        name, (lo, ext) = loops[dim.var]
        body = ir.For(name, lo, ext, dim.kind, body)
    return body


def build_produce(fn: ir.Function) -> ir.Stmt:
    stages = [build_stage(fn, i, d) for i, d in enumerate(fn.definitions())]
    return ir.ProducerConsumer(fn.name, True, ir.block(*stages))


def synthesize_loops(ctx: LoweringContext) -> ir.Stmt:
    """The whole pipeline as nested realizations (bounds left symbolic)."""
    body = None
    for name in reversed(ctx.order):          # consumers first, innermost
        fn = ctx.env[name]
        produce = build_produce(fn)
        if body is None:
            inner = produce
        else:
            inner = ir.block(produce, ir.ProducerConsumer(name, False, body))
        bounds = tuple(ir.Range(index_var(region_min(name, dim)), index_var(region_extent(name, dim)))
                       for dim in range(fn.dimensions()))
        body = ir.Realize(name, tuple(fn.output_types), bounds, inner)
    return body
