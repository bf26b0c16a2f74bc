"""float32 exp and log in float32 arithmetic (16 lanes to a zmm register, as
NumPy's own), by tables like codegen_explog's float64 ones (exp 16 entries,
log 32). exp is codegen_explog's algorithm with the float32 constants
EXP32; the table reads (one vpermps or vpermi2ps per 16 lanes on AVX-512F,
vpermps per 8 lanes and blends on AVX2, row loads per lane on other
targets, loads for a scalar) are codegen_explog's, and so is the way a
scalar is emitted (a call of pyhalide_expf_f32 / pyhalide_logf_f32 with
vector versions, in a module compiled for a target). IEEE operations only
(fma included), no fast-math: scalars, vectors and every target give the
same bits.

exp(x) = 2^e 2^(j/16) exp(r), x = (16 e + j) ln2/16 + r, |r| <= ln2/32:
  - x clamped to [-104, 89] (NaN passes), n = round(x 16/ln2) by the
    1.5 * 2^23 shift (|n| <= 2401);
  - r = x - n C1 - n C2: C1 = ln2/16 to 12 significant bits, so n C1 has at
    most 24 and x - n C1 is exact (fma); n C2 rounded into r (|r| < 0.0217);
  - 2^(j/16) = T (1 + t), T the rounded float32, t its relative tail;
  - exp(r) - 1 = r + r^2 (1/2 + r/6 + r^2/24) (Taylor: truncation below
    2^-34 relative);
  - y = T + T (r + (r^2 P + t)) with one rounding (fma), then y 2^e as two
    exact powers of two (overflow to +inf, gradual underflow, 0 below
    -103.97).
  Error before the last rounding below 2^-27.5 relative (r's rounding and
  C2's, the two roundings of the sum, the dropped t (exp(r) - 1)): within
  0.54 ulp of the exact value (subnormal results: rounded twice, within
  1 ulp; measured on 67 million random arguments: 0.531 and 0.759). A NaN
  argument gives NumPy's NaN (0x7fc00000).

log(x) = k ln2 - log(invc) + log1p(z invc - 1), x = 2^k z, z in [a, 2a)
(a = 0.693) cut into 32 intervals by the 5 bits below the exponent of
bits(x) - bits(a) (19 of width 2^-6 below 1, 12 of width 2^-5 above, and
entry LOG32_ONE straddling 1 by 2^-5/3 on both sides, where invc = 1):
  - subnormal x scaled by 2^23 first;
  - invc is short: a multiple of 2^-5 in [1, 2), of 2^-6 in [0.5, 1), the
    one with the least worst |z invc - 1| on the interval. Then
    z invc - 1 is a multiple of 2^-29 (z: of 2^-24 below 1, 2^-23 above)
    below 2^-5 in magnitude: r = z invc - 1 is exact (one fma);
  - -log(invc) = L + L_lo, L a multiple of 2^-16 (as LN2_HI32, which has 16
    significant bits: k LN2_HI32 + L is exact, one fma) and L_lo rounded;
  - s + e = k LN2_HI32 + L + r exactly (Fast2Sum: |L| > |r| outside entry
    LOG32_ONE, where L = 0);
  - log1p(r) - r = r^2 (-1/2 + r Q(r)), Q Taylor to r^5 (|r| < 0.025:
    truncation below 2^-34 absolute, and below 2^-30 relative where L = 0,
    |r| < 0.011); the rest (e, k LN2_LO32 + L_lo, r^2 (...)) added to s once.
  Within 0.54 ulp of the exact value (0.524 measured on 67 million random
  positive floats, every binade). Special values are NumPy's, bit for
  bit: log(+-0) = -inf, log(x < 0) = 0xffc00000, log(+inf) = +inf, a NaN
  argument 0x7fc00000 (the signs of those NaNs as this host's NumPy gives
  them, per function: numpy_nans; float32 log10 of x < 0 is 0x7fc00000 and
  log2 and log10 keep a NaN's sign on an AVX2 host).

The tables are computed here (once, on first use) with `decimal`.
"""
from __future__ import annotations

import decimal
import functools
import math
import struct

from llvmlite import ir as ll

from . import codegen_explog as E
from . import numpy_nans

