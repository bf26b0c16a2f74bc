"""sin, cos and tan as LLVM instruction sequences for float64 and float32,
scalars and vectors alike (codegen_math dispatches to `call` here).

Each is a function of the module per float type and lane count
(pyhalide_sin_f64, pyhalide_sin_v8f64, pyhalide_sinf_v16f64 for float32
values held in float64, ...), not inlined: its rarely run Payne-Hanek block
stays out of the caller's loop, and a scalar call names the vector versions
(the vector-function-abi-variant attribute), so LLVM's loop vectorizer
widens it into one call per vector. Like codegen_math's functions they use
only IEEE operations (no fast-math flags, no libm call) and loads from a
constant table, so a scalar and each lane of a vector compute the same bits.

Range reduction: x = k pi/2 + r, |r| <= pi/4 (a little more), r as a
double-double r_hi + r_lo with relative error far below 2^-70 for every
finite double (the closest a double comes to a multiple of pi/2 is about
2^-61, so up to 62 bits cancel):
- |x| < CW_LIMIT: Cody-Waite with pi/2 split into three doubles: x - k C1 is
  exact (fma), k C2 an exact two-product, k C3 rounded (k < 2^20);
- otherwise (branched to only when a lane needs it) Payne-Hanek: x = M 2^E
  (M a 53-bit integer), and the bits of 2/pi that make x 2/pi a multiple of
  4 are dropped: the table holds, for each exponent, the next 52 + 3 * 53
  bits of 2/pi as four doubles d0..d3 scaled so that M d_i does not depend
  on E. M d0 mod 4 is exact (a multiple of 2^-50 below 8), the integer part
  of the sum is removed before the small terms are added (TwoSums), and the
  fraction is multiplied by pi/2 as a double-double.
Kernels: Taylor polynomials with the leading terms (x - x^3/6, 1 - x^2/2)
summed in double-double and the tail r_lo, as unevaluated sums hi + lo
whose rounding is within 0.6 ulp (0.58 measured on 400,000 arguments per
range, the correctly rounded value nearly always); the quadrant k mod 4
picks +-sin(r) or +-cos(r); tan is their quotient (or -cos / sin) with one
correction step (0.60 ulp measured).
float32: FreeBSD's k_sinf.c / k_cosf.c polynomials in float64 (relative
error below 2^-34), two-part Cody-Waite below 2^28, the same Payne-Hanek
above; the caller rounds once (within 1 ulp).
sin and tan are odd (the reduction is of |x|, so sin(-0) = -0); of +-inf
and NaN all three are NaN (NumPy's values).
"""
from __future__ import annotations

import math
import re
import struct
from fractions import Fraction
from functools import lru_cache

from llvmlite import ir as ll

# pi/2 in three doubles (C1 + C2 + C3 = pi/2 to about 2^-160)
PIO2 = (1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33)
TWO_OVER_PI = 0.6366197723675814
CW_LIMIT = 1.5e6                   # k = round(x 2/pi) < 2^20 below this
SHIFT = 6755399441055744.0         # 1.5 * 2^52: x + SHIFT rounds x to an integer
SHIFT_BITS = struct.unpack("<q", struct.pack("<d", SHIFT))[0]   # (the bits of SHIFT)
PH_FIRST = 1043                    # the first biased exponent of the table (2^20)
PH_COUNT = 2047 - PH_FIRST         # ... up to the largest finite exponent
SIGN = -(1 << 63)
FUNCTIONS = ("sin", "cos", "tan")
# sin(x) = x - x^3/6 + x^5 P(x^2), cos(x) = 1 - x^2/2 + x^4 Q(x^2): Taylor
# coefficients (|x| <= 0.8: truncation below 2^-63 relative); -1/6 as a double-double
SIXTH = (-1.0 / 6.0, -(Fraction(1, 6) - Fraction(1.0 / 6.0)).__float__())
SIN_TAYLOR = tuple((-1) ** n / math.factorial(2 * n + 5) for n in range(8))    # to x^19
COS_TAYLOR = tuple((-1) ** n / math.factorial(2 * n + 4) for n in range(9))    # to x^20
# float32 (computed in float64, rounded once by the caller): FreeBSD's k_sinf.c and
# k_cosf.c, relative errors below 2^-37.5 and 2^-34.1 on |x| <= pi/4
S32 = (-0.166666666416265235595, 0.0083333293858894631756, -0.000198393348360966317347,
       0.0000027183114939898219064)
C32 = (-0.499999997251031003120, 0.0416666233237390631894, -0.00138867637746099294692,
       0.0000243904487962774090654)
