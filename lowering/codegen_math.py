"""exp, log, tanh, expm1 and log1p as inline LLVM instruction sequences, for
scalars and vectors alike (codegen_ops.call_intrinsic uses them in place of
libm); sin, cos and tan are codegen_trig's (functions of the module with
vector versions), dispatched from `emit` too. A module using any of them
prefers 512-bit vectors (prefer_wide_vectors).

Why: LLVM lowers `llvm.exp` and friends to one libm call per lane, so a loop
that uses them cannot be vectorized. These sequences use only IEEE
operations (add, mul, div, fma, compares, selects, integer bit operations):
a scalar and each lane of a vector compute the same bits, so a result never
depends on the schedule. No fast-math flags.

Accuracy: every result is within 1 ulp of the correctly rounded value
(error below 1 ulp of the exact value; tests/backend/test_vector_math.py
checks it against mpmath or long double). Special values are NumPy's:

- exp: exp(-inf) = +0, exp(+inf) = +inf, NaN -> NaN; overflow to +inf above
  709.78 and gradual underflow into the subnormals down to 0 below -745.13
  (the correctly rounded thresholds);
- log: log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN -> NaN,
  subnormal arguments exact (scaled by 2^54 first), log(1) = +0; bit for bit
  NumPy's: the NaN of x < 0 has the sign this host's NumPy gives (numpy_nans:
  x86's default NaN 0xfff8... with AVX-512F, +NaN 0x7ff8... from float64 log,
  log2 and log10 on an AVX2 host), a NaN argument comes back quieted (log1p
  too);
- tanh: odd (tanh(-0) = -0), +-1 for |x| > 20, NaN -> NaN;
- expm1 and log1p: x itself for |x| < 2^-54 (so +-0 keep their sign),
  expm1(-inf) = -1, expm1(+inf) = +inf, log1p(-1) = -inf, log1p(x < -1) = NaN.

float32 exp and log are computed in float32, 16 lanes to a zmm register
(codegen_explog32: within 0.52 ulp of the exact value; exp's subnormal
results within 1 ulp; a NaN argument gives NumPy's float32 NaN 0x7fc00000).
The other float32 functions are computed in float64 (shorter polynomials, no
double-double parts: relative error below 2^-35) and rounded once, so they
are within 1 ulp of the correctly rounded float32 (subnormal results are
rounded once); tanh is expm1(2|x|) / (expm1(2|x|) + 2) there.

Algorithms (float64 exp and log themselves: codegen_explog's tables):
- exp's parts for expm1 and tanh: exp(x) = 2^k exp(r), k = round(x / ln 2),
  r = x - k ln 2 as a double-double
  (r_hi, r_lo) by Cody-Waite with fma; exp(r) = 1 + r + r^2 P(r), P the
  Taylor polynomial to degree 13 (|r| <= 0.347: truncation below 2^-57),
  with 1 + r + r^2 / 2 summed exactly; 2^k applied as two
  exact powers of two so that only the last product rounds (subnormals).
- log's parts for log1p: log(x) = k ln 2 + log(m), x = 2^k m with m in
  [sqrt(2)/2, sqrt(2)), f = m - 1:
  fdlibm's e_log.c (s = f / (2 + f), Lg1..Lg7), without branches, with the
  leading terms k LN2_HI + f - f^2/2 summed exactly.
- expm1(x) = 2^k (p + small) - 1 from exp's parts, the - 1 exact (TwoSum);
  log1p(x) = log(u) + du / u with u + du = 1 + x exactly.
- tanh(|x|) below 0.3: x + x^3 g(x^2) with g a Chebyshev fit (8 terms,
  relative error below 2^-58); above: 1 - 2 / (exp(2|x|) + 1) with exp as a
  double-double and one correction of the quotient, so the cancellation in
  1 - q keeps the error below 1 ulp.
"""
from __future__ import annotations

import functools
import math

from llvmlite import ir as ll

from pyhalide import ir

from . import codegen_explog, codegen_explog32, codegen_logbase, codegen_trig, numpy_nans

