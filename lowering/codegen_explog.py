"""float64 exp and log by table lookup (codegen_math.emit calls `exp` and `log`
for float64 scalars and vectors): a 128-entry table takes most of the range
reduction, so the polynomials are short and there is no division. A vector
reads the table with one gather per field (`llvm.masked.gather`); a scalar
with loads; both compute the same bits (IEEE operations only, no fast-math).

exp(x) = 2^e 2^(j/128) exp(r), with x = (128 e + j) ln2/128 + r, |r| <= ln2/256:
  - n = round(x 128/ln2) by the 1.5 * 2^52 shift; r = x - n ln2/128 by
    Cody-Waite (LN2_HI/128 has 32 significant bits: x - n LN2_HI/128 is exact
    for |n| < 2^21, as in codegen_math);
  - 2^(j/128) = T (1 + t), T the rounded double, t its relative tail;
  - exp(r) - 1 = r + r^2 (1/2 + r/6 + r^2/24 + r^3/120): Taylor's truncation is
    below 2^-60 relative for |r| <= ln2/256;
  - y = T + T (t + exp(r) - 1) with one rounding (fma), then y 2^e applied as
    two exact powers of two so that only the last product rounds (overflow to
    +inf above 709.78, gradual underflow into the subnormals, 0 below -745.13).
  Error before the last rounding about 2^-60 relative: results within 0.51 ulp;
  subnormal results are rounded twice (to 53 bits, then to the subnormal's
  precision): within 0.75 ulp there (measured 0.747 near -708.7).

log(x) = k ln2 - log(invc) + log1p(z invc - 1), x = 2^k z, z in [a, 2a), a = 0.6888:
  - the 7 bits of (bits(x) - bits(a)) below the exponent pick one of 128
    intervals of z (79 of width 2^-8 below 1, 48 of width 2^-7 above, and
    entry LOG_ONE straddling 1 with half-width 2^-8 2/3 on both sides, where
    invc = 1: there r = x - 1 exactly, so log(x) keeps its relative accuracy
    near 1); elsewhere invc is near 1/center, so |z invc - 1| <= 2^-8;
  - z invc - 1 = (p - 1) + p_err exactly, p = z invc rounded (p - 1 exact by
    Sterbenz, p_err by fma);
  - L = -log(invc) rounded; each invc was searched near 1/center (LOG_SHIFTS)
    so that L is within 2^-57 relative of -log(invc): no tail entry (two
    gathers, not three);
  - log1p(r) = r - r^2/2 + r^3 (1/3 - r/4 + r^2/5 - r^3/6 + r^4/7) (Taylor:
    truncation below 2^-59 relative for |r| <= 2^-8);
  - k LN2_HI + L + r summed exactly (two Fast2Sums: |k LN2_HI| >= 0.69 > |L|,
    and |L| > |r| outside entry LOG_ONE, where L = 0), the rest added once.
  Results within 0.56 ulp (measured; the rounded L adds up to 2^-56 relative
  near 1). Subnormal x is scaled by 2^54
  first. Special values are codegen_math's (NumPy's).

The tables are computed here (once, on first use) with `decimal`, not copied.
"""
from __future__ import annotations

import decimal
import functools
import math
import struct

from llvmlite import ir as ll

from .codegen_trig import SHIFT, SHIFT_BITS, bits_of

# Cody-Waite split of ln 2 (fdlibm): LN2_HI has 32 significant bits, so k * LN2_HI
# is exact for |k| < 2^21 and x - k * LN2_HI is exact (codegen_math uses it too).
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10

EXP_BITS = 7
EXP_N = 1 << EXP_BITS
LN2_HI_N = LN2_HI / EXP_N                        # (exact: a power of two)
LN2_LO_N = LN2_LO / EXP_N
INV_LN2_N = EXP_N / math.log(2.0)
EXP_HI = 710.0                                   # exp overflows above 709.78...
EXP_LO = -746.0                                  # and is 0 below -745.13...
EXP_POLY = (0.5, 1 / 6, 1 / 24, 1 / 120)         # exp(r) - 1 - r = r^2 P(r)

LOG_BITS = 7
LOG_N = 1 << LOG_BITS
# z in [a, 2a), a = 0.6888...: interval LOG_ONE straddles 1 with half-width
# 2^-8 2/3 on both sides (2^46/3 bits below 1, where the bits are twice as dense)
LOG_ONE = 79
LOG_OFF = 0x3FF0000000000000 - (1 << 46) // 3 - LOG_ONE * (1 << 45)
LOG_POLY = (1 / 3, -1 / 4, 1 / 5, -1 / 6, 1 / 7)  # log1p(r) = r - r^2/2 + r^3 Q(r)


