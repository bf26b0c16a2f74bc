"""Whether an output buffer's layout gives each element an address of its
own, as an Expr evaluated when the kernel runs.

    injective_layout(buf, dims, dense) -> Bool Expr

A caller's output array may be any strided view (a stride of 0, or strides
whose elements meet); vectorize_loops stores the points of a pure
definition in any order only when no two points share an address
(pipeline._pure_outputs, vectorize._vectorize_loop keeps a serial copy for
the layouts where this is false). The test: in dimension order, each
dimension of extent > 1 has |stride| greater than the span the lower
dimensions cover (sum of |stride_k| * (extent_k - 1)): two points that differ
first (from the top) in dimension d would need |stride_d| <= that span to
meet. An array whose strides grow with the dimension (a C-ordered NumPy
array as pyhalide's buffers see it: dimension 0 is its last axis) passes;
one ordered otherwise (an interleaved image) fails and keeps the serial loop.
Computed in 64 bits: a real array's spans are below 2^48 bytes.
"""
from __future__ import annotations

from pyhalide import ir

from .context import geometry

__all__ = ["injective_layout"]

_I64 = ir.Int(64)


def _abs64(e: ir.Expr) -> ir.Expr:
    w = ir.Cast(_I64, e)
    return ir.Max(w, ir.Sub(ir.const(_I64, 0), w))


def injective_layout(buf: str, dims: int, dense: bool) -> ir.Expr:
    """True when the strides and extents of kernel buffer `buf` (`dims`
    dimensions; `dense`: dimension 0 has stride 1) map distinct points to
    distinct elements (see the module docstring)."""
    span = ir.const(_I64, 0)
    conds = []
    for d in range(dims):
        extent = ir.Cast(_I64, geometry(buf, "extent", d))
        stride = ir.const(_I64, 1) if d == 0 and dense else _abs64(geometry(buf, "stride", d))
        conds.append(ir.Or(ir.LE(extent, ir.const(_I64, 1)), ir.GT(stride, span)))
        span = ir.Add(span, ir.Mul(stride, ir.Max(ir.Sub(extent, ir.const(_I64, 1)),
                                                   ir.const(_I64, 0))))
    return ir.conjunction(conds) or ir.const(ir.Bool(), True)
