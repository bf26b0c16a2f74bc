"""float64 exp and log by table lookup (codegen_math.emit calls `exp` and `log`
for float64 scalars and vectors): a 16-entry table takes part of the range
reduction, so there is no division. Each table field is 16 doubles, two zmm
registers' worth: on targets with AVX-512F a vector looks a field up with one
in-register permute (`vpermi2pd`, llvm.x86.avx512.vpermi2var.pd.512); on
other targets it loads each lane's row of the fields (one load per lane for
all fields, not a gather per field); a scalar loads. In a module compiled for
a target (jit passes its features), a scalar is a call of pyhalide_exp_f64 /
pyhalide_log_f64, whose vector versions LLVM's loop vectorizer calls
(codegen_trig.call; jit inlines them after the pipeline), so a vectorized
loop permutes or loads rows rather than gathering. Every way computes the
same bits (IEEE operations only, no fast-math): only how a table entry is
fetched differs.

exp(x) = 2^e 2^(j/16) exp(r), with x = (16 e + j) ln2/16 + r, |r| <= ln2/32:
  - n = round(x 16/ln2) by the 1.5 * 2^52 shift; r = x - n ln2/16 by
    Cody-Waite (LN2_HI/16 has 32 significant bits: x - n LN2_HI/16 is exact
    for |n| < 2^21, as in codegen_math);
  - 2^(j/16) = T (1 + t), T the rounded double, t its relative tail;
  - exp(r) - 1 = r + r^2 P(r), P of degree 5 fitted on [-ln2/32, ln2/32]
    (Chebyshev, coefficients rounded; relative error below 2^-63);
  - y = T + T (t + exp(r) - 1) with one rounding (fma), then y 2^e applied as
    two exact powers of two so that only the last product rounds (overflow to
    +inf above 709.78, gradual underflow into the subnormals, 0 below -745.13).
  Error before the last rounding below 2^-58 relative (the roundings of r
  and of r + r^2 P, |r| < 2^-5.5): results within 0.54 ulp (0.534 measured
  on 1.2 million arguments against mpmath); subnormal results are rounded
  twice (to 53 bits, then to the subnormal's precision): within 0.76 ulp
  there (0.755 measured).

log(x) = k ln2 - log(invc) + log1p(z invc - 1), x = 2^k z, z in [a, 2a), a = 0.698:
  - the 4 bits of (bits(x) - bits(a)) below the exponent pick one of 16
    intervals of z (9 of width 2^-5 below 1, 6 of width 2^-4 above, and
    entry LOG_ONE straddling 1 with half-width 2^-4 2/3 on both sides, where
    invc = 1: there r = x - 1 exactly, so log(x) keeps its relative accuracy
    near 1); elsewhere invc = 1/center rounded, so |z invc - 1| < 0.0298;
  - z invc - 1 = (p - 1) + p_err exactly, p = z invc rounded (p - 1 exact by
    Sterbenz, p_err by fma);
  - -log(invc) = L + L_lo, L a multiple of 2^-32 (as LN2_HI is, so
    k LN2_HI + L is exact: one fma) and L_lo the rounded rest (a third field);
  - log1p(r) = r - r^2/2 + r^3 Q(r), Q of degree 7 fitted on [-0.0298, 0.0298]
    (relative error below 2^-61);
  - k LN2_HI + L + r summed exactly (the fma above, then a Fast2Sum: |L| > |r|
    outside entry LOG_ONE, where L = 0), the rest added once.
  Results within 0.53 ulp (0.529 measured on 1.2 million arguments).
  Subnormal x is scaled by 2^54 first. Special values are codegen_math's
  (NumPy's, bit for bit).
float32 exp and log are codegen_explog32's (in float32, with tables of the
same layout, read by the functions here).

The tables are computed here (once, on first use) with `decimal`, not copied.
"""
from __future__ import annotations

import decimal
import functools
import math
import struct
from typing import Callable, NamedTuple

from llvmlite import ir as ll