def _from_bits(i: int) -> float:
    return struct.unpack("<d", struct.pack("<q", i))[0]


@functools.cache
def exp_table() -> tuple:
    """(T_0, t_0, T_1, t_1, ...): T_j = 2^(j/128) rounded, t_j = (2^(j/128) - T_j)
    / T_j rounded."""
    out = []
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        two = decimal.Decimal(2)
        for j in range(EXP_N):
            v = (two.ln() * j / EXP_N).exp()
            hi = float(v)
            out += [hi, float((v - decimal.Decimal(hi)) / decimal.Decimal(hi))]
    return tuple(out)


# log_table's offsets: invc_i = 1/center_i rounded, moved by LOG_SHIFTS[i] ulps
# (so that -log(invc_i) is within 2^-57 relative of a double: the best of
# +-1500 ulps, searched once with `decimal`; entry LOG_ONE is invc = 1)
LOG_SHIFTS = (
    -1420, 44, -1417, -1433, -117, 1394, 88, 154, -1395, -41, -78, -1453, -52, 175, -1447,
    1373, -51, -26, -122, 166, 1430, -1490, -167, 1465, 1472, -1345, 1352, 18, 67, -28, 34,
    1347, 45, 1450, -1475, 1353, 19, 1443, 1346, -59, 44, -1367, 76, -1448, 1495, 78, 1464,
    1357, 38, -29, -44, -30, 12, 1474, 26, -1493, 1454, 7, -1444, -1464, 1441, 1492, 1493,
    -1490, -1492, 23, 22, -19, -20, 7, 1466, 1472, 1493, -1495, -1498, 1494, -1496, 0, 1497,
    0, -2, 6, -1489, 1489, -15, -9, 1473, 1469, -1445, -1475, -41, 17, -1470, 44, 15, -1442,
    -14, -1473, -41, 1347, 1446, 28, -61, -34, -1483, 1367, 25, -1347, 1462, -92, 24, -1453,
    -8, 1378, 1441, 1355, -1164, 1433, 1436, -14, -1379, 1412, 6, 132, 1368, 1374, -78, 79)
LOG_TAIL = 2.0 ** -57           # |log(invc) - L| / |L| below this (tests check it)


def log_interval(i: int) -> tuple:
    """The interval [lo, hi) of z that entry i covers."""
    return (_from_bits(LOG_OFF + (i << (52 - LOG_BITS))),
            _from_bits(LOG_OFF + ((i + 1) << (52 - LOG_BITS))))


@functools.cache
def log_table() -> tuple:
    """(invc_0, L_0, invc_1, L_1, ...): L_i = -log(invc_i) rounded."""
    out = []
    with decimal.localcontext() as ctx:
        ctx.prec = 45
        for i in range(LOG_N):
            lo, hi = log_interval(i)
            if i == LOG_ONE:
                out += [1.0, 0.0]
                continue
            invc = _from_bits(bits_of(float(2 / (decimal.Decimal(lo) + decimal.Decimal(hi))))
                              + LOG_SHIFTS[i])
            out += [invc, float(-decimal.Decimal(invc).ln())]
    return tuple(out)


def _global(m, name: str, values: tuple):
    """The constant double array `name` of the module (made once)."""
    mod = m.b.module
    g = mod.globals.get(name)
    if g is None:
        ty = ll.ArrayType(ll.DoubleType(), len(values))
        g = ll.GlobalVariable(mod, ty, name=name)
        g.initializer = ll.Constant(ty, [ll.Constant(ll.DoubleType(), v) for v in values])
        g.global_constant = True
        g.linkage = "internal"
        g.align = 64
    return g


