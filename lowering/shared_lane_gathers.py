"""Gathers whose lanes share a coordinate: scalar loads instead.

    lanes_share_coordinate(index, lookup) -> bool

A vector index built from `ramp(b, 1, L) / c` (c >= 4: a coordinate the lanes
share in groups of c, as bilateral grid's `blury[x / 8, y / 8, z(x, y), c]`)
reads a few neighbouring elements per plane; on the AMD host (Zen 4/5) the
gather instruction costs more than the loads it replaces there: bilateral
grid's slicing stage with scalar loads (extract, load, insert, as Halide
emits every gather) took 39.4-40.9 instead of 43.2 ms of CPU (docs/
apps_speed_amd_ll.md). The rule holds for every target (measured on the AMD
host only; Halide scalarizes every gather on all of them). A gather with no such coordinate (local Laplacian's
LUT lookups) stays a gather: scalarized, it was slower (228 -> 251 ms);
so does one whose lanes share a coordinate in pairs only (c = 2 or 3:
interpolate's upsampling, 25.8 -> 28.1 ms scalarized).
`lookup(name)` is the value of a vector let in scope, or None
(codegen_llvm._FunctionEmitter.let_expr)."""
from __future__ import annotations

from typing import Callable, Optional

from pyhalide import ir

__all__ = ["lanes_share_coordinate"]


def _const_at_least_four(e) -> bool:
    while isinstance(e, ir.Broadcast):
        e = e.value
    return isinstance(e, ir.Const) and e.value >= 4


def _unit_ramp(e, lookup) -> bool:
    if isinstance(e, ir.Variable) and e.type.lanes > 1:
        e = lookup(e.name)
    return isinstance(e, ir.Ramp) and isinstance(e.stride, ir.Const) and e.stride.value == 1


def lanes_share_coordinate(index: ir.Expr,
                           lookup: Callable[[str], Optional[ir.Expr]], depth: int = 6) -> bool:
    """Whether the vector index holds `ramp(b, 1, L) / c` with c >= 4,
    looking through vector lets `depth` levels deep."""
    if depth < 0:
        return False
    if isinstance(index, ir.Variable):
        if index.type.lanes == 1:
            return False
        value = lookup(index.name)
        return value is not None and lanes_share_coordinate(value, lookup, depth - 1)
    if isinstance(index, ir.Div) and _const_at_least_four(index.b) and _unit_ramp(index.a, lookup):
        return True
    if isinstance(index, (ir.Add, ir.Sub, ir.Mul, ir.Min, ir.Max)):
        return any(lanes_share_coordinate(x, lookup, depth - 1) for x in (index.a, index.b))
    return False
