"""Halide's trace_realizations: the compiled code reports each realization
of a traced Func where it happens (pyhalide/tracing.py prints the events).

    inject_realization_tracing(stmt, ctx) -> stmt

As Halide's Tracing.cpp: a traced Func's Realize gets "Begin realization"
before its body and "End realization" after it, with the realized box (min,
extent per dimension); its produce and consume nodes get "Produce"/"End
produce" and "Consume"/"End consume" with the region its pure stage computes.
An output has no Realize of its own here (or one for scratch storage): its
realization events span the whole pipeline, over the output buffer; nor is
it consumed (a consume node between outputs reports nothing). Each
event is an Evaluate of the trace intrinsic (`pyhalide.trace.<event>.0.<func>`,
value 0, coordinates min0, extent0, min1, ...). Runs after bounds inference
(the region symbols exist) and before storage flattening (Realize nodes)."""
from __future__ import annotations

from pyhalide import ir

from .codegen_ops import TRACE_PREFIX
from .context import (
    LoweringContext,
    buffer_name,
    geometry,
    index_var,
    required_extent,
    required_min,
)


def traces_realizations(ctx: LoweringContext) -> bool:
    return any(fn.schedule.trace_realizations for fn in ctx.env.values())


def _event(event: str, func: str, box) -> ir.Stmt:
    coords = tuple(x for lo, extent in box for x in (lo, extent))
    return ir.Evaluate(ir.Call(ir.INDEX, f"{TRACE_PREFIX}{event}.0.{func}",
                               (ir.index(0),) + coords, ir.INTRINSIC))


def _around(begin: str, end: str, func: str, box, body: ir.Stmt) -> ir.Stmt:
    return ir.block(_event(begin, func, box), body, _event(end, func, box))


class _Inject(ir.Mutator):
    memoize = False
    stmts_only = True

    def __init__(self, ctx: LoweringContext):
        super().__init__()
        self.ctx = ctx

    def _traced(self, name: str) -> bool:
        fn = self.ctx.env.get(name)
        return fn is not None and fn.schedule.trace_realizations

    def visit_Realize(self, s):
        body = self.mutate(s.body)
        if self._traced(s.name) and not self.ctx.is_output(s.name):
            box = [(r.min, r.extent) for r in s.bounds]
            body = _around("BeginRealization", "EndRealization", s.name, box, body)
        if body is s.body:
            return s
        return ir.Realize(s.name, s.types, s.bounds, body)

    def visit_ProducerConsumer(self, s):
        body = self.mutate(s.body)
        if self._traced(s.name) and (s.is_producer or not self.ctx.is_output(s.name)):
            fn = self.ctx.env[s.name]
            box = [(index_var(required_min(s.name, d)), index_var(required_extent(s.name, d)))
                   for d in range(fn.dimensions())]
            kind = "Produce" if s.is_producer else "Consume"
            body = _around(kind, "End" + kind, s.name, box, body)
        if body is s.body:
            return s
        return ir.ProducerConsumer(s.name, s.is_producer, body)


def inject_realization_tracing(stmt: ir.Stmt, ctx: LoweringContext) -> ir.Stmt:
    stmt = _Inject(ctx).mutate(stmt)
    for name in ctx.outputs:
        fn = ctx.env[name]
        if fn.schedule.trace_realizations:
            buf = buffer_name(name, 0, len(fn.output_types))
            box = [(geometry(buf, "min", d), geometry(buf, "extent", d))
                   for d in range(fn.dimensions())]
            stmt = _around("BeginRealization", "EndRealization", name, box, stmt)
    return stmt
