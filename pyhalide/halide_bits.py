"""Halide 21's bit-level helpers (IROperator.h) with its Python names:

    reinterpret(t, e)       e's bits read as type t (a bit cast)
    extract_bits(t, e, lsb) t's width of e's bits from bit lsb up
    concat_bits([a, b..])   the arguments' bits, the first least significant

extract_bits is built as Halide lowers it (CodeGen_Internal.cpp's
lower_extract_bits): bits above e's top read as zeros; a shift of lsb >= e's
width follows pyhalide's shift definition (DESIGN.md). concat_bits places
each argument's own bits (a negative signed argument does not fill the bits
above it), as Halide 21's JIT computes it.
"""
from __future__ import annotations

from . import ir
from .expr import Expr, cast_node, intrinsic, to_node

__all__ = ["reinterpret", "extract_bits", "concat_bits"]


def _reinterpret_node(t: ir.Type, n: ir.Expr) -> ir.Expr:
    t = ir.as_type(t).with_lanes(n.type.lanes)
    if t == n.type:
        return n
    if t.is_bool() or n.type.is_bool() or t.is_handle() or n.type.is_handle():
        raise TypeError(f"reinterpret: no bit cast between {n.type} and {t}")
    if t.bits != n.type.bits:
        raise TypeError(f"reinterpret: {n.type} has {n.type.bits} bits per lane, "
                        f"{t} has {t.bits}; pyhalide keeps the lane count")
    return intrinsic("reinterpret", t, n)


def reinterpret(t, e) -> Expr:
    """e's bits read as type t (as wide as e's type per lane)."""
    return Expr.wrap(_reinterpret_node(t, to_node(e)))


def extract_bits(t, e, lsb) -> Expr:
    """The bits of e from bit `lsb` up, as many as t has, read as t; bits
    above e's width are zeros."""
    t = ir.as_type(t)
    n = to_node(e)
    u = n.type.with_code("uint")
    if n.type.is_bool() or t.is_bool():
        raise TypeError("extract_bits takes no bool types")
    un = _reinterpret_node(u, n) if not n.type.is_uint() else n
    shifted = (Expr.wrap(un) >> lsb).node
    narrowed = cast_node(t.with_code("uint").with_lanes(n.type.lanes), shifted)
    return Expr.wrap(_reinterpret_node(t, narrowed))


def concat_bits(args) -> Expr:
    """One integer as wide as all of `args` (a power of two of them, of one
    integer type), args[0] in the lowest bits."""
    nodes = [to_node(a) for a in args]
    if not nodes or len(nodes) & (len(nodes) - 1):
        raise ValueError(f"concat_bits needs a power of two of arguments, not {len(nodes)}")
    t = nodes[0].type
    if any(n.type != t for n in nodes):
        raise TypeError("concat_bits: all arguments must have the same type, not "
                        + ", ".join(str(n.type) for n in nodes))
    if not t.is_integer() or t.bits * len(nodes) > 64:     # (bool is not an integer)
        raise TypeError(f"concat_bits of {len(nodes)} {t}: needs integers of at most 64 bits "
                        "in all")
    wide = t.with_bits(t.bits * len(nodes)).with_code("uint")
    result = None
    for k, n in enumerate(nodes):           # each argument's own bits, zero-extended
        part = Expr.wrap(cast_node(wide, _reinterpret_node(t.with_code("uint"), n))) << \
            (k * t.bits)
        result = part if result is None else result | part
    return Expr.wrap(_reinterpret_node(wide.with_code(t.code), result.node))