def _lookup(m, g, idx, stride: int, field: int):
    """g[stride idx + field] for an i64 idx (scalar or vector of m's lanes): a
    load or a gather."""
    b = m.b
    pos = b.add(b.mul(idx, m.ci(stride)), m.ci(field)) if stride > 1 else idx
    if m.lanes == 1:
        p = b.gep(g, [ll.Constant(ll.IntType(64), 0), pos], inbounds=True)
        return b.load(p, typ=ll.DoubleType())
    ptrs = b.gep(g, [pos], source_etype=ll.DoubleType())
    ptrs.type = ll.VectorType(ll.PointerType(), m.lanes)   # llvmlite types it as scalar
    mask = ll.Constant(ll.VectorType(ll.IntType(1), m.lanes), [1] * m.lanes)
    name = f"llvm.masked.gather.v{m.lanes}f64.v{m.lanes}p0"
    fn = b.module.globals.get(name)
    if fn is None:
        fn = ll.Function(b.module, ll.FunctionType(m.ft, [ptrs.type, mask.type, m.ft]),
                         name=name)
    call = b.call(fn, [ptrs, mask, ll.Constant(m.ft, ll.Undefined)])
    attr = ll.values.ArgumentAttributes()
    attr.align = 8
    call.arg_attributes[0] = attr
    return call


def exp(m, x):
    """exp(x) for float64 x (m: codegen_math._F64)."""
    b = m.b
    xc = m.sel(m.cmp(">", x, m.c(EXP_HI)), m.c(EXP_HI), x)
    xc = m.sel(m.cmp("<", xc, m.c(EXP_LO)), m.c(EXP_LO), xc)    # NaN passes
    nd = m.fma(xc, m.c(INV_LN2_N), m.c(SHIFT))
    n = b.sub(m.bits(nd), m.ci(SHIFT_BITS))
    nf = b.fneg(m.sub(nd, m.c(SHIFT)))
    r = m.fma(nf, m.c(LN2_LO_N), m.fma(nf, m.c(LN2_HI_N), xc))
    g = _global(m, "pyhalide.exp_table", exp_table())
    j = b.and_(n, m.ci(EXP_N - 1))                 # in bounds for any bits (NaN)
    t_hi, t_lo = _lookup(m, g, j, 2, 0), _lookup(m, g, j, 2, 1)
    r2 = m.mul(r, r)
    tmp = m.add(r, m.fma(r2, m.horner(r, EXP_POLY), t_lo))
    y = m.fma(t_hi, tmp, t_hi)
    e = b.ashr(n, m.ci(EXP_BITS))                  # in [-1077, 1024]
    e1 = b.ashr(e, m.ci(1))
    return m.mul(m.mul(y, m.pow2(e1)), m.pow2(b.sub(e, e1)))


def split_exponent(m, x, off: int):
    """(k, bits of z, bits(z) - off) with x = 2^k z, z in [a, 2a) for a the
    double of bits `off`, for finite x > 0 (a subnormal x scaled by 2^54 first);
    i64 values."""
    b = m.b
    sub = m.cmp("<", x, m.c(2.0 ** -1022))
    ix = m.bits(m.sel(sub, m.mul(x, m.c(2.0 ** 54)), x))
    tmp = b.sub(ix, m.ci(off))
    k = b.add(b.ashr(tmp, m.ci(52)), b.select(sub, m.ci(-54), m.ci(0)))
    return k, b.sub(ix, b.and_(tmp, m.ci(-(1 << 52)))), tmp


def log_value(m, x):
    """log(x) for finite x > 0 (any value elsewhere, to be replaced)."""
    b = m.b
    k, iz, tmp = split_exponent(m, x, LOG_OFF)
    z = m.from_bits(iz)
    i = b.and_(b.lshr(tmp, m.ci(52 - LOG_BITS)), m.ci(LOG_N - 1))
    g = _global(m, "pyhalide.log_table", log_table())
    invc, l_hi = _lookup(m, g, i, 2, 0), _lookup(m, g, i, 2, 1)
    p = m.mul(z, invc)
    p_err = m.fma(z, invc, b.fneg(p))             # exact
    r = m.sub(p, m.c(1.0))                        # exact (Sterbenz)
    dk = b.sitofp(k, m.ft)
    s1, e1 = m.fast_two_sum(m.mul(dk, m.c(LN2_HI)), l_hi)   # k LN2_HI exact, 0 or > 0.69
    s2, e2 = m.fast_two_sum(s1, r)                # s1 = 0 or |s1| >= |r|
    r2 = m.mul(r, r)
    poly = m.fma(r, m.horner(r, LOG_POLY), m.c(-0.5))       # log1p(r) - r = r^2 poly
    small = m.add(m.add(e1, e2), m.fma(dk, m.c(LN2_LO), m.fma(b.fneg(p_err), r, p_err)))
    return m.add(s2, m.fma(r2, poly, small))