CW32_LIMIT = 2.0 ** 28             # float32: two-part Cody-Waite below this


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
    """table[4 idx + i] for an i64 idx (scalar code only)."""
    b = m.b
    pos = b.add(b.shl(idx, m.ci(2)), m.ci(i))
    p = b.gep(_table(m), [ll.Constant(ll.IntType(64), 0), pos], inbounds=True)
    return b.load(p, typ=ll.DoubleType())


def bits_of(v: float) -> int:
    """The IEEE bits of double v, as a signed int64."""
    return struct.unpack("<q", struct.pack("<d", v))[0]


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


def _ksin(m, x, y):
    """sin(x + y) as an unevaluated sum hi + lo, for |x| <= pi/4 (a little
    more), |y| <= ulp(x): x - x^3/6 with x^3/6 as a double-double, x^5 P(x^2)
    (Taylor to degree 19), y cos(x); relative error about 2^-57, so that
    hi + lo rounded is within 0.6 ulp."""
    z, z_lo = _two_prod(m, x, x)
    c, c_lo = _two_prod(m, x, z)
    c_lo = m.fma(x, z_lo, c_lo)                       # x^3 = c + c_lo
    q, q_lo = _two_prod(m, c, m.c(SIXTH[0]))
    q_lo = m.fma(c, m.c(SIXTH[1]), m.fma(c_lo, m.c(SIXTH[0]), q_lo))   # -x^3/6 = q + q_lo
    rest = m.mul(m.mul(c, z), m.horner(z, SIN_TAYLOR))
    tail = m.add(m.add(q_lo, rest), m.mul(y, m.fma(z, m.c(-0.5), m.c(1.0))))
    s, e = m.fast_two_sum(x, q)
    return s, m.add(e, tail)


def _kcos(m, x, y):
    """cos(x + y) as hi + lo, for |x| <= pi/4 (a little more), |y| <= ulp(x):
    1 - x^2/2 summed exactly, x^4 Q(x^2) (Taylor to degree 20), - x y."""
    z, z_lo = _two_prod(m, x, x)
    h = m.mul(z, m.c(0.5))
    w, w_e = m.fast_two_sum(m.c(1.0), m.b.fneg(h))
    rest = m.mul(m.mul(z, z), m.horner(z, COS_TAYLOR))
    tail = m.sub(m.add(w_e, rest), m.fma(z_lo, m.c(0.5), m.mul(x, y)))
    return w, tail


def _cody_waite32(m, ax):
    """(k, r, 0) with ax = k pi/2 + r to a relative 2^-50 for float32 values
    0 <= ax < CW32_LIMIT (x - k C1 exact, k C2 rounded once)."""
    kd = m.fma(ax, m.c(TWO_OVER_PI), m.c(SHIFT))
    k = m.b.sub(m.bits(kd), m.ci(SHIFT_BITS))
    nk = m.b.fneg(m.sub(kd, m.c(SHIFT)))
    r = m.fma(nk, m.c(PIO2[1]), m.fma(nk, m.c(PIO2[0]), ax))
    return k, r, m.c(0.0)


def _ksin32(m, x, _):
    """FreeBSD __kernel_sindf: sin(x) to a relative 2^-37, |x| <= pi/4."""
    z = m.mul(x, x)
    w = m.mul(z, z)
    s = m.mul(z, x)
    r = m.fma(z, m.c(S32[3]), m.c(S32[2]))
    return m.fma(m.mul(s, w), r, m.fma(s, m.fma(z, m.c(S32[1]), m.c(S32[0])), x)), m.c(0.0)


def _kcos32(m, x, _):
    """FreeBSD __kernel_cosdf: cos(x) to 2^-34, |x| <= pi/4."""
    z = m.mul(x, x)
    w = m.mul(z, z)
    r = m.fma(z, m.c(C32[3]), m.c(C32[2]))
    head = m.fma(w, m.c(C32[1]), m.fma(z, m.c(C32[0]), m.c(1.0)))
    return m.fma(m.mul(w, z), r, head), m.c(0.0)


_KINDS = {64: (_cody_waite, CW_LIMIT, _ksin, _kcos),
          32: (_cody_waite32, CW32_LIMIT, _ksin32, _kcos32)}