SHIFT32 = 12582912.0                             # 1.5 * 2^23: x + SHIFT32 rounds to an integer
SHIFT32_BITS = 0x4B400000
EXP32_HI = 89.0                                  # float32 exp overflows above 88.72...
EXP32_LO = -104.0                                # and is 0 below -103.97...
# ln2/16 = C1 + C2: C1 with 12 significant bits (n C1 exact for |n| < 2^12)
C1 = round(math.log(2.0) / E.EXP_N * 2.0 ** 16) / 2.0 ** 16
EXP32_POLY = (0.5, 1 / 6, 1 / 24)               # exp(r) - 1 - r = r^2 P(r)
# ln2 = LN2_HI32 + LN2_LO32: LN2_HI32 a multiple of 2^-16 (16 significant bits)
LN2_HI32 = math.floor(math.log(2.0) * 2.0 ** 16) / 2.0 ** 16
LOG32_GRID = 2.0 ** -16                          # L is a multiple of this
# log1p(r) - r = r^2 (-1/2 + r Q(r)): Taylor, r^3 to r^5
LOG32_POLY = (1 / 3, -1 / 4, 1 / 5)
# x = 2^k z, z in [a, 2a): 32 intervals, entry LOG32_ONE straddling 1 (2^-5/3 on
# both sides: 2^19/3 bits below 1, where the bits are twice as dense)
LOG32_BITS = 5
LOG32_N = 1 << LOG32_BITS
LOG32_ONE = 19
LOG32_OFF = 0x3F800000 - (1 << (24 - LOG32_BITS)) // 3 - LOG32_ONE * (1 << (23 - LOG32_BITS))
NAN_POS = 0x7FC00000                             # NumPy's float32 NaN of a NaN argument
NAN_NEG = 0xFFC00000 - (1 << 32)                 # and of log's negative arguments (as i32)
LOG_NAMES = ("pyhalide.log32_invc", "pyhalide.log32_hi", "pyhalide.log32_lo")


def f32(v) -> float:
    """v rounded to float32 (to nearest even)."""
    return struct.unpack("<f", struct.pack("<f", float(v)))[0]


def _bits_f32(i: int) -> float:
    return struct.unpack("<f", struct.pack("<I", i))[0]


def _exact(v: float) -> decimal.Decimal:
    return decimal.Decimal(v)


# ln2/16 - C1 and ln2 - LN2_HI32, rounded to float32
with decimal.localcontext() as _ctx:
    _ctx.prec = 60
    _LN2 = decimal.Decimal(2).ln()
    C2 = f32(_LN2 / E.EXP_N - _exact(C1))
    LN2_LO32 = f32(_LN2 - _exact(LN2_HI32))


@functools.cache
def exp_table() -> tuple:
    """(T, t): T_j = 2^(j/16) rounded to float32, t_j = (2^(j/16) - T_j) / T_j
    rounded to float32."""
    hi, tail = [], []
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        for j in range(E.EXP_N):
            v = (_LN2 * j / E.EXP_N).exp()
            hi.append(f32(v))
            tail.append(f32((v - _exact(hi[-1])) / _exact(hi[-1])))
    return tuple(hi), tuple(tail)


EXP32 = E.ExpConstants(EXP32_HI, EXP32_LO, SHIFT32, SHIFT32_BITS, C1, C2, EXP32_POLY,
                       ("pyhalide.exp32_hi", "pyhalide.exp32_tail"), exp_table)


def log_interval(i: int) -> tuple:
    """The interval [lo, hi) of z that entry i covers (float32 values)."""
    step = 1 << (23 - LOG32_BITS)
    return _bits_f32(LOG32_OFF + i * step), _bits_f32(LOG32_OFF + (i + 1) * step)


def short_invc(i: int) -> float:
    """Entry i's invc: 1 for LOG32_ONE, else the multiple of 2^-5 (in [1, 2))
    or 2^-6 (in [0.5, 1)) with the least worst |z invc - 1| on the interval."""
    if i == LOG32_ONE:
        return 1.0
    lo, hi = log_interval(i)
    cands = [k / 32 for k in range(32, 64)] + [k / 64 for k in range(32, 64)]
    return min(cands, key=lambda c: max(abs(lo * c - 1), abs(hi * c - 1)))


@functools.cache
def log_table() -> tuple:
    """(invc, L, L_lo): invc_i short_invc(i), L_i a multiple of 2^-16
    nearest -log(invc_i), L_lo_i the rest rounded to float32."""
    invcs, hi, lo = [], [], []
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        grid = _exact(LOG32_GRID)
        for i in range(LOG32_N):
            invc = short_invc(i)
            exact = -_exact(invc).ln()
            invcs.append(invc)
            hi.append(float((exact / grid).to_integral_value() * grid))
            lo.append(f32(exact - _exact(hi[-1])))
    return tuple(invcs), tuple(hi), tuple(lo)


def _nan_to(m, x, y, bits: int):
    """y, or the float32 of `bits` where x is NaN."""
    return m.sel(m.b.fcmp_unordered("uno", x, x), m.from_bits(m.ci(bits)), y)