# the Cody-Waite split of ln 2, the exp range and the integer-rounding shift
# (1.5 * 2^52) are codegen_explog's and codegen_trig's
from .codegen_explog import EXP_HI, LN2_HI, LN2_LO
from .codegen_trig import SHIFT, SHIFT_BITS

INV_LN2 = 1.0 / math.log(2.0)
# 1/n!, n = 2..13
EXP_TAYLOR = (0.5, 0.16666666666666666, 0.041666666666666664, 0.008333333333333333,
              0.001388888888888889, 0.0001984126984126984, 2.48015873015873e-05,
              2.7557319223985893e-06, 2.755731922398589e-07, 2.505210838544172e-08,
              2.08767569878681e-09, 1.6059043836821613e-10)
# fdlibm e_log.c: log(1+f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f)
LG = (6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
      2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
      1.479819860511658591e-01)
SQRT_HALF_BITS = 0x3FE6A09E667F3BCD            # the bits of sqrt(2)/2
# tanh(x) = x + x^3 g(x^2) for |x| < TANH_SMALL: g's Chebyshev fit on [0, 0.09]
TANH_SMALL = 0.3
TANH_G = (-0.3333333333333333, 0.13333333333329464, -0.053968253959211114,
          0.021869487730074903, -0.008863200177142575, 0.0035912834611108225,
          -0.0014445898532447449, 0.0005109249704674158)
TANH_ONE = 20.0                      # tanh(x) rounds to 1 above 19.06...

FUNCTIONS = frozenset({"exp", "log", "tanh", "expm1", "log1p", *codegen_logbase.BASES,
                       *codegen_trig.FUNCTIONS})