def _value(m, x, name, bits, reduced):
    """name(x) from the reduction (k, r_hi, r_lo) of |x|."""
    b = m.b
    _, _, ksin, kcos = _KINDS[bits]
    k, r_hi, r_lo = reduced
    if name == "cos":
        k = b.add(k, m.ci(1))                        # cos(x) = sin(x + pi/2)
    s, c = ksin(m, r_hi, r_lo), kcos(m, r_hi, r_lo)
    odd = b.icmp_signed("!=", b.and_(k, m.ci(1)), m.ci(0))
    if name == "tan" and bits == 32:                 # s / c, or -c / s for odd k
        val = m.bits(m.div(m.sel(odd, c[0], s[0]), m.sel(odd, s[0], c[0])))
        sign = b.shl(b.and_(k, m.ci(1)), m.ci(63))
    elif name == "tan":                              # one division, one correction
        s, c = m.fast_two_sum(*s), m.fast_two_sum(*c)   # |lo| <= ulp(hi) / 2
        n_hi, n_lo = m.sel(odd, c[0], s[0]), m.sel(odd, c[1], s[1])
        d_hi, d_lo = m.sel(odd, s[0], c[0]), m.sel(odd, s[1], c[1])
        inv = m.div(m.c(1.0), d_hi)
        q = m.mul(n_hi, inv)                         # within 1.5 ulp of n / d
        res = m.fma(m.b.fneg(q), d_lo, m.add(m.fma(m.b.fneg(q), d_hi, n_hi), n_lo))
        val = m.bits(m.fma(res, inv, q))
        sign = b.shl(b.and_(k, m.ci(1)), m.ci(63))
    else:
        hi, lo = m.sel(odd, c[0], s[0]), m.sel(odd, c[1], s[1])
        val = m.bits(m.add(hi, lo))
        sign = b.shl(b.and_(k, m.ci(2)), m.ci(62))    # k mod 4 in {2, 3}: negative
    if name != "cos":                                # odd functions of x
        sign = b.xor(sign, b.and_(m.bits(x), m.ci(SIGN)))
    finite = m.cmp("<", m.call("fabs", x), m.c(float("inf")))   # false for NaN
    return m.sel(finite, m.from_bits(b.xor(val, sign)), m.sub(x, x))   # NaN: +-inf, NaN


def _branch(m, cond, make_slow, fast):
    """fast, or make_slow()'s value (emitted in a block of its own, run only
    where the i1 cond holds: rarely)."""
    b = m.b
    fast_bb = b.block
    slow_bb = b.append_basic_block("large")
    join_bb = b.append_basic_block("join")
    b.cbranch(cond, slow_bb, join_bb).set_weights([1, 1000])
    b.position_at_end(slow_bb)
    slow = make_slow()
    slow_end = b.block
    b.branch(join_bb)
    b.position_at_end(join_bb)
    out = []
    for f, sl in zip(fast, slow):
        phi = b.phi(f.type)
        phi.add_incoming(f, fast_bb)
        phi.add_incoming(sl, slow_end)
        out.append(phi)
    return out


def _body(m, x, name: str, bits: int, scalar_fn):
    """Emit the body of the sin, cos or tan function of the float64 x (holding
    float32 values where bits is 32) at m's builder: Cody-Waite on every lane;
    where some lane is at least the limit, a scalar's Payne-Hanek, and a
    vector's lanes by calls of the scalar function `scalar_fn` (this keeps
    the vector versions small)."""
    b = m.b
    reduce_small, limit, _, _ = _KINDS[bits]
    ax = m.call("fabs", x)
    ax = m.sel(m.cmp("<", ax, m.c(float("inf"))), ax, m.c(0.0))   # +-inf, NaN: 0
    reduced = reduce_small(m, ax)
    if m.lanes == 1:
        small = m.cmp("<", ax, m.c(limit))
        def payne_hanek():
            ph = _payne_hanek(m, ax)
            return [b.select(small, reduced[0], ph[0])] + \
                [m.sel(small, f, p) for f, p in zip(reduced[1:], ph[1:])]
        b.ret(_value(m, x, name, bits, _branch(m, b.not_(small), payne_hanek, reduced)))
        return
    # some lane at the limit: the largest |x| (as bits: ax >= 0, not NaN) compared,
    # no vector of i1 moved into a scalar (see jit._MASK_TO_SCALAR)
    red = declare(b.module, f"llvm.vector.reduce.umax.v{m.lanes}i64", ll.IntType(64), [m.it])
    top = b.call(red, [m.bits(ax)])
    any_big = b.icmp_unsigned(">=", top, ll.Constant(ll.IntType(64), bits_of(limit)))
    y = _value(m, x, name, bits, reduced)

    def by_lanes():
        out = y
        for lane in range(m.lanes):
            li = ll.Constant(ll.IntType(32), lane)
            out = b.insert_element(out, b.call(scalar_fn, [b.extract_element(x, li)]), li)
        return [out]
    b.ret(_branch(m, any_big, by_lanes, [y])[0])