def exp(m, x):
    """exp(x) for float32 x (m: codegen_math._F32): codegen_explog's
    algorithm with EXP32's constants, NaN arguments giving NAN_POS."""
    return _nan_to(m, x, E.exp(m, x, EXP32), NAN_POS)


def log_parts(m, x):
    """(hi, lo): log(x) = hi + lo unrounded, for finite x > 0 (any values
    elsewhere); codegen_logbase scales the pair."""
    b = m.b
    sub = m.cmp("<", x, m.c(2.0 ** -126))
    ix = m.bits(m.sel(sub, m.mul(x, m.c(2.0 ** 23)), x))
    tmp = b.sub(ix, m.ci(LOG32_OFF))
    k = b.add(b.ashr(tmp, m.ci(23)), b.select(sub, m.ci(-23), m.ci(0)))
    z = m.from_bits(b.sub(ix, b.and_(tmp, m.ci(-(1 << 23)))))
    i = b.and_(b.lshr(tmp, m.ci(23 - LOG32_BITS)), m.ci(LOG32_N - 1))
    invc, l_hi, l_lo = E.lookup(m, LOG_NAMES, log_table(), i)
    r = m.fma(z, invc, m.c(-1.0))                    # exact (invc is short)
    dk = b.sitofp(k, m.ft)
    s1 = m.fma(dk, m.c(LN2_HI32), l_hi)             # exact: multiples of 2^-16 below 2^7
    s2, e2 = m.fast_two_sum(s1, r)                   # s1 = 0 or |s1| > |r|
    poly = m.fma(r, m.horner(r, LOG32_POLY), m.c(-0.5))
    small = m.add(e2, m.fma(dk, m.c(LN2_LO32), l_lo))
    return s2, m.fma(m.mul(r, r), poly, small)


# log's values by vfixupimmps's class of x (4 bits each, class 0 lowest): QNaN,
# SNaN -> val (replaced by NAN_POS after), +-0 -> -inf, 1 -> val, -inf -> the
# default NaN (NAN_NEG), +inf -> +inf, negative -> NAN_NEG, positive -> val
LOG32_FIXUP = 0x03530400


def log(m, x, scale=None, name: str = "log"):
    """log(x) for float32 x with NumPy's special values (m: codegen_math._F32):
    on AVX-512 one vfixupimmps per 16 lanes, elsewhere selects (the same bits).
    `scale(m, hi, lo)`, when given, makes the value of finite x > 0 from log's
    pair (codegen_logbase: log2, log10 as `name`), with log's special values;
    the NaN of x < 0 has the sign of NumPy's `name` on this host (numpy_nans:
    NAN_NEG or NAN_POS; vfixupimmps only where it is NAN_NEG); a NaN argument
    gives NAN_POS, with x's sign where NumPy's `name` keeps it."""
    b = m.b
    hi, lo = log_parts(m, x)
    val = m.add(hi, lo) if scale is None else scale(m, hi, lo)
    negative = numpy_nans.invalid_nan_negative(name, 32)
    if negative and m.lanes > 1 and E.has_avx512(b.module):
        v16, i16 = ll.VectorType(ll.FloatType(), 16), ll.VectorType(ll.IntType(32), 16)
        i32, i16m = ll.IntType(32), ll.IntType(16)
        fn = E.intrinsic(m, "llvm.x86.avx512.mask.fixupimm.ps.512",
                         [v16, v16, i16, i32, i16m, i32])
        table = ll.Constant(i16, [ll.Constant(i32, LOG32_FIXUP)] * 16)
        y = E.per_zmm(m, lambda v, xv: b.call(fn, [
            v, xv, table, ll.Constant(i32, 0), ll.Constant(i16m, 0xFFFF), ll.Constant(i32, 4)]),
            val, x)
    else:
        # finite and positive: bits(x) - 1 below bits(+inf) - 1 as unsigned integers
        finite_pos = b.icmp_unsigned("<", b.sub(m.bits(x), m.ci(1)), m.ci(0x7F7FFFFF))
        special = m.sel(m.cmp("==", x, m.c(0.0)), m.c(-math.inf),
                        m.sel(m.cmp("<", x, m.c(0.0)),
                              m.from_bits(m.ci(NAN_NEG if negative else NAN_POS)), x))
        y = m.sel(finite_pos, val, special)
    if numpy_nans.negative_nan_kept(name):
        nan = m.call("copysign", m.from_bits(m.ci(NAN_POS)), x)
        return m.sel(m.b.fcmp_unordered("uno", x, x), nan, y)
    return _nan_to(m, x, y, NAN_POS)
