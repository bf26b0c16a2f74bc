"""The region of each Func, buffer and Param that the output reads (Halide's
inference_bounds in propagate_adjoints): from the consumers to the
producers, the hull of every call's arguments over the consumer's region
(its pure Vars) and the whole domains of the RDoms."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.errors import CompileError
from pyhalide.lowering.interval import UNBOUNDED, Interval, bounds_of, union
from pyhalide.simplify import simplify
from pyhalide.source import at, user_location

from .rvars import rvar_bounds


def definitions(fn: ir.Function) -> list:
    return [fn.pure] + list(fn.updates)


def required_regions(order: list, output_box: list) -> dict:
    """name -> [Interval per dimension] for the output (order[-1], its region
    `output_box`) and everything it calls; `order` lists the Functions
    producers first. Raises when a region is not bounded."""
    scope = {}
    for fn in order:
        for d in definitions(fn):
            for name, (lo, ext) in rvar_bounds(list(d.values) + list(d.args)).items():
                scope[name] = Interval(lo, simplify(ir.Sub(ir.Add(lo, ext), ir.one(lo.type))))
    regions = {order[-1].name: list(output_box)}
    for fn in reversed(order):
        local = dict(scope)
        local.update(zip(fn.args, regions[fn.name]))
        for d in definitions(fn):
            for call in ir.find_calls(list(d.values)):
                if call.call_type == ir.INTRINSIC:
                    continue
                box = [_bounded(bounds_of(a, local)) for a in call.args]
                old = regions.get(call.name)
                regions[call.name] = box if old is None else \
                    [union(a, b) for a, b in zip(old, box)]
    for name, box in regions.items():
        for dim, iv in enumerate(box):
            if not iv.bounded():
                raise CompileError(f"Error: Access to function or buffer {name} at dimension {dim} is "
                                   f"not bounded. We can only differentiate bounded accesses.{at(user_location())}")
    return regions


def _bounded(iv: Interval) -> Interval:
    """The interval, unbounded when an end depends on data (Halide cannot
    bound such an access either)."""
    return UNBOUNDED if iv.data_dependent() or not iv.bounded() else iv
