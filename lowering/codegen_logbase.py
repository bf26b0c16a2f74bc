"""log2 and log10 (the intrinsics "log2" and "log10": np.log2, np.log10,
math.log2, math.log10) of float64 and float32: the table log of
codegen_explog (float64) or codegen_explog32 (float32, in float32
arithmetic: 16 lanes to a zmm register) as its unrounded pair hi + lo, times
1/ln b held in two parts c_hi + c_lo (c_hi the rounded value, c_lo the rest
rounded):

    y = hi c_hi + (fma(hi, c_hi, -hi c_hi) + hi c_lo + lo c_hi)

hi c_hi's rounding error is recovered exactly by the fma, so y's error before
its last rounding is log's own (below 2^-58 relative in float64, 2^-29 in
float32) plus about 2^-100 (2^-45): results within 0.54 ulp of the exact value,
the correctly rounded one except very near a rounding boundary. Exact powers of
the base give exact results (log2(2^k) = k, log10(10^k) = k): log's pair is
then k ln 2 to far below an ulp of the result. Special values are log's
(NumPy's): -inf at +-0, NaN below 0, +inf at +inf, a NaN argument's NaN.

About 5 operations per vector more than log: the exponent split of
frontend_ast/log_bases.py (session 20) computed log of the mantissa and then
the sum with the exponent by Fast2Sum, twice log's work in all (2.15 ns per
element against log's 1.2 on this host); float32 was computed in float64
through it (2.1 ns per element, NumPy 0.23).
"""
from __future__ import annotations

import decimal
import functools
import struct

BASES = {"log2": 2, "log10": 10}


def _f32(v) -> float:
    return struct.unpack("<f", struct.pack("<f", float(v)))[0]


@functools.cache
def inverse_ln(name: str, bits: int) -> tuple:
    """(c_hi, c_lo): 1/ln b (b = 2 or 10 for `name`) as the float of `bits`
    nearest it and the rest rounded to that float type."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        exact = 1 / decimal.Decimal(BASES[name]).ln()
        rnd = float if bits == 64 else _f32
        hi = rnd(exact)
        return hi, rnd(exact - decimal.Decimal(hi))


def scaled(m, hi, lo, name: str):
    """(hi + lo) / ln b for log's pair (hi, lo) (m: codegen_math._F64 or
    _F32, values of its float type), rounded once at the end."""
    c_hi, c_lo = inverse_ln(name, 8 * m.size)
    p = m.mul(hi, m.c(c_hi))
    err = m.fma(hi, m.c(c_hi), m.b.fneg(p))          # exact
    return m.add(p, m.fma(lo, m.c(c_hi), m.fma(hi, m.c(c_lo), err)))
