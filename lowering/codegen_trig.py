"""sin and cos as inline LLVM instruction sequences for float64 (float32 is
the float64 result rounded once), scalars and vectors alike; codegen_math
dispatches to `sin` and `cos` here.

Like codegen_math's functions they use only IEEE operations (no fast-math
flags, no libm call) and loads from a constant table, so a scalar and each
lane of a vector compute the same bits and LLVM's vectorizers can widen them.

Range reduction: x = k pi/2 + r, |r| <= pi/4 (a little more), r as a
double-double r_hi + r_lo with relative error far below 2^-70 for every
finite double (the closest a double comes to a multiple of pi/2 is about
2^-61, so up to 62 bits cancel):
- |x| < CW_LIMIT: Cody-Waite with pi/2 split into three doubles: x - k C1 is
  exact (fma), k C2 an exact two-product, k C3 rounded (k < 2^20);
- otherwise Payne-Hanek: x = M 2^E (M a 53-bit integer), and the bits of
  2/pi that make x 2/pi a multiple of 4 are dropped: the table holds, for each
  exponent, the next 52 + 3 * 53 bits of 2/pi as four doubles d0..d3 scaled
  so that M d_i does not depend on E. M d0 mod 4 is exact (a multiple of
  2^-50 below 8), the integer part of the sum is removed before the small
  terms are added (TwoSums), and the fraction is multiplied by pi/2 as a
  double-double. Both reductions are computed (no branch: vectorizable) and
  the one for |x| selected.
Kernels: fdlibm's __kernel_sin / __kernel_cos (k_sin.c, k_cos.c) with the
tail r_lo, polynomial error below 2^-58; the quadrant k mod 4 picks
+-sin(r) or +-cos(r). sin(-x) = -sin(x) (reduction of |x|, so sin(-0) = -0),
sin and cos of +-inf and NaN are NaN (NumPy's values).
"""
from __future__ import annotations

import struct
from functools import lru_cache

from llvmlite import ir as ll

# pi/2 in three doubles (C1 + C2 + C3 = pi/2 to about 2^-160)
PIO2 = (1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33)
TWO_OVER_PI = 0.6366197723675814
CW_LIMIT = 1.5e6                   # k = round(x 2/pi) < 2^20 below this
SHIFT = 6755399441055744.0         # 1.5 * 2^52: x + SHIFT rounds x to an integer
SHIFT_BITS = struct.unpack("<q", struct.pack("<d", SHIFT))[0]
PH_FIRST = 1043                    # the first biased exponent of the table (2^20)
PH_COUNT = 2047 - PH_FIRST         # ... up to the largest finite exponent
SIGN = -(1 << 63)
# fdlibm k_sin.c: sin(x) ~ x + x^3 (S1 + x^2 (S2 + ...))
S = (-1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04,
     2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10)
# fdlibm k_cos.c: cos(x) ~ 1 - x^2/2 + x^4 (C1 + x^2 (C2 + ...))
C = (4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05,
     -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11)