class _F64:
    """Float64 operations on scalars or vectors of `lanes` lanes (integers:
    i64 of as many lanes)."""
    elem = ll.DoubleType()
    tag = "f64"                 # LLVM's name of the float type
    zmm_lanes = 8               # values in a 512-bit register
    size = 8                    # bytes per value

    def __init__(self, b: ll.IRBuilder, lanes: int):
        self.b = b
        self.lanes = lanes
        ib = ll.IntType(8 * self.size)
        self.ft = self.elem if lanes == 1 else ll.VectorType(self.elem, lanes)
        self.it = ib if lanes == 1 else ll.VectorType(ib, lanes)

    def _splat(self, ty, c):
        return c if self.lanes == 1 else ll.Constant(ty, [c] * self.lanes)

    def c(self, v: float):
        return self._splat(self.ft, ll.Constant(self.elem, float(v)))

    def ci(self, v: int):
        return self._splat(self.it, ll.Constant(ll.IntType(8 * self.size), v))

    def call(self, name, *args):
        mod = self.b.module
        full = f"llvm.{name}.{self.tag if self.lanes == 1 else f'v{self.lanes}{self.tag}'}"
        fn = mod.globals.get(full)
        if fn is None:
            fn = ll.Function(mod, ll.FunctionType(self.ft, [self.ft] * len(args)), name=full)
        return self.b.call(fn, list(args))

    def fma(self, a, b, c):
        return self.call("fma", a, b, c)

    def add(self, a, b):
        return self.b.fadd(a, b)

    def sub(self, a, b):
        return self.b.fsub(a, b)

    def mul(self, a, b):
        return self.b.fmul(a, b)

    def div(self, a, b):
        return self.b.fdiv(a, b)

    def sel(self, cond, a, b):
        return self.b.select(cond, a, b)

    def cmp(self, op, a, b):
        return self.b.fcmp_ordered(op, a, b)

    def bits(self, x):
        return self.b.bitcast(x, self.it)

    def from_bits(self, i):
        return self.b.bitcast(i, self.ft)

    def horner(self, x, coeffs):
        """coeffs[0] + x (coeffs[1] + x (...)), by fma."""
        acc = self.c(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self.fma(acc, x, self.c(c))
        return acc

    def two_sum(self, a, b):
        """(s, e): s = a + b rounded and its exact error e (Knuth)."""
        s = self.add(a, b)
        bb = self.sub(s, a)
        return s, self.add(self.sub(a, self.sub(s, bb)), self.sub(b, bb))

    def fast_two_sum(self, a, b):
        """(s, e): s = a + b rounded and its exact error e, for |a| >= |b| or a = 0
        (Dekker)."""
        s = self.add(a, b)
        return s, self.sub(b, self.sub(s, a))

    def pow2(self, k):
        """2^k for integers k in [-1022, 1023] (i64), exactly."""
        return self.from_bits(self.b.shl(self.b.add(k, self.ci(1023)), self.ci(52)))


class _F32(_F64):
    """Float32 operations on scalars or vectors of `lanes` lanes (integers:
    i32 of as many lanes)."""
    elem = ll.FloatType()
    tag = "f32"
    zmm_lanes = 16
    size = 4

    def pow2(self, k):
        """2^k for integers k in [-126, 127] (i32), exactly."""
        return self.from_bits(self.b.shl(self.b.add(k, self.ci(127)), self.ci(23)))


def _exp_parts(m: _F64, x):
    """(k, hi, lo) with exp(x) = 2^k (hi + lo) to about 2^-57 relative,
    |hi + lo - 1| < 0.42, for x in [EXP_LO, EXP_HI] (NaN gives NaN parts)."""
    kd = m.fma(x, m.c(INV_LN2), m.c(SHIFT))
    k = m.b.sub(m.bits(kd), m.ci(SHIFT_BITS))
    kf = m.sub(kd, m.c(SHIFT))
    nk = m.b.fneg(kf)
    r1 = m.fma(nk, m.c(LN2_HI), x)                  # exact
    r_hi = m.fma(nk, m.c(LN2_LO), r1)
    r_lo = m.fma(nk, m.c(LN2_LO), m.sub(r1, r_hi))  # r1 - r_hi exact
    # exp(r_hi + r_lo) = 1 + r_hi + r_hi^2 / 2 + r_hi^3 P'(r_hi) + r_lo (1 + r_hi) + ...
    # with 1 + r_hi + r_hi^2 / 2 summed exactly (r_hi^2 split by fma)
    r2 = m.mul(r_hi, r_hi)
    r2_err = m.fma(r_hi, r_hi, m.b.fneg(r2))        # exact
    cubic = m.mul(m.mul(r2, r_hi), m.horner(r_hi, EXP_TAYLOR[1:]))
    corr = m.fma(r_lo, r_hi, r_lo)
    one = m.c(1.0)
    hi = m.add(one, r_hi)
    lo = m.add(m.sub(one, hi), r_hi)                # exact (|r_hi| < 1)
    p, e = m.fast_two_sum(hi, m.mul(r2, m.c(0.5)))  # hi > 0.65 > r2 / 2
    small = m.add(m.add(lo, e), m.fma(r2_err, m.c(0.5), m.add(cubic, corr)))
    return k, p, small


def _log_sum(m: _F64, x):
    """(s2, tail): log(x) = s2 + tail for finite x > 0, s2 the exact sum of the
    leading terms."""
    b = m.b
    k, iz, _ = codegen_explog.split_exponent(m, x, SQRT_HALF_BITS)
    f = m.sub(m.from_bits(iz), m.c(1.0))             # exact: m in [0.707, 1.415)
    dk = b.sitofp(k, m.ft)
    s = m.div(f, m.add(m.c(2.0), f))
    z = m.mul(s, s)
    w = m.mul(z, z)
    t1 = m.mul(w, m.horner(w, (LG[1], LG[3], LG[5])))
    t2 = m.mul(z, m.horner(w, (LG[0], LG[2], LG[4], LG[6])))
    r = m.add(t2, t1)
    # log(x) = k LN2_HI + f - h + [s (h + R) + k LN2_LO], h = f^2 / 2: the three
    # leading terms summed exactly (two TwoSums and h's own rounding error), so
    # that only the final addition rounds much.
    half_f = m.mul(m.c(0.5), f)
    h = m.mul(half_f, f)
    h_err = m.fma(half_f, f, b.fneg(h))                  # exact
    # k LN2_HI is exact and 0 or above 0.69 > |f|; |s1| >= min(|f|, 0.4) > h
    s1, e1 = m.fast_two_sum(m.mul(dk, m.c(LN2_HI)), f)
    s2, e2 = m.fast_two_sum(s1, b.fneg(h))
    tail = m.fma(s, m.add(h, r), m.fma(dk, m.c(LN2_LO), m.sub(m.add(e1, e2), h_err)))
    return s2, tail


# log's values outside the finite positive numbers, as vfixupimmpd's tokens by
# class of x (4 bits each, class 0 lowest): QNaN -> x, SNaN -> x quieted, +-0 ->
# -inf, 1 -> val, -inf -> NaN, +inf -> +inf, negative -> NaN, positive -> val;
# NaN is x86's default NaN (bits 0xfff8...)
LOG_FIXUP = 0x03530421
NAN_DEFAULT = -math.nan          # the default NaN: sign bit set


def _log_specials(m: _F64, x, val, name: str, bits: int = 64):
    """val where x is finite and positive; else log's value: -inf at +-0, NaN
    below 0 (the sign of the NaN NumPy's `name` of float`bits` gives there on
    this host: numpy_nans), +inf at +inf, x quieted at NaN. On AVX-512 one
    vfixupimmpd per 8 lanes where that NaN is the default one; elsewhere
    selects (the same bits)."""
    negative = numpy_nans.invalid_nan_negative(name, bits)
    if negative and m.lanes > 1 and codegen_explog.has_avx512(m.b.module):
        v8, i8 = ll.VectorType(ll.DoubleType(), 8), ll.VectorType(ll.IntType(64), 8)
        i32, i8m = ll.IntType(32), ll.IntType(8)
        fn = codegen_explog.intrinsic(m, "llvm.x86.avx512.mask.fixupimm.pd.512",
                                      [v8, v8, i8, i32, i8m, i32])
        table = ll.Constant(i8, [ll.Constant(ll.IntType(64), LOG_FIXUP)] * 8)
        return codegen_explog.per_zmm(m, lambda v, xv: m.b.call(fn, [
            v, xv, table, ll.Constant(i32, 0), ll.Constant(i8m, 0xFF), ll.Constant(i32, 4)]),
            val, x)
    # finite and positive: bits(x) - 1 below bits(+inf) - 1 as unsigned integers
    finite_pos = m.b.icmp_unsigned("<", m.b.sub(m.bits(x), m.ci(1)), m.ci(0x7FEFFFFFFFFFFFFF))
    special = m.sel(m.cmp("==", x, m.c(0.0)), m.c(-math.inf),
                    m.sel(m.cmp("<", x, m.c(0.0)),
                          m.c(NAN_DEFAULT if negative else math.nan), m.add(x, x)))
    return m.sel(finite_pos, val, special)


def _tiny(m: _F64, x):
    """|x| < 2^-54, where expm1(x) and log1p(x) round to x (also +-0)."""
    return m.cmp("<", m.call("fabs", x), m.c(2.0 ** -54))


def _log1p(m: _F64, x):
    """log(u) + du / u for u + du = 1 + x exactly (u rounded)."""
    u, du = m.two_sum(m.c(1.0), x)
    s2, tail = _log_sum(m, u)
    y = _log_specials(m, u, m.add(s2, m.add(tail, m.div(du, u))), "log1p")
    return m.sel(_tiny(m, x), x, y)


def _expm1(m: _F64, x):
    """2^k (p + small) - 1 with the subtraction of 1 exact (TwoSum); +inf where
    2^k p overflows; below -60 the result rounds to -1."""
    xc = m.sel(m.cmp(">", x, m.c(EXP_HI)), m.c(EXP_HI), x)
    xc = m.sel(m.cmp("<", xc, m.c(-60.0)), m.c(-60.0), xc)
    k, p, small = _exp_parts(m, xc)
    k1 = m.b.ashr(k, m.ci(1))
    s1, s2 = m.pow2(k1), m.pow2(m.b.sub(k, k1))
    big = m.mul(m.mul(p, s1), s2)                    # exact below the overflow
    t, err = m.two_sum(big, m.c(-1.0))
    y = m.add(t, m.add(err, m.mul(m.mul(small, s1), s2)))
    y = m.sel(m.cmp("==", big, m.c(math.inf)), big, y)
    return m.sel(_tiny(m, x), x, y)


def _tanh(m: _F64, x):
    a = m.call("fabs", x)
    a = m.sel(m.cmp(">", a, m.c(TANH_ONE)), m.c(TANH_ONE), a)
    # |x| < TANH_SMALL: a + a^3 g(a^2)
    z = m.mul(a, a)
    small = m.fma(m.mul(a, z), m.horner(z, TANH_G), a)
    # otherwise 1 - 2 / (E + 1), E = exp(2a) = 2^k (hi + lo), k in [0, 58]
    k, hi, lo = _exp_parts(m, m.add(a, a))
    s = m.add(hi, lo)
    e = m.sub(lo, m.sub(s, hi))
    scale = m.pow2(k)
    es, ee = m.mul(s, scale), m.mul(e, scale)
    one, two = m.c(1.0), m.c(2.0)
    d_hi = m.add(es, one)
    d_lo = m.add(m.sub(one, m.sub(d_hi, es)), ee)  # es >= 1 where used
    q = m.div(two, d_hi)
    rem = m.fma(m.b.fneg(q), d_lo, m.fma(m.b.fneg(q), d_hi, two))
    q_lo = m.mul(m.mul(rem, q), m.c(0.5))           # rem / d_hi
    w = m.sub(one, q)
    w_err = m.sub(m.sub(one, w), q)                 # exact: q < 1
    large = m.add(w, m.sub(w_err, q_lo))
    y = m.sel(m.cmp("<", a, m.c(TANH_SMALL)), small, large)
    return m.call("copysign", y, x)


# ---- float32 tanh, expm1, log1p: in float64 with the precision float32 needs
# (relative error < 2^-35) ----
EXP32_HI = 89.0                      # float32 exp overflows above 88.72...
EXP32_LO = -104.0                    # and is 0 below -103.97...
TANH32_ONE = 10.0                    # float32 tanh rounds to 1 above 9.01...


def _exp32_core(m: _F64, x):
    """(s, q) with exp(x) = s (1 + q), s = 2^k exactly, |q| < 0.42 with relative
    error below 2^-36 (Taylor to degree 9), for x in [EXP32_LO, EXP32_HI]."""
    kd = m.fma(x, m.c(INV_LN2), m.c(SHIFT))
    k = m.b.sub(m.bits(kd), m.ci(SHIFT_BITS))
    nk = m.b.fneg(m.sub(kd, m.c(SHIFT)))
    r = m.fma(nk, m.c(LN2_LO), m.fma(nk, m.c(LN2_HI), x))
    q = m.mul(r, m.horner(r, (1.0,) + EXP_TAYLOR[:8]))
    return m.pow2(k), q


def _log32_value(m: _F64, x):
    """fdlibm's log without the exact sums, for finite x > 0 (float32 arguments
    are normal float64s)."""
    b = m.b
    ix = m.bits(x)
    tmp = b.sub(ix, m.ci(SQRT_HALF_BITS))
    dk = b.sitofp(b.ashr(tmp, m.ci(52)), m.ft)
    f = m.sub(m.from_bits(b.sub(ix, b.and_(tmp, m.ci(-(1 << 52))))), m.c(1.0))
    s = m.div(f, m.add(m.c(2.0), f))
    z = m.mul(s, s)
    w = m.mul(z, z)
    r = m.add(m.mul(z, m.horner(w, (LG[0], LG[2], LG[4], LG[6]))),
              m.mul(w, m.horner(w, (LG[1], LG[3], LG[5]))))
    hfsq = m.mul(m.mul(m.c(0.5), f), f)
    return m.fma(dk, m.c(math.log(2.0)), m.sub(f, m.sub(hfsq, m.mul(s, m.add(hfsq, r)))))


def _log1p32(m: _F64, x):
    u, du = m.two_sum(m.c(1.0), x)
    y = _log_specials(m, u, m.add(_log32_value(m, u), m.div(du, u)), "log1p", 32)
    return m.sel(_tiny(m, x), x, y)


def _expm1_32(m: _F64, x):
    xc = m.sel(m.cmp(">", x, m.c(EXP32_HI)), m.c(EXP32_HI), x)
    xc = m.sel(m.cmp("<", xc, m.c(-40.0)), m.c(-40.0), xc)      # rounds to -1 below -17.3
    s, q = _exp32_core(m, xc)
    return m.sel(_tiny(m, x), x, m.fma(s, q, m.sub(s, m.c(1.0))))


def _tanh32(m: _F64, x):
    """expm1(2|x|) / (expm1(2|x|) + 2), expm1 = s q + (s - 1) rounded once (exact
    for s = 1: no cancellation near 0)."""
    a = m.call("fabs", x)
    a = m.sel(m.cmp(">", a, m.c(TANH32_ONE)), m.c(TANH32_ONE), a)
    s, q = _exp32_core(m, m.add(a, a))
    em1 = m.fma(s, q, m.sub(s, m.c(1.0)))
    return m.call("copysign", m.div(em1, m.add(em1, m.c(2.0))), x)


def _log_table(m: _F64, x):
    return _log_specials(m, x, codegen_explog.log_value(m, x), "log")


def _log_base_table(m: _F64, x, name: str):
    """log2 / log10 (`name`) of float64 x: log's pair scaled (codegen_logbase)."""
    value = codegen_logbase.scaled(m, *codegen_explog.log_parts(m, x), name)
    return _log_specials(m, x, value, name)


def _log_base32(m, x, name: str):
    """log2 / log10 (`name`) of float32 x in float32 (codegen_logbase)."""
    return codegen_explog32.log(m, x, functools.partial(codegen_logbase.scaled, name=name), name)


_EMIT = {64: {"exp": functools.partial(codegen_explog.emit, name="exp", value=codegen_explog.exp,
                                       make_f64=_F64),
              "log": functools.partial(codegen_explog.emit, name="log", value=_log_table,
                                       make_f64=_F64),
              "tanh": _tanh, "expm1": _expm1, "log1p": _log1p,
              **{nm: functools.partial(codegen_explog.emit, name=nm, make_f64=_F64,
                                       value=functools.partial(_log_base_table, name=nm))
                 for nm in codegen_logbase.BASES},
              **{nm: functools.partial(codegen_trig.call, name=nm, bits=64, make_f64=_F64)
                 for nm in codegen_trig.FUNCTIONS}},
         32: {"tanh": _tanh32, "expm1": _expm1_32,
              "log1p": _log1p32,
              **{nm: functools.partial(codegen_trig.call, name=nm, bits=32, make_f64=_F64)
                 for nm in codegen_trig.FUNCTIONS}}}


WIDE = '"prefer-vector-width"="512"'


def prefer_wide_vectors(mod: ll.Module):
    """Let LLVM's loop vectorizer use 512-bit vectors in the functions defined so far
    in `mod` where the target has them (x86 CPUs with AVX-512 prefer 256 bits by
    default): these sequences are long chains of arithmetic on independent lanes,
    twice as fast with 8 float64 lanes. Every defined function, not only the one
    being emitted: the inliner moves loops into their callers (the entry point,
    a parallel task), and it keeps the caller's attributes."""
    for fn in mod.functions:
        if fn.blocks and WIDE not in fn.attributes:
            set.add(fn.attributes, WIDE)    # a string attribute: not in llvmlite's known set


# float32 exp and log in float32 (codegen_explog32): 16 lanes to a zmm register
_NATIVE32 = {nm: functools.partial(codegen_explog.emit, name=nm, value=value, make_f64=_F32,
                                   bits=32)
             for nm, value in (("exp", codegen_explog32.exp), ("log", codegen_explog32.log),
                               *((nm, functools.partial(_log_base32, name=nm))
                                 for nm in codegen_logbase.BASES))}


def emit(b: ll.IRBuilder, name: str, x, t: ir.Type):
    """`name`(x) for x an LLVM value of the float type t (scalar or vector)."""
    m = _F64(b, t.lanes)
    if t.bits == 64:
        y = _EMIT[64][name](m, x)
    elif name in _NATIVE32:
        y = _NATIVE32[name](_F32(b, t.lanes), x)
    else:
        y = b.fptrunc(_EMIT[32][name](m, b.fpext(x, m.ft)), x.type)
    prefer_wide_vectors(b.module)       # after codegen_trig's functions are defined
    return y
