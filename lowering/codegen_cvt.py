"""Saturating float32 -> int32 vector conversion with x86's truncating
convert instruction (cvttps2dq).

    x86_float_to_int32(b, v) -> the converted vector, or None

llvm.fptosi.sat's semantics (lanes at or above 2^31 give INT32_MAX, below
-2^31 INT32_MIN, NaN 0), built on cvttps2dq: that instruction is defined for
every input and gives 0x80000000 (INT32_MIN) for NaN and for every lane out
of range, so lanes below -2^31 are already right and two selects fix the
others (>= 2^31: INT32_MAX; NaN: 0). codegen_ops._float_to_int_vector's
portable form clamps before a plain fptosi (whose out-of-range result is
poison) and costs three more operations per vector; local Laplacian's LUT
index converts 16 vectors per output vector (docs/apps_speed_amd_ll.md).

Used for modules whose triple is x86-64 (SSE2 is part of it: 4 lanes) and
with AVX (8 lanes) or AVX-512F (16 lanes) when the module's features say so;
another lane count is cut into such pieces, and None is returned when no
piece fits (the caller then uses the portable form).
"""
from __future__ import annotations

from llvmlite import ir as ll

from .codegen_explog import join_pairwise
from .codegen_trig import declare as intrinsic

__all__ = ["x86_float_to_int32"]

_F32 = ll.FloatType()
I32 = ll.IntType(32)


def _widths(mod) -> list:
    """Vector widths (lanes) with a cvttps2dq intrinsic on mod's target,
    widest first; [] when the target is not x86-64."""
    if not getattr(mod, "triple", "").startswith("x86_64"):
        return []
    feats = getattr(mod, "pyhalide_features", "").split(",")
    widths = [4]
    if "+avx" in feats:
        widths.insert(0, 8)
    if "+avx512f" in feats:
        widths.insert(0, 16)
    return widths


def _cvtt(b: ll.IRBuilder, v, lanes: int):
    """cvttps2dq of the float32 vector v of `lanes` (4, 8 or 16) lanes."""
    mod = b.module
    ft, it = ll.VectorType(_F32, lanes), ll.VectorType(I32, lanes)
    if lanes == 4:
        return b.call(intrinsic(mod, "llvm.x86.sse2.cvttps2dq", it, [ft]), [v])
    if lanes == 8:
        return b.call(intrinsic(mod, "llvm.x86.avx.cvtt.ps2dq.256", it, [ft]), [v])
    fn = intrinsic(mod, "llvm.x86.avx512.mask.cvttps2dq.512", it,
                   [ft, it, ll.IntType(16), I32])
    # all lanes written (mask -1), the current rounding mode (4): truncation
    return b.call(fn, [v, ll.Constant(it, ll.Undefined), ll.Constant(ll.IntType(16), -1),
                       ll.Constant(I32, 4)])


def x86_float_to_int32(b: ll.IRBuilder, v):
    """llvm.fptosi.sat of the float32 vector v to int32 lanes, or None when
    the module's target has no cvttps2dq for its lanes."""
    lanes = v.type.count
    width = next((w for w in _widths(b.module) if lanes % w == 0), None)
    if width is None or (lanes // width) & (lanes // width - 1):
        return None        # (pieces are joined pairwise: a power of two of them)
    pieces = []
    for start in range(0, lanes, width):
        part = v if width == lanes else b.shuffle_vector(
            v, ll.Constant(v.type, ll.Undefined),
            ll.Constant(ll.VectorType(I32, width), list(range(start, start + width))))
        pieces.append(_cvtt(b, part, width))
    r = join_pairwise(b, pieces)
    it = ll.VectorType(I32, lanes)
    hi = ll.Constant(v.type, [float(1 << 31)] * lanes)
    r = b.select(b.fcmp_ordered(">=", v, hi), ll.Constant(it, [(1 << 31) - 1] * lanes), r)
    return b.select(b.fcmp_unordered("uno", v, v), ll.Constant(it, [0] * lanes), r)