from . import codegen_trig
from .codegen_trig import SHIFT, SHIFT_BITS

# Cody-Waite split of ln 2 (fdlibm): LN2_HI has 32 significant bits, so k * LN2_HI
# is exact for |k| < 2^21 and x - k * LN2_HI is exact (codegen_math uses it too).
LN2_HI = 6.93147180369123816490e-01
LN2_LO = 1.90821492927058770002e-10

TABLE_N = 16                                     # entries per field: two zmm registers
EXP_BITS = 4
EXP_N = 1 << EXP_BITS
LN2_HI_N = LN2_HI / EXP_N                        # (exact: a power of two)
LN2_LO_N = LN2_LO / EXP_N
INV_LN2_N = EXP_N / math.log(2.0)
EXP_HI = 710.0                                   # exp overflows above 709.78...
EXP_LO = -746.0                                  # and is 0 below -745.13...
# exp(r) - 1 - r = r^2 P(r) on |r| <= ln2/32 (Chebyshev fit, mpmath; P(0) = 1/2)
EXP_POLY = (0.5, 0.16666666666666666, 0.041666666664960446, 0.008333333333143754,
            0.0013889034348876907, 0.00019841431463325554)

LOG_BITS = 4
LOG_N = 1 << LOG_BITS
# z in [a, 2a), a = 0.698: interval LOG_ONE straddles 1 with half-width 2^-4 2/3
# on both sides (2^49/3 bits below 1, where the bits are twice as dense)
LOG_ONE = 9
LOG_OFF = 0x3FF0000000000000 - (1 << (53 - LOG_BITS)) // 3 - LOG_ONE * (1 << (52 - LOG_BITS))
LOG_R = 0.0298                                   # |z invc - 1| below this
# log1p(r) = r - r^2/2 + r^3 Q(r) on |r| <= LOG_R (Chebyshev fit, mpmath)
LOG_POLY = (0.33333333333333287, -0.24999999999999958, 0.20000000001593998,
            -0.16666666668127858, 0.14285705312046548, -0.12499991773993355,
            0.11127273990357209, -0.10014816171556847)


def _from_bits(i: int) -> float:
    return struct.unpack("<d", struct.pack("<q", i))[0]


@functools.cache
def exp_table() -> tuple:
    """(T, t): T_j = 2^(j/16) rounded, t_j = (2^(j/16) - T_j) / T_j rounded."""
    hi, tail = [], []
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        two = decimal.Decimal(2)
        for j in range(EXP_N):
            v = (two.ln() * j / EXP_N).exp()
            hi.append(float(v))
            tail.append(float((v - decimal.Decimal(hi[-1])) / decimal.Decimal(hi[-1])))
    return tuple(hi), tuple(tail)


def log_interval(i: int) -> tuple:
    """The interval [lo, hi) of z that entry i covers."""
    return (_from_bits(LOG_OFF + (i << (52 - LOG_BITS))),
            _from_bits(LOG_OFF + ((i + 1) << (52 - LOG_BITS))))


@functools.cache
def log_table() -> tuple:
    """(invc, L, L_lo): invc_i = 1/center_i rounded (1 for LOG_ONE), L_i + L_lo_i
    = -log(invc_i) to 2^-80 relative, L_i a multiple of 2^-32 (like LN2_HI:
    k LN2_HI + L_i is exact) and L_lo_i the rounded rest."""
    invcs, hi, lo = [], [], []
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        grid = decimal.Decimal(2) ** -32
        for i in range(LOG_N):
            a, b = log_interval(i)
            invc = 1.0 if i == LOG_ONE else float(2 / (decimal.Decimal(a) + decimal.Decimal(b)))
            exact = -decimal.Decimal(invc).ln()
            invcs.append(invc)
            hi.append(float((exact / grid).to_integral_value() * grid))
            lo.append(float(exact - decimal.Decimal(hi[-1])))
    return tuple(invcs), tuple(hi), tuple(lo)