def declare(mod, name, ret, args):
    """Declare (once) and return the function `name` of mod with return type
    `ret` and argument types `args` (codegen_ops.intrinsic, codegen_cvt)."""
    fn = mod.globals.get(name)
    if fn is None:
        fn = ll.Function(mod, ll.FunctionType(ret, list(args)), name=name)
    return fn


# The vector versions LLVM's loop vectorizer may call, by float type: float64 4 lanes
# on AVX2, 8 on AVX-512 (4 in its vectorized remainder loop), float32 (held in
# float64) 8 and 16. At other widths it calls the scalar function per lane.
VARIANT_LANES = {64: (4, 8), 32: (8, 16)}


def _function(mod, name: str, bits: int, lanes: int, make_f64, body=None):
    """The module's internal function pyhalide_<name>[f]_<f64|vNf64>, defined
    on first use (f: float32 values, in float64; <f32|vNf32> where make_f64
    makes float32 operations): not inlined (its Payne-Hanek
    block is rarely run, and a loop calling it stays a straight line for the
    vectorizer), no memory access but its constant table. `body(m, x)`, when
    given, is the value it returns (codegen_explog's exp and log) in place of
    sin, cos or tan's."""
    tag, elem = make_f64.tag, make_f64.elem          # f32: codegen_math._F32's body
    suffix = tag if lanes == 1 else f"v{lanes}{tag}"
    full = f"pyhalide_{name}{'f' if bits == 32 else ''}_{suffix}"
    fn = mod.globals.get(full)
    if fn is not None:
        return fn
    ft = elem if lanes == 1 else ll.VectorType(elem, lanes)
    scalar = None if lanes == 1 or body else _function(mod, name, bits, 1, make_f64)
    fn = ll.Function(mod, ll.FunctionType(ft, [ft]), name=full)
    fn.linkage = "internal"
    # a `body`'s vector versions are inlined where the loop vectorizer calls
    # them (jit._optimize runs the always-inliner after the pipeline)
    inline = "alwaysinline" if body and lanes > 1 else "noinline"
    for attr in (inline, "nounwind", "readnone"):
        fn.attributes.add(attr)
    set.add(fn.attributes, "willreturn")            # not in llvmlite's known set
    m = make_f64(ll.IRBuilder(fn.append_basic_block("entry")), lanes)
    if body is None:
        _body(m, fn.args[0], name, bits, scalar)
    else:
        m.b.ret(body(m, fn.args[0]))
    return fn


def call(m, x, name: str, bits: int, make_f64, body=None):
    """name(x) ("sin", "cos" or "tan") for a float64 scalar or vector x (holding
    float32 values if bits is 32: then within 2^-33 relative, to be rounded to
    float32), emitted at m's builder as a call. A scalar call names the vector
    versions (vector-function-abi-variant), so the loop vectorizer widens it
    into one call per vector. `body`: see _function."""
    b = m.b
    fn = _function(b.module, name, bits, m.lanes, make_f64, body)
    c = b.call(fn, [x])
    if m.lanes == 1:
        variants = ",".join(
            f"_ZGV_LLVM_N{n}v_{fn.name}({_function(b.module, name, bits, n, make_f64, body).name})"
            for n in VARIANT_LANES[bits])
        set.add(c.attributes, f'"vector-function-abi-variant"="{variants}"')
        for n in VARIANT_LANES[bits]:
            _keep(b.module, _function(b.module, name, bits, n, make_f64, body))
    return c


_DEFINE = re.compile(r'^define internal [^@]*@"?pyhalide_(?:sin|cos|tan|exp|log|log2|log10)f?_\w+"?\(.*\n(?:.*\n)*?\}$',
                     re.MULTILINE)


def library_lines(ir_text: str) -> int:
    """The number of lines of `ir_text` (a module's LLVM IR) in the functions
    defined here: straight-line code outside any loop, which the loop
    vectorizer's time does not depend on (jit._for_size leaves them out)."""
    return sum(m.group(0).count("\n") + 1 for m in _DEFINE.finditer(ir_text))


def _keep(mod, fn):
    """Add fn to @llvm.compiler.used: the vector versions have no caller before
    the loop vectorizer runs, and would be removed as dead."""
    g = mod.globals.get("llvm.compiler.used")
    ptr = ll.PointerType()
    if g is None:
        g = ll.GlobalVariable(mod, ll.ArrayType(ptr, 0), name="llvm.compiler.used")
        g.linkage = "appending"
        g.section = "llvm.metadata"
        g.initializer = ll.Constant(ll.ArrayType(ptr, 0), [])
    items = list(g.initializer.constant)
    if fn not in items:
        items.append(fn)
        g.value_type = ll.ArrayType(ptr, len(items))
        g.initializer = ll.Constant(g.value_type, items)