def _pi_bits(w: int) -> int:
    """floor(pi 2^w) (within one unit) by Machin's formula in integers."""
    guard = w + 32
    one = 1 << guard

    def atan_inv(n):
        total, term, k, sign = 0, one // n, 1, 1
        while term:
            total += sign * (term // k)
            term //= n * n
            k += 2
            sign = -sign
        return total
    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> 32


@lru_cache(maxsize=1)
def reduction_table() -> tuple:
    """The Payne-Hanek table: for biased exponents be = PH_FIRST .. 2046
    (E = be - 1075, x = M 2^E), four doubles d0..d3 with d_i 2^-E the bits of
    2/pi from weight 2^(1-E) down: d0 = 52 bits (weights 2^(1-E) .. 2^(-50-E))
    times 2^-50, d1, d2, d3 = the next 53 bits each times 2^-103, 2^-156,
    2^-209 (so M d_i is independent of E and every d_i is normal)."""
    w = 1500
    two_over_pi = (1 << (2 * w + 1)) // _pi_bits(w)        # floor(2/pi 2^w), +-1
    out = []
    for be in range(PH_FIRST, 2047):
        e = be - 1075
        for top, bits in ((-50, 52), (-103, 53), (-156, 53), (-209, 53)):
            # bits of weights 2^(top + bits - 1 - E) .. 2^(top - E): 2^w units
            shift = w + top - e
            chunk = (two_over_pi >> shift) & ((1 << bits) - 1)
            out.append(float(chunk) * 2.0 ** top)
    return tuple(out)


def _table(m):
    mod = m.b.module
    g = mod.globals.get("pyhalide.two_over_pi")
    if g is None:
        ty = ll.ArrayType(ll.DoubleType(), 4 * PH_COUNT)
        g = ll.GlobalVariable(mod, ty, name="pyhalide.two_over_pi")
        g.initializer = ll.Constant(ty, [ll.Constant(ll.DoubleType(), v)
                                         for v in reduction_table()])
        g.global_constant = True
        g.linkage = "internal"
        g.align = 64
    return g


def _load_table(m, idx, i):
    """table[4 idx + i] for an i64 (vector) idx."""
    b, g = m.b, _table(m)
    pos = b.add(b.shl(idx, m.ci(2)), m.ci(i))
    if m.lanes == 1:
        return b.load(b.gep(g, [ll.Constant(ll.IntType(64), 0), pos], inbounds=True),
                      typ=ll.DoubleType())
    out = ll.Constant(m.ft, ll.Undefined)
    for lane in range(m.lanes):
        li = ll.Constant(ll.IntType(32), lane)
        p = b.gep(g, [ll.Constant(ll.IntType(64), 0), b.extract_element(pos, li)], inbounds=True)
        out = b.insert_element(out, b.load(p, typ=ll.DoubleType()), li)
    return out


def _two_prod(m, a, b):
    p = m.mul(a, b)
    return p, m.fma(a, b, m.b.fneg(p))


def _round_int(m, x):
    """(k as i64, k as double) for k = x rounded to the nearest integer, |x| < 2^51."""
    kd = m.add(x, m.c(SHIFT))
    return m.b.sub(m.bits(kd), m.ci(SHIFT_BITS)), m.sub(kd, m.c(SHIFT))


def _cody_waite(m, ax):
    """(k, r_hi, r_lo): ax = k pi/2 + r for 0 <= ax < CW_LIMIT."""
    kd = m.fma(ax, m.c(TWO_OVER_PI), m.c(SHIFT))
    k = m.b.sub(m.bits(kd), m.ci(SHIFT_BITS))
    kf = m.sub(kd, m.c(SHIFT))
    nk = m.b.fneg(kf)
    a = m.fma(nk, m.c(PIO2[0]), ax)                  # exact
    p2, e2 = _two_prod(m, kf, m.c(PIO2[1]))
    s, t = m.two_sum(a, m.b.fneg(p2))
    lo = m.fma(nk, m.c(PIO2[2]), m.sub(t, e2))
    r_hi, r_lo = m.fast_two_sum(s, lo)
    return k, r_hi, r_lo


def _payne_hanek(m, ax):
    """(k, r_hi, r_lo): ax = k pi/2 + r (k mod 4 exact) for finite ax >= 2^20;
    other lanes compute garbage that is not selected."""
    b = m.b
    bits = m.bits(ax)
    be = b.lshr(bits, m.ci(52))
    idx = b.sub(be, m.ci(PH_FIRST))
    idx = b.select(b.icmp_signed("<", idx, m.ci(0)), m.ci(0), idx)
    idx = b.select(b.icmp_signed(">", idx, m.ci(PH_COUNT - 1)), m.ci(PH_COUNT - 1), idx)
    xs = m.from_bits(b.or_(b.and_(bits, m.ci((1 << 52) - 1)), m.ci(1075 << 52)))   # M
    d = [_load_table(m, idx, i) for i in range(4)]
    p0, e0 = _two_prod(m, xs, d[0])                  # multiples of 2^-50, p0 < 2^55
    f0 = m.sub(p0, m.mul(m.c(4.0), m.call("floor", m.mul(p0, m.c(0.25)))))   # exact
    g = m.add(f0, e0)                                # exact: a multiple of 2^-50 below 8
    p1, e1 = _two_prod(m, xs, d[1])
    a_hi, a_lo = m.two_sum(g, p1)
    k, kf = _round_int(m, a_hi)
    s = m.sub(a_hi, kf)                              # exact, |s| <= 1/2
    p2, e2 = _two_prod(m, xs, d[2])
    s, t1 = m.two_sum(s, a_lo)
    s, t2 = m.two_sum(s, e1)
    s, t3 = m.two_sum(s, p2)
    lo = m.add(m.add(m.add(t1, t2), m.add(t3, e2)), m.mul(xs, d[3]))
    f_hi, f_lo = m.fast_two_sum(s, lo)
    # r = f pi/2 as a double-double
    r_hi, r_err = _two_prod(m, f_hi, m.c(PIO2[0]))
    r_lo = m.add(r_err, m.fma(f_hi, m.c(PIO2[1]), m.mul(f_lo, m.c(PIO2[0]))))
    r_hi, r_lo = m.fast_two_sum(r_hi, r_lo)
    return k, r_hi, r_lo


def reduce(m, ax):
    """(k, r_hi, r_lo) with ax = k pi/2 + r_hi + r_lo for finite ax >= 0."""
    k1, h1, l1 = _cody_waite(m, ax)
    k2, h2, l2 = _payne_hanek(m, ax)
    small = m.cmp("<", ax, m.c(CW_LIMIT))
    return m.b.select(small, k1, k2), m.sel(small, h1, h2), m.sel(small, l1, l2)


def _ksin(m, x, y):
    """fdlibm __kernel_sin(x, y, 1): sin(x + y), |x| <= pi/4, |y| < ulp(x)."""
    z = m.mul(x, x)
    w = m.mul(z, z)
    r = m.add(m.horner(z, S[1:4]), m.mul(m.mul(z, w), m.horner(z, S[4:])))
    v = m.mul(z, x)
    inner = m.sub(m.mul(z, m.sub(m.mul(m.c(0.5), y), m.mul(v, r))), y)
    return m.sub(x, m.sub(inner, m.mul(v, m.c(S[0]))))


def _kcos(m, x, y):
    """fdlibm __kernel_cos(x, y): cos(x + y), |x| <= pi/4, |y| < ulp(x)."""
    z = m.mul(x, x)
    w = m.mul(z, z)
    r = m.add(m.mul(z, m.horner(z, C[:3])), m.mul(m.mul(w, w), m.horner(z, C[3:])))
    hz = m.mul(m.c(0.5), z)
    w = m.sub(m.c(1.0), hz)
    tail = m.add(m.sub(m.sub(m.c(1.0), w), hz), m.sub(m.mul(z, r), m.mul(x, y)))
    return m.add(w, tail)


def _sincos(m, x, want_cos: bool):
    b = m.b
    ax = m.call("fabs", x)
    finite = m.cmp("<", ax, m.c(float("inf")))       # false for NaN
    k, r_hi, r_lo = reduce(m, m.sel(finite, ax, m.c(0.0)))
    if want_cos:
        k = b.add(k, m.ci(1))                        # cos(x) = sin(x + pi/2)
    s, c = _ksin(m, r_hi, r_lo), _kcos(m, r_hi, r_lo)
    odd = b.icmp_signed("!=", b.and_(k, m.ci(1)), m.ci(0))
    val = m.bits(m.sel(odd, c, s))
    sign = b.shl(b.and_(k, m.ci(2)), m.ci(62))        # k mod 4 in {2, 3}: negative
    if not want_cos:
        sign = b.xor(sign, b.and_(m.bits(x), m.ci(SIGN)))
    y = m.from_bits(b.xor(val, sign))
    return m.sel(finite, y, m.sub(x, x))             # NaN for +-inf and NaN


def sin(m, x):
    return _sincos(m, x, False)


def cos(m, x):
    return _sincos(m, x, True)