def has_avx512(mod) -> bool:
    """Whether module `mod` is compiled for a target with AVX-512F
    (codegen_llvm.codegen records the target's features on it)."""
    return "+avx512f" in getattr(mod, "pyhalide_features", "").split(",")


def _global(m, name: str, values: tuple):
    """The constant array `name` of m's float type in the module (made once)."""
    mod = m.b.module
    g = mod.globals.get(name)
    if g is None:
        ty = ll.ArrayType(m.elem, len(values))
        g = ll.GlobalVariable(mod, ty, name=name)
        g.initializer = ll.Constant(ty, [ll.Constant(m.elem, v) for v in values])
        g.global_constant = True
        g.linkage = "internal"
        g.align = 64
    return g


def per_zmm(m, op, *args, z=None):
    """op(*chunks) -> a register's vector (z lanes; default m.zmm_lanes: 8
    doubles or 16 floats) applied to each register's worth of lanes of the
    vectors `args` (m's lanes; padded with copies of lane 0 to a multiple of
    it), the results joined and the padding dropped: an AVX-512 (AVX2: z = 8
    floats) intrinsic over any number of lanes."""
    b = m.b
    lanes, z = m.lanes, z or m.zmm_lanes
    width = -(-lanes // z) * z

    def lanes_of(v, picks):
        return b.shuffle_vector(v, v, ll.Constant(ll.VectorType(ll.IntType(32), len(picks)),
                                                  picks))

    if width != lanes:
        args = [lanes_of(a, list(range(lanes)) + [0] * (width - lanes)) for a in args]
    parts = [op(*(a if width == z else lanes_of(a, list(range(k, k + z))) for a in args))
             for k in range(0, width, z)]
    while len(parts) & (len(parts) - 1):           # a power of two (the copies dropped)
        parts.append(parts[-1])
    out = join_pairwise(b, parts)
    return out if len(out.type) == lanes else lanes_of(out, list(range(lanes)))


def join_pairwise(b, parts: list):
    """The vectors `parts` (of one type; a power of two of them) concatenated
    in order, by shuffles of pairs."""
    while len(parts) > 1:
        n = 2 * len(parts[0].type)
        parts = [b.shuffle_vector(parts[k], parts[k + 1], ll.Constant(
            ll.VectorType(ll.IntType(32), n), list(range(n)))) for k in range(0, len(parts), 2)]
    return parts[0]


def intrinsic(m, name: str, args):
    """The module's declaration of x86 intrinsic `name` returning a zmm vector
    of m's float type with arguments of the types `args`."""
    mod = m.b.module
    return mod.globals.get(name) or ll.Function(
        mod, ll.FunctionType(ll.VectorType(m.elem, m.zmm_lanes), args), name=name)


def _permute(m, values: tuple, idx):
    """values[idx] for a vector idx of m's lanes in [0, len(values)): float64
    (16 values), one vpermi2pd per 8 lanes over the two registers holding
    them; float32 (16 or 32 values), one vpermps or vpermi2ps per 16 lanes
    over the one or two registers holding them."""
    if m.elem == ll.FloatType():
        v16, i16 = ll.VectorType(m.elem, 16), ll.VectorType(ll.IntType(32), 16)
        regs = [ll.Constant(v16, [ll.Constant(m.elem, v) for v in values[k:k + 16]])
                for k in range(0, len(values), 16)]
        if len(regs) == 1:
            fn = intrinsic(m, "llvm.x86.avx512.permvar.sf.512", [v16, i16])
            return per_zmm(m, lambda i: m.b.call(fn, [regs[0], i]), idx)
        fn = intrinsic(m, "llvm.x86.avx512.vpermi2var.ps.512", [v16, i16, v16])
        return per_zmm(m, lambda i: m.b.call(fn, [regs[0], i, regs[1]]), idx)
    v8 = ll.VectorType(ll.DoubleType(), 8)
    regs = [ll.Constant(v8, [ll.Constant(ll.DoubleType(), v) for v in values[k:k + 8]])
            for k in (0, 8)]
    fn = intrinsic(m, "llvm.x86.avx512.vpermi2var.pd.512",
                   [v8, ll.VectorType(ll.IntType(64), 8), v8])
    return per_zmm(m, lambda i: m.b.call(fn, [regs[0], i, regs[1]]), idx)


def _rows(m, name: str, fields: tuple, idx):
    """[f[idx] for f in fields] for a vector idx of m's lanes: one load per
    lane of its row (the fields side by side, padded to 2 or 4 values)
    instead of a gather per field."""
    b = m.b
    width = 2 if len(fields) <= 2 else 4
    flat = tuple(v for i in range(len(fields[0]))
                 for v in [f[i] for f in fields] + [0.0] * (width - len(fields)))
    g = _global(m, name, flat)
    i32, ity = ll.IntType(32), m.it.element if m.lanes > 1 else m.it
    size = 8 if m.elem == ll.DoubleType() else 4
    rows = []
    for lane in range(m.lanes):
        pos = b.mul(b.extract_element(idx, ll.Constant(i32, lane)), ll.Constant(ity, width))
        p = b.gep(g, [ll.Constant(ity, 0), pos], inbounds=True)
        rows.append(b.load(p, typ=ll.VectorType(m.elem, width), align=size * width))
    out = []
    for k in range(len(fields)):
        v = ll.Constant(m.ft, ll.Undefined)
        for lane, row in enumerate(rows):
            v = b.insert_element(v, b.extract_element(row, ll.Constant(i32, k)),
                                 ll.Constant(i32, lane))
        out.append(v)
    return out


def lookup(m, names: tuple, fields: tuple, idx):
    """[f[idx] for f in fields] (tables named `names`: 16 entries, or 32 for
    float32) for an idx of m's integer type in [0, entries), scalar or vector
    of m's lanes: loads, permutes (AVX-512F; float32 on AVX2) or row loads."""
    if m.lanes == 1:
        return [m.b.load(m.b.gep(_global(m, nm, f), [ll.Constant(idx.type, 0), idx],
                                 inbounds=True), typ=m.elem)
                for nm, f in zip(names, fields)]
    if has_avx512(m.b.module):
        return [_permute(m, f, idx) for f in fields]
    if m.elem == ll.FloatType() and "+avx2" in getattr(m.b.module, "pyhalide_features", ""):
        return [_permute_ymm(m, f, idx) for f in fields]
    return _rows(m, "+".join(names) + ".rows", fields, idx)


def _permute_ymm(m, values: tuple, idx):
    """values[idx] (float32, 16 or 32 values) for a vector idx of m's lanes
    on AVX2: per 8 lanes one vpermps of each register's 8 values (it reads
    idx's low 3 bits), then the register chosen by idx's bits 3 and 4."""
    b = m.b
    v8, i8 = ll.VectorType(ll.FloatType(), 8), ll.VectorType(ll.IntType(32), 8)
    fn = m.b.module.globals.get("llvm.x86.avx2.permps") or ll.Function(
        m.b.module, ll.FunctionType(v8, [v8, i8]), name="llvm.x86.avx2.permps")
    regs = [ll.Constant(v8, [ll.Constant(m.elem, v) for v in values[k:k + 8]])
            for k in range(0, len(values), 8)]

    def pick(i):
        parts = [b.call(fn, [reg, i]) for reg in regs]
        bit = 8
        while len(parts) > 1:
            high = b.icmp_unsigned("!=", b.and_(i, ll.Constant(i8, [ll.Constant(
                ll.IntType(32), bit)] * 8)), ll.Constant(i8, [ll.Constant(ll.IntType(32), 0)] * 8))
            parts = [b.select(high, parts[k + 1], parts[k]) for k in range(0, len(parts), 2)]
            bit *= 2
        return parts[0]
    return per_zmm(m, pick, idx, z=8)


LOG_NAMES = ("pyhalide.log_invc", "pyhalide.log_hi", "pyhalide.log_lo")


def emit(m, x, name: str, value, make_f64, bits: int = 64):
    """value(m, x) (exp or log of float64 x, holding float32 values if bits
    is 32): inline, except a scalar in a module compiled for a target, which
    calls pyhalide_<name>[f]_f64 so that LLVM's loop vectorizer can widen it
    into calls of the vector versions (permutes or row loads) rather than
    gathers (codegen_trig.call)."""
    if m.lanes == 1 and getattr(m.b.module, "pyhalide_features", ""):
        return codegen_trig.call(m, x, name, bits, make_f64, body=value)
    return value(m, x)


class ExpConstants(NamedTuple):
    """What exp's algorithm needs of a float type: the clamp range, the
    rounding shift and its bits, ln2/16 split into c1 + c2 (n c1 exact), the
    polynomial P, the table's global names and its (T, t) maker."""
    hi: float
    lo: float
    shift: float
    shift_bits: int
    c1: float
    c2: float
    poly: tuple
    names: tuple
    table: Callable


EXP64 = ExpConstants(EXP_HI, EXP_LO, SHIFT, SHIFT_BITS, LN2_HI_N, LN2_LO_N, EXP_POLY,
                     ("pyhalide.exp_hi", "pyhalide.exp_tail"), exp_table)


def exp(m, x, k: ExpConstants = EXP64):
    """exp(x) for float64 x (m: codegen_math._F64; float32 with
    codegen_explog32's constants and m a codegen_math._F32)."""
    b = m.b
    xc = m.sel(m.cmp(">", x, m.c(k.hi)), m.c(k.hi), x)
    xc = m.sel(m.cmp("<", xc, m.c(k.lo)), m.c(k.lo), xc)      # NaN passes
    nd = m.fma(xc, m.c(INV_LN2_N), m.c(k.shift))
    n = b.sub(m.bits(nd), m.ci(k.shift_bits))
    nf = b.fneg(m.sub(nd, m.c(k.shift)))
    r = m.fma(nf, m.c(k.c2), m.fma(nf, m.c(k.c1), xc))
    j = b.and_(n, m.ci(EXP_N - 1))                 # in bounds for any bits (NaN)
    t_hi, t_lo = lookup(m, k.names, k.table(), j)
    r2 = m.mul(r, r)
    tmp = m.add(r, m.fma(r2, m.horner(r, k.poly), t_lo))
    y = m.fma(t_hi, tmp, t_hi)
    e = b.ashr(n, m.ci(EXP_BITS))          # in [-1077, 1024] (float32: [-151, 128])
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
    hi, lo = log_parts(m, x)
    return m.add(hi, lo)


def log_parts(m, x):
    """(hi, lo): log(x) = hi + lo unrounded (|lo| about ulp(hi) at most), for
    finite x > 0 (any values elsewhere); codegen_logbase scales the pair."""
    b = m.b
    k, iz, tmp = split_exponent(m, x, LOG_OFF)
    z = m.from_bits(iz)
    i = b.and_(b.lshr(tmp, m.ci(52 - LOG_BITS)), m.ci(LOG_N - 1))
    invcs, his, los = log_table()
    invc, l_hi, l_lo = lookup(m, LOG_NAMES, (invcs, his, los), i)
    p = m.mul(z, invc)
    p_err = m.fma(z, invc, b.fneg(p))             # exact
    r = m.sub(p, m.c(1.0))                        # exact (Sterbenz)
    dk = b.sitofp(k, m.ft)
    s1 = m.fma(dk, m.c(LN2_HI), l_hi)            # exact: multiples of 2^-32 below 2^10
    s2, e2 = m.fast_two_sum(s1, r)                # s1 = 0 or |s1| >= |r|
    r2 = m.mul(r, r)
    poly = m.fma(r, m.horner(r, LOG_POLY), m.c(-0.5))       # log1p(r) - r = r^2 poly
    small = m.add(e2, m.add(m.fma(dk, m.c(LN2_LO), l_lo), m.fma(b.fneg(p_err), r, p_err)))
    return s2, m.fma(r2, poly, small)
