"""LLVM instruction sequences for the IR's operators, with pyhalide's defined
semantics (DESIGN.md, "Semantics"); used by codegen_llvm.py.

Every function takes an llvmlite IRBuilder `b` and operand values, plus the
pyhalide `ir.Type` of the operands where the signedness or kind matters, and
works unchanged for scalars and vectors:

- integer arithmetic wraps (no nsw/nuw flags anywhere);
- integer Div/Mod are Euclidean (remainder in [0, |b|)), x/0 == x%0 == 0,
  INT_MIN / -1 wraps to INT_MIN: no division instruction ever sees a zero
  or -1 divisor, so nothing traps;
- float Div is IEEE, float Mod is a - b*floor(a/b);
- Min/Max are select(a < b, a, b) / select(a > b, a, b);
- shifts by an amount >= bits or negative give 0 (Shl, unsigned Shr) or the
  sign fill (signed Shr); the amount is masked so no poison is ever made;
- casts follow NumPy, except float -> int saturates and NaN -> 0
  (llvm.fpto[su]i.sat); any -> bool is != 0 (NaN -> true);
- no fast-math flags, except `reassoc` on vector reductions when asked.
"""
from __future__ import annotations

import struct

from llvmlite import ir as ll

from pyhalide import ir

from . import codegen_int_divide, codegen_int_power, codegen_math, codegen_trig
from .codegen_cvt import x86_float_to_int32

I1 = ll.IntType(1)
I8 = ll.IntType(8)
I32 = ll.IntType(32)
I64 = ll.IntType(64)
PTR = ll.PointerType()
F32 = ll.FloatType()
F64 = ll.DoubleType()
TRUE = ll.Constant(I1, 1)
FALSE = ll.Constant(I1, 0)


class CodegenError(RuntimeError):
    """An internal compiler error: the Stmt handed to codegen is malformed."""


# --------------------------------------------------------------------------
# Types and constants
# --------------------------------------------------------------------------
def scalar_llvm_type(t: ir.Type, memory: bool = False):
    """The LLVM type of one lane; bools are i1 in registers, i8 in memory."""
    if t.is_bool():
        return I8 if memory else I1
    if t.is_float():
        return F32 if t.bits == 32 else F64
    return ll.IntType(t.bits)


# Made once per (type, memory) and per constant (see _remembered): llvmlite
# caches the text of each type and constant object in the object, so a new
# object per use printed `<16 x i32> <i32 0, i32 1, ...>` anew each time (a
# twentieth of interpolate's IR emission). Types and constants belong to no
# module (codegen_text leaves them intact), so every module shares them.
_TYPES: dict = {}
_CONSTANTS: dict = {}
_MAX_CONSTANTS = 1 << 14


def llvm_type(t: ir.Type, memory: bool = False):
    key = (t, memory)
    lt = _TYPES.get(key)
    if lt is None:
        s = scalar_llvm_type(t, memory)
        lt = _TYPES[key] = s if t.lanes == 1 else ll.VectorType(s, t.lanes)
    return lt


def _remembered(key, make):
    """The constant made by make() for `key` the first time (keys name the
    value exactly: floats by their bits, so -0.0 is not 0.0)."""
    c = _CONSTANTS.get(key)
    if c is None:
        if len(_CONSTANTS) >= _MAX_CONSTANTS:
            _CONSTANTS.clear()
        c = _CONSTANTS[key] = make()
    return c


def mangle(t) -> str:
    """The suffix LLVM uses for overloaded intrinsics: i32, f64, v8f32, v4p0."""
    if isinstance(t, ll.VectorType):
        return f"v{t.count}{mangle(t.element)}"
    if isinstance(t, ll.PointerType):
        return "p0"
    return t.intrinsic_name


def const_scalar(t: ir.Type, value):
    """An LLVM constant of the scalar type t (integers given in any wrap)."""
    if t.is_float():
        value = float(value)
        return _remembered((t, struct.pack("<d", value)),
                           lambda: ll.Constant(scalar_llvm_type(t), value))
    if t.is_bool():
        return TRUE if value else FALSE
    v = int(value) & ((1 << t.bits) - 1)
    if v >> (t.bits - 1):
        v -= 1 << t.bits
    return _remembered((t, v), lambda: ll.Constant(scalar_llvm_type(t), v))


def const(t: ir.Type, value):
    """A scalar constant, or a splat vector constant when t has lanes."""
    c = const_scalar(t.element_of(), value)
    if t.lanes == 1:
        return c
    return _remembered(("splat", t, c), lambda: ll.Constant(llvm_type(t), [c] * t.lanes))


def vector_const(t: ir.Type, values):
    """The vector constant of type t with these lane values."""
    et = t.element_of()
    lanes = tuple(const_scalar(et, v) for v in values)
    return _remembered(("lanes", t, lanes), lambda: ll.Constant(llvm_type(t), list(lanes)))


def index_vector(indices):
    """The <n x i32> constant of `indices` (a shuffle's mask)."""
    indices = tuple(int(i) for i in indices)
    return _remembered(("indices", indices),
                       lambda: ll.Constant(ll.VectorType(I32, len(indices)), list(indices)))


# Declare (once) and return the function `name` of the given type:
# intrinsic(module, name, ret, args)
intrinsic = codegen_trig.declare


def splat(b: ll.IRBuilder, value, lanes: int):
    """Broadcast a scalar LLVM value to `lanes` lanes."""
    vt = ll.VectorType(value.type, lanes)
    v = b.insert_element(ll.Constant(vt, ll.Undefined), value, ll.Constant(I32, 0))
    return b.shuffle_vector(v, ll.Constant(vt, ll.Undefined), index_vector([0] * lanes))


def shuffle(b: ll.IRBuilder, v, indices):
    """Lanes `indices` of v (a vector), as a new vector."""
    return b.shuffle_vector(v, ll.Constant(v.type, ll.Undefined), index_vector(indices))


# --------------------------------------------------------------------------
# Casts
# --------------------------------------------------------------------------
def cast(b: ll.IRBuilder, v, src: ir.Type, dst: ir.Type):
    """Convert v from src to dst (same lanes) with NumPy-like semantics and
    saturating float -> int conversion."""
    if src.element_of() == dst.element_of():
        return v
    dt = llvm_type(dst)
    if dst.is_bool():
        if src.is_float():
            return b.fcmp_unordered("!=", v, const(src, 0.0))
        return b.icmp_unsigned("!=", v, const(src, 0))
    if src.is_bool():
        return b.uitofp(v, dt) if dst.is_float() else b.zext(v, dt)
    if src.is_float() and dst.is_float():
        return b.fpext(v, dt) if dst.bits > src.bits else b.fptrunc(v, dt)
    if dst.is_float():
        return b.sitofp(v, dt) if src.is_int() else b.uitofp(v, dt)
    if src.is_float():
        if src.lanes > 1 and src.bits == 32 and dst.is_int() and dst.bits == 32:
            r = x86_float_to_int32(b, v)
            if r is not None:
                return r
        if src.lanes > 1:
            return _float_to_int_vector(b, v, src, dst)
        op = "llvm.fptosi.sat" if dst.is_int() else "llvm.fptoui.sat"
        fn = intrinsic(b.module, f"{op}.{mangle(dt)}.{mangle(v.type)}", dt, [v.type])
        return b.call(fn, [v])
    # integer -> integer
    if dst.bits == src.bits:
        return v
    if dst.bits < src.bits:
        return b.trunc(v, dt)
    return b.sext(v, dt) if src.is_int() else b.zext(v, dt)


def _float_to_int_vector(b: ll.IRBuilder, v, src: ir.Type, dst: ir.Type):
    """The vector form of llvm.fpto[su]i.sat (which LLVM's x86 backend
    expands one lane at a time), with the same results: v is clamped to
    [lo, the largest float below hi] (NaN to lo) so the plain conversion is
    in range, then lanes at or above hi become the maximum and NaN lanes 0."""
    import numpy as np
    ft = np.float32 if src.bits == 32 else np.float64
    signed = dst.is_int()
    lo = -(1 << (dst.bits - 1)) if signed else 0
    hi = (1 << (dst.bits - 1)) if signed else (1 << dst.bits)
    below_hi = float(np.nextafter(ft(hi), ft(0)))
    c_lo, c_hi, c_below = const(src, float(lo)), const(src, float(hi)), const(src, below_hi)
    clamped = b.select(b.fcmp_ordered(">=", v, c_lo), v, c_lo)
    clamped = b.select(b.fcmp_ordered("<", clamped, c_hi), clamped, c_below)
    dt = llvm_type(dst)
    r = b.fptosi(clamped, dt) if signed else b.fptoui(clamped, dt)
    r = b.select(b.fcmp_ordered(">=", v, c_hi), const(dst, hi - 1), r)
    return b.select(b.fcmp_unordered("uno", v, v), const(dst, 0), r)


# --------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------
def add(b, x, y, t: ir.Type):
    return b.fadd(x, y) if t.is_float() else b.add(x, y)


def sub(b, x, y, t: ir.Type):
    return b.fsub(x, y) if t.is_float() else b.sub(x, y)


def mul(b, x, y, t: ir.Type):
    return b.fmul(x, y) if t.is_float() else b.mul(x, y)


def mul_hi(b, x, y, t: ir.Type):
    """The high half of the unsigned double-width product x * y (t: an
    unsigned type): lowering/invariant_division.py's multiply-high. A 64-bit
    vector multiplies 32-bit halves (vpmuludq; a 128-bit vector multiply
    would be one scalar `mulx` per lane, moved in and out of the vector)."""
    if t.bits == 64 and t.lanes > 1:
        return _mul_hi_halves(b, x, y, t)
    wide = ll.IntType(2 * t.bits)
    shift = ll.Constant(wide, t.bits)
    if t.lanes > 1:
        wide = ll.VectorType(wide, t.lanes)
        shift = ll.Constant(wide, [shift] * t.lanes)
    p = b.mul(b.zext(x, wide), b.zext(y, wide))
    return b.trunc(b.lshr(p, shift), x.type)


def _mul_hi_halves(b, x, y, t: ir.Type):
    low = const(t, 0xFFFFFFFF)
    half = const(t, 32)
    x0, x1 = b.and_(x, low), b.lshr(x, half)
    y0, y1 = b.and_(y, low), b.lshr(y, half)
    p00, p01 = b.mul(x0, y0), b.mul(x0, y1)
    p10, p11 = b.mul(x1, y0), b.mul(x1, y1)
    mid = b.add(b.add(b.lshr(p00, half), b.and_(p01, low)), b.and_(p10, low))
    hi = b.add(b.add(p11, b.lshr(p01, half)), b.lshr(p10, half))
    return b.add(hi, b.lshr(mid, half))


def _power_of_two(c) -> int | None:
    if isinstance(c, bool) or not isinstance(c, int) or c <= 0 or c & (c - 1):
        return None
    return c.bit_length() - 1


def div(b, x, y, t: ir.Type, y_const=None):
    """x / y. `y_const` is the divisor's Python value when it is a constant
    (the same in every lane), which selects a cheaper exact sequence."""
    if t.is_float():
        return b.fdiv(x, y)
    if y_const is not None:
        if y_const == 0:
            return const(t, 0)
        k = _power_of_two(y_const)
        if k is not None:
            if k == 0:
                return x
            return b.ashr(x, const(t, k)) if t.is_int() else b.lshr(x, const(t, k))
        if not t.is_int():
            return b.udiv(x, y)
        if y_const != -1:
            return _sdivmod_const(b, x, t, y_const, want_div=True)
    if not t.is_int():
        return _udivmod(b, x, y, t, want_div=True)
    return _sdivmod(b, x, y, t, want_div=True)


def mod(b, x, y, t: ir.Type, y_const=None):
    """x % y (Euclidean for integers, a - b*floor(a/b) for floats)."""
    if t.is_float():
        q = floor_(b, b.fdiv(x, y), t)
        return b.fsub(x, b.fmul(y, q))
    if y_const is not None:
        if y_const == 0:
            return const(t, 0)
        k = _power_of_two(y_const)
        if k is not None:
            return b.and_(x, const(t, (1 << k) - 1))
        if not t.is_int():
            return b.urem(x, y)
        if y_const != -1:
            return _sdivmod_const(b, x, t, y_const, want_div=False)
    if not t.is_int():
        return _udivmod(b, x, y, t, want_div=False)
    return _sdivmod(b, x, y, t, want_div=False)


def _udivmod(b, x, y, t, want_div):
    zero = const(t, 0)
    is_zero = b.icmp_unsigned("==", y, zero)
    safe = b.select(is_zero, const(t, 1), y)
    r = b.udiv(x, safe) if want_div else b.urem(x, safe)
    return b.select(is_zero, zero, r)


def _sdivmod_const(b, x, t, c: int, want_div):
    """Euclidean x / c or x % c for a constant c other than 0 and -1 (so no
    guard): C's truncating result, moved by one step where the remainder
    is negative."""
    zero = const(t, 0)
    r = b.srem(x, const(t, c))
    r_neg = b.icmp_signed("<", r, zero)
    if want_div:
        q = b.sdiv(x, const(t, c))
        return b.add(q, b.select(r_neg, const(t, -1 if c > 0 else 1), zero))
    return b.select(r_neg, b.add(r, const(t, abs(c))), r)


def _sdivmod(b, x, y, t, want_div):
    """Euclidean signed division (Halide's definition): a == q*b + r with
    0 <= r < |b|; b == 0 gives 0 and 0; b == -1 gives -a (wrapping) and 0."""
    zero = const(t, 0)
    is_zero = b.icmp_signed("==", y, zero)
    is_m1 = b.icmp_signed("==", y, const(t, -1))
    bad = b.or_(is_zero, is_m1)
    safe = b.select(bad, const(t, 1), y)
    r = b.srem(x, safe)
    r_neg = b.icmp_signed("<", r, zero)
    y_pos = b.icmp_signed(">", y, zero)
    if want_div:
        q = b.sdiv(x, safe)
        adj = b.select(r_neg, b.select(y_pos, const(t, -1), const(t, 1)), zero)
        q = b.add(q, adj)
        q = b.select(is_m1, b.sub(zero, x), q)
        return b.select(is_zero, zero, q)
    abs_y = b.select(y_pos, y, b.sub(zero, y))
    r = b.select(r_neg, b.add(r, abs_y), r)
    return b.select(bad, zero, r)


def minimum(b, x, y, t: ir.Type):
    if t.is_float():
        return b.select(b.fcmp_ordered("<", x, y), x, y)
    cmp = b.icmp_signed if t.is_int() else b.icmp_unsigned
    return b.select(cmp("<", x, y), x, y)


def maximum(b, x, y, t: ir.Type):
    if t.is_float():
        return b.select(b.fcmp_ordered(">", x, y), x, y)
    cmp = b.icmp_signed if t.is_int() else b.icmp_unsigned
    return b.select(cmp(">", x, y), x, y)


_CMP = {"EQ": "==", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">="}


def compare(b, kind: str, x, y, t: ir.Type):
    """kind is the node class name (EQ, NE, LT, LE, GT, GE). Float compares
    are ordered (false on NaN) except NE, which is true on NaN."""
    op = _CMP[kind]
    if t.is_float():
        if kind == "NE":
            return b.fcmp_unordered(op, x, y)
        return b.fcmp_ordered(op, x, y)
    if t.is_int():
        return b.icmp_signed(op, x, y)
    return b.icmp_unsigned(op, x, y)


def _require_integer(t: ir.Type, what: str):
    if t.is_float():
        raise CodegenError(f"{what} of a float type {t}")


def bit_and(b, x, y, t):
    _require_integer(t, "bitwise and")
    return b.and_(x, y)


def bit_or(b, x, y, t):
    _require_integer(t, "bitwise or")
    return b.or_(x, y)


def bit_xor(b, x, y, t):
    _require_integer(t, "bitwise xor")
    return b.xor(x, y)


def bit_not(b, x, t):
    _require_integer(t, "bitwise not")
    return b.xor(x, const(t, -1))


def shl(b, x, y, t: ir.Type):
    _require_integer(t, "shift")
    in_range = b.icmp_unsigned("<", y, const(t, t.bits))
    shifted = b.shl(x, b.and_(y, const(t, t.bits - 1)))
    return b.select(in_range, shifted, const(t, 0))


def shr(b, x, y, t: ir.Type):
    _require_integer(t, "shift")
    in_range = b.icmp_unsigned("<", y, const(t, t.bits))
    if t.is_int():
        amount = b.select(in_range, y, const(t, t.bits - 1))
        return b.ashr(x, amount)
    shifted = b.lshr(x, b.and_(y, const(t, t.bits - 1)))
    return b.select(in_range, shifted, const(t, 0))


# --------------------------------------------------------------------------
# Math intrinsics
# --------------------------------------------------------------------------
def _float_intrinsic(b, name, args):
    ty = args[0].type
    fn = intrinsic(b.module, f"llvm.{name}.{mangle(ty)}", ty, [a.type for a in args])
    return b.call(fn, list(args))


def _libm_call(b, name, x, t: ir.Type):
    """C's float function `name` (the f-suffixed one for float32) on each lane of x."""
    if not t.is_float():
        raise CodegenError(f"intrinsic {name} must return a float type, not {t}")
    scalar = x.type.element if isinstance(x.type, ll.VectorType) else x.type
    fn = intrinsic(b.module, name + ("f" if t.bits == 32 else ""), scalar, [scalar])
    if not isinstance(x.type, ll.VectorType):
        return b.call(fn, [x])
    out = ll.Constant(x.type, ll.Undefined)
    for i in range(x.type.count):
        lane = ll.Constant(I32, i)
        out = b.insert_element(out, b.call(fn, [b.extract_element(x, lane)]), lane)
    return out


def _widened(b, name, x):
    """Float32 `name` computed in float64 and rounded once: glibc's tanhf, sinhf
    and coshf are up to 2 ulp off, the rounded float64 results within 1."""
    wide = ll.DoubleType() if not isinstance(x.type, ll.VectorType) else \
        ll.VectorType(ll.DoubleType(), x.type.count)
    return b.fptrunc(_float_intrinsic(b, name, [b.fpext(x, wide)]), x.type)


def _newton_cbrt(b, x, t: ir.Type):
    """float64 cbrt: C's cbrt (up to ~3 ulp off in glibc) and one Newton step
    y - (y^3 - x) / (3 y^2) whose residual y^3 - x is computed with the exact
    error of y*y (fma), so the step leaves the result within 1 ulp. |x| < 2^-900
    is scaled by 2^300 first (its root by 2^-100 after: both exact) so that the
    residual does not underflow; zeros, infinities and NaN keep C's value."""
    ax = _float_intrinsic(b, "fabs", [x])
    tiny = b.fcmp_ordered("<", ax, const(t, 2.0 ** -900))
    xs = b.select(tiny, b.fmul(x, const(t, 2.0 ** 300)), x)
    y = _libm_call(b, "cbrt", xs, t)
    y2 = b.fmul(y, y)
    e2 = _float_intrinsic(b, "fma", [y, y, b.fneg(y2)])
    residual = b.fadd(_float_intrinsic(b, "fma", [y2, y, b.fneg(xs)]), b.fmul(e2, y))
    refined = b.fsub(y, b.fdiv(residual, b.fmul(const(t, 3.0), y2)))
    axs = _float_intrinsic(b, "fabs", [xs])
    usable = b.and_(b.fcmp_ordered(">", axs, const(t, 0.0)),
                    b.fcmp_ordered("<", axs, const(t, float("inf"))))
    root = b.select(usable, refined, y)
    return b.select(tiny, b.fmul(root, const(t, 2.0 ** -100)), root)


def floor_(b, x, t):
    return _float_intrinsic(b, "floor", [x])


_UNARY_FLOAT = {"sqrt": "sqrt", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos",
                "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
                "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "floor": "floor",
                "ceil": "ceil", "round": "roundeven", "trunc": "trunc", "exp2": "exp2"}
_BINARY_FLOAT = {"pow": "pow", "atan2": "atan2", "copysign": "copysign", "fmod": "fmod"}
_TERNARY_FLOAT = {"fma": "fma"}         # fma(a, b, c): a * b + c rounded once
_WIDENED_FLOAT32 = {"tanh", "sinh", "cosh"}
_LIBM_UNARY = {"cbrt"}       # C's functions without an LLVM intrinsic (cbrt/cbrtf, per lane)
# C's float64 functions (per lane) for every float type, narrower results
# rounded once from the float64 value (Halide's asinh_f32 etc. call C's)
_LIBM_WIDENED = {"asinh", "acosh", "atanh"}
INTRINSICS = frozenset(_UNARY_FLOAT) | frozenset(_BINARY_FLOAT) | frozenset(_TERNARY_FLOAT) | \
    frozenset(_LIBM_UNARY) | frozenset(_LIBM_WIDENED) | codegen_math.FUNCTIONS | {
    "abs", "is_nan", "is_inf", "is_finite", "likely", "loop_invariant", "mul_hi", "int_true_divide",
    "int_power", "int_power_checked", "int_power_fits", "reinterpret"}


def call_intrinsic(b, name: str, args, arg_types, result_type: ir.Type):
    """Emit intrinsic `name` on LLVM values `args` (of pyhalide types
    `arg_types`) producing `result_type`."""
    if name in codegen_math.FUNCTIONS:          # inline, vectorizable: no libm call
        if len(args) != 1 or not result_type.is_float():
            raise CodegenError(f"intrinsic {name} takes 1 argument and returns a float")
        t = result_type.with_lanes(arg_types[0].lanes)
        return codegen_math.emit(b, name, cast(b, args[0], arg_types[0], t), t)
    if name in _UNARY_FLOAT or name in _BINARY_FLOAT or name in _TERNARY_FLOAT:
        want = 1 if name in _UNARY_FLOAT else 2 if name in _BINARY_FLOAT else 3
        if len(args) != want:
            raise CodegenError(f"intrinsic {name} takes {want} argument(s), got {len(args)}")
        if not result_type.is_float():
            raise CodegenError(f"intrinsic {name} must return a float type, not {result_type}")
        vals = [cast(b, a, t, result_type.with_lanes(t.lanes)) for a, t in zip(args, arg_types)]
        if name == "fmod":              # C fmod: LLVM's frem
            return b.frem(vals[0], vals[1])
        llname = _UNARY_FLOAT.get(name) or _BINARY_FLOAT.get(name) or _TERNARY_FLOAT[name]
        if name in _WIDENED_FLOAT32 and result_type.bits == 32:
            return _widened(b, llname, vals[0])
        return _float_intrinsic(b, llname, vals)
    if name == "mul_hi" and len(args) == 2 and arg_types[0].is_uint():
        return mul_hi(b, args[0], args[1], arg_types[0])
    if name == "int_true_divide":           # Python's int / int, rounded once
        return codegen_int_divide.true_divide(b, args[0], args[1])
    if name == "int_power":                 # NumPy's wrapping integer power (x, e of one type)
        if len(args) != 2 or not (result_type.is_int() or result_type.is_uint()):
            raise CodegenError("intrinsic int_power takes 2 integer arguments")
        return codegen_int_power.int_power(b, args[0], args[1])
    if name in ("int_power_checked", "int_power_fits"):    # Python's int power in int64
        if len(args) != 2 or arg_types[0].element_of() != ir.Int(64) or \
                arg_types[1].element_of() != ir.Int(64):
            raise CodegenError(f"intrinsic {name} takes 2 int64 arguments")
        return codegen_int_power.checked_power(b, args[0], args[1],
                                               0 if name == "int_power_checked" else 1)
    if name == "reinterpret":               # the same bits read as another type of that width
        return b.bitcast(args[0], llvm_type(result_type.with_lanes(arg_types[0].lanes)))
    if len(args) != 1:
        raise CodegenError(f"intrinsic {name} takes 1 argument, got {len(args)}")
    x, t = args[0], arg_types[0]
    if name == "cbrt" and result_type.is_float() and result_type.bits == 64:
        return _newton_cbrt(b, cast(b, x, t, result_type), result_type)
    if name in _LIBM_UNARY:
        return _libm_call(b, name, cast(b, x, t, result_type), result_type)
    if name in _LIBM_WIDENED and result_type.is_float():
        wide = ir.Float(64, t.lanes)
        y = _libm_call(b, name, cast(b, x, t, wide), wide)
        return cast(b, y, wide, result_type.with_lanes(t.lanes))
    if name in ("likely", "loop_invariant"):
        return x
    if name == "abs":
        if t.is_float():
            return _float_intrinsic(b, "fabs", [x])
        if t.is_int():
            neg = b.icmp_signed("<", x, const(t, 0))
            return b.select(neg, b.sub(const(t, 0), x), x)
        return x
    if name in ("is_nan", "is_inf", "is_finite"):
        lanes = t.lanes
        if not t.is_float():
            return const(ir.Bool(lanes), name == "is_finite")
        if name == "is_nan":
            return b.fcmp_unordered("uno", x, x)
        ax = _float_intrinsic(b, "fabs", [x])
        inf = const(t, float("inf"))
        if name == "is_inf":
            return b.fcmp_ordered("==", ax, inf)
        return b.fcmp_ordered("!=", ax, inf)
    raise CodegenError(f"unknown intrinsic {name!r}; known: {', '.join(sorted(INTRINSICS))}")


# --------------------------------------------------------------------------
# Vector reductions
# --------------------------------------------------------------------------
_REDUCE_OPS = ("add", "mul", "min", "max", "and", "or")


def combine(b, op: str, x, y, t: ir.Type, flags=()):
    """x op y for one of the VectorReduce ops."""
    if op == "add":
        return b.fadd(x, y, flags=flags) if t.is_float() else b.add(x, y)
    if op == "mul":
        return b.fmul(x, y, flags=flags) if t.is_float() else b.mul(x, y)
    if op == "min":
        return minimum(b, x, y, t)
    if op == "max":
        return maximum(b, x, y, t)
    if op == "and":
        return b.and_(x, y) if not t.is_float() else _bad_reduce(op, t)
    if op == "or":
        return b.or_(x, y) if not t.is_float() else _bad_reduce(op, t)
    raise CodegenError(f"unknown VectorReduce op {op!r}; known: {', '.join(_REDUCE_OPS)}")


def _bad_reduce(op, t):
    raise CodegenError(f"VectorReduce {op} of a float type {t}")


def vector_reduce(b, op: str, v, t: ir.Type, out_lanes: int, reassoc: bool):
    """Reduce the lanes of v (pyhalide type t) to `out_lanes` lanes: output
    lane j combines input lanes j*f .. j*f+f-1 (f = lanes / out_lanes) in
    increasing lane order, so the result equals the serial loop's. With
    `reassoc`, floats may be combined in any order (a tree)."""
    n = t.lanes
    if out_lanes < 1 or n % out_lanes:
        raise CodegenError(f"VectorReduce of {n} lanes to {out_lanes} lanes")
    if op not in _REDUCE_OPS:
        raise CodegenError(f"unknown VectorReduce op {op!r}; known: {', '.join(_REDUCE_OPS)}")
    f = n // out_lanes
    if f == 1:
        return v
    et = t.element_of()
    flags = ("reassoc",) if reassoc else ()
    if out_lanes == 1:
        if not et.is_float() and not (et.is_bool() and op in ("add", "mul")):
            name = {"min": "smin" if et.is_int() else "umin",
                    "max": "smax" if et.is_int() else "umax"}.get(op, op)
            fn = intrinsic(b.module, f"llvm.vector.reduce.{name}.{mangle(v.type)}",
                           v.type.element, [v.type])
            return b.call(fn, [v])
        if et.is_float() and op in ("add", "mul"):
            ety = v.type.element
            fn = intrinsic(b.module, f"llvm.vector.reduce.f{op}.{mangle(v.type)}",
                           ety, [ety, v.type])
            start = const(et, -0.0 if op == "add" else 1.0)
            return b.call(fn, [start, v], fastmath=flags)
        if reassoc:
            # Halving tree of elementwise ops (min/max of floats).
            cur, width = v, n
            while width > 1 and width % 2 == 0:
                half = width // 2
                lo = shuffle(b, cur, range(half))
                hi = shuffle(b, cur, range(half, width))
                cur = combine(b, op, lo, hi, et.with_lanes(half))
                width = half
            if width == 1:
                return b.extract_element(cur, ll.Constant(I32, 0))
            v, n, f = cur, width, width
    # Ordered: fold the f slices lane-group by lane-group.
    if out_lanes == 1:
        acc = b.extract_element(v, ll.Constant(I32, 0))
        for k in range(1, f):
            acc = combine(b, op, acc, b.extract_element(v, ll.Constant(I32, k)), et, flags)
        return acc
    ot = et.with_lanes(out_lanes)
    acc = shuffle(b, v, [j * f for j in range(out_lanes)])
    for k in range(1, f):
        acc = combine(b, op, acc, shuffle(b, v, [j * f + k for j in range(out_lanes)]),
                      ot, flags)
    return acc


# --------------------------------------------------------------------------
# Software prefetch of streamed reads
# --------------------------------------------------------------------------
# How far ahead of a streamed vector load its data is prefetched, in bytes.
# The hardware prefetchers follow a stream only within a 4 KiB page and ramp
# up again on each new page; on the 2-core AVX-512 machine of the benchmarks,
# prefetching 4 KiB ahead made the memory-bound rfactor reductions 5-50%
# faster (2 KiB to 8 KiB did about as well; none of them hurt), while loops
# that also store a stream (the image pipelines) gained nothing.
PREFETCH_BYTES = 4096

# The cache line size of the x86 and ARM cores pyhalide targets, in bytes.
CACHE_LINE = 64

# CPUs (LLVM CPU name prefixes) whose hardware prefetchers keep up with a
# stream that a loop does little with, and the vector operations per streamed
# vector load a loop needs before software prefetch pays there. On AMD Zen 3
# (2-core EPYC VM, docs/performance.md "Wide vectors and large chunks"), the
# max and dot reductions (one operation per streamed vector) ran 15% slower
# with prefetches than without (one thread; more on two), complex_mul and
# kitchen_sink (3 and ~15 operations) 4% and 17% faster with them.
_MIN_WORK_PER_STREAM = {"znver": 2}


def min_work_per_stream(cpu: str) -> int:
    """The vector operations per streamed vector load a loop needs before
    its streams are prefetched on CPU `cpu` (0: always)."""
    return next((n for prefix, n in _MIN_WORK_PER_STREAM.items() if cpu.startswith(prefix)),
                0)


def streaming_loop(name: str, body: ir.Stmt, memo: dict | None = None) -> bool:
    """Whether the loop `name` over `body` only reads streams: no store in
    it lands at a place that moves with the loop (a store whose index
    depends on `name`, or on a let or loop variable that does). Such a loop
    reduces what it reads into a few fixed places, so its time is the time
    of its loads. Linear in the size of `body`, shared subexpressions
    included. `memo`, a dict the caller keeps across calls (also given to
    _streamed_loads, scalar_fold, one_line_stream, Loop), holds the names
    below each expression and each loop's answer: a loop nest is then
    walked once per loop, its expressions once in all."""
    key = ("streaming_loop", name, id(body))
    hit = memo.get(key) if memo is not None else None
    if hit is not None and hit[0] is body:
        return hit[1]
    v = _MovingStores(name, memo)
    v.visit(body)
    if memo is not None:
        memo[key] = (body, not v.found)
    return not v.found


class _MovingStores(ir.Visitor):
    """streaming_loop's walk: `found` gets the stores whose index moves
    with the loop; `moving` holds the names that move with it."""

    def __init__(self, name: str, memo: dict | None = None):
        super().__init__()
        self.moving = {name}
        self.names_memo: dict = {} if memo is None else memo
        self.found: list = []

    def visit(self, n):
        if not isinstance(n, ir.Expr):      # no store inside an expression
            super().visit(n)

    def visit_LetStmt(self, s):
        if ir.mentioned_names(s.value, self.names_memo) & self.moving:
            self.moving.add(s.name)
        self.visit(s.body)

    def visit_For(self, s):
        self.moving.add(s.name)
        self.visit(s.body)

    def visit_Store(self, s):
        if ir.mentioned_names(s.index, self.names_memo) & self.moving:
            self.found.append(s)


# Vector nodes that are not work: operands, addresses and lane plumbing.
_NOT_WORK = (ir.Load, ir.Ramp, ir.Broadcast, ir.Variable, ir.Const, ir.Let)


def _streamed_loads(name: str, body: ir.Stmt, memo: dict | None = None) -> tuple:
    """(the vector loads in `body` whose index moves with the loop `name`,
    loads of one buffer at equal indices once; the vector operations in
    `body`, each node object once)."""
    v = _StreamedLoads(name, memo)
    v.visit(body)
    return v.loads, v.work


class _StreamedLoads(ir.Visitor):
    """_streamed_loads' walk: `loads` the moving vector loads, `work` the
    vector operations counted."""

    def __init__(self, name: str, memo: dict | None = None):
        super().__init__()
        self.moving = {name}
        self.names_memo: dict = {} if memo is None else memo
        self.loads: list = []
        self.work = 0

    def visit(self, n):
        if isinstance(n, ir.Expr) and id(n) not in self.seen and n.type.lanes > 1 \
                and not isinstance(n, _NOT_WORK):
            self.work += 1
        super().visit(n)

    def visit_LetStmt(self, s):
        if ir.mentioned_names(s.value, self.names_memo) & self.moving:
            self.moving.add(s.name)
        self.visit_children(s)

    visit_Let = visit_LetStmt

    def visit_For(self, s):
        self.moving.add(s.name)
        self.visit_children(s)

    def visit_Load(self, e):
        if e.type.lanes > 1 and ir.mentioned_names(e.index, self.names_memo) & self.moving \
                and not any(e.name == o.name and ir.equal(e.index, o.index) for o in self.loads):
            self.loads.append(e)
        self.visit_children(e)


def work_per_stream(name: str, body: ir.Stmt, memo: dict | None = None) -> float:
    """Vector operations in `body` per vector load whose index moves with
    the loop `name` (inf when no load moves). Each node object counts once,
    and loads of one buffer at equal indices once."""
    loads, work = _streamed_loads(name, body, memo)
    return work / len(loads) if loads else float("inf")


def one_line_stream(name: str, body: ir.Stmt, memo: dict | None = None) -> bool:
    """Whether the loop `name` over `body` folds one stream of integer
    vectors, one cache line each, into its accumulator with one vector
    operation per load (an integer max or sum 16 int32 lanes wide). LLVM
    unrolls such a loop 8x (eight loads into one chain of latency-1
    operations); on the AVX-512 host of session 13 the unrolled loop ran
    10-15% slower than the loop as written (Halide's, not unrolled: 1 thread,
    2^24 int32 from memory), where at 8 and 32 lanes unrolling changed
    nothing and at 64 lanes it gained 12% (docs/performance.md, "Session 13:
    max at one zmm register")."""
    if not streaming_loop(name, body, memo):
        return False
    loads, work = _streamed_loads(name, body, memo)
    if len(loads) != 1 or work > 1:
        return False
    t = loads[0].type
    return not (t.is_float() or t.is_bool()) and t.lanes * t.bytes() == CACHE_LINE


class Loop:
    """A serial loop being emitted: `streams(base)` says whether a dense
    vector load at `base`, directly inside it, is a stream this loop only
    reads (its base moves with the loop variable, and the loop is a
    streaming_loop with at least `min_work` vector operations per streamed
    load, decided on first use)."""

    __slots__ = ("name", "body", "min_work", "memo", "_streaming", "_prefetched", "extent",
                 "rolled")

    def __init__(self, name: str, body: ir.Stmt, min_work: int = 0, memo: dict | None = None,
                 extent: int | None = None, rolled: bool = False):
        self.name, self.body, self.min_work, self._streaming = name, body, min_work, None
        self.memo = memo
        self.extent = extent             # the trip count when a constant, else None
        self.rolled = rolled             # LLVM does not unroll it (plain, or a fold)
        self._prefetched: list = []      # (buffer pointer, load base) prefetched so far

    def streams(self, base: ir.Expr) -> bool:
        if self._streaming is None:
            self._streaming = streaming_loop(self.name, self.body, self.memo) and (
                not self.min_work or
                work_per_stream(self.name, self.body, self.memo) >= self.min_work)
        return self._streaming and self.name in ir.free_vars(base)

    def first_prefetch(self, ptr, base: ir.Expr) -> bool:
        """Whether no load of this body prefetched `base` of buffer `ptr`
        yet (a value and its comparison often load the same vector twice;
        LLVM merges the loads but not the prefetches); records it."""
        if any(p is ptr and ir.equal(b, base) for p, b in self._prefetched):
            return False
        self._prefetched.append((ptr, base))
        return True


def scalar_fold(name: str, body: ir.Stmt, memo: dict | None = None) -> bool:
    """Whether the loop `name` over `body` is an innermost scalar loop that
    folds what it reads into fixed places through a chain LLVM does not
    vectorize: a float accumulator (no reassociation), or several
    accumulators (a complex product, a tuple reduction). Its time is the
    latency chain through its accumulators, which unrolling cannot
    shorten; on the AVX-512 host of session 17, LLVM's 4x unrolled
    complex_mul ran 1.33x and dot 1.15x the CPU time of the loop as
    written (Halide leaves both as written). A single integer accumulator
    is left to LLVM, which vectorizes it (max), and so are a short constant
    loop, which it unrolls fully, and a loop choosing between values (a
    select or branch: an argmin, whose unrolled form ran 2x faster in
    argmin4d's rows of symbolic length)."""
    v = _ScalarStores()
    v.visit(body)
    stores = v.stores
    if not v.scalar or not stores or not streaming_loop(name, body, memo):
        return False
    return len(stores) > 1 or stores[0].value.type.is_float()


# integer accumulators from which a scalar fold is left unrolled by LLVM (crowded_fold)
CROWDED = 7


def crowded_fold(name: str, body: ir.Stmt, memo: dict | None = None) -> bool:
    """Whether the loop `name` over `body` is an innermost scalar loop that
    stores into at least CROWDED distinct integer places that do not move
    with the loop (its accumulators), through selects or branches or not:
    its integer accumulators fill the register file, which LLVM's runtime
    unrolling makes spill. x86-64 has 15 general registers for a loop; a
    loop folding a stream into k integer accumulators needs k of them plus
    its index, the stream's base pointer and a few temporaries, and 4x
    runtime unrolling of a loop of symbolic extent adds the trip count and
    the remainder's count. At 8 accumulators (suite 1's kitchen_sink) the
    base pointer was reloaded from the stack twice per unrolled iteration
    and the trip count compared in memory: the `@pipeline` loop (extent
    `a.extent.0`) ran 1.13-1.16x the CPU time of the Func API's (a constant
    extent: no trip count, no remainder). Left as written, both run the same
    code at the Func API's unrolled speed (session 21, AMD EPYC znver5, 2^22
    elements: 4.63 ms both; unrolled 5.21-5.44 ms vs 4.62 ms). The selects
    or branches of an argmin are walked into (scalar_fold stops at them): a
    loop with few accumulators (argmin4d's five) stays unrolled."""
    v = _ScalarStores(through_choices=True)
    v.visit(body)
    names = {st.name for st in v.stores if not st.value.type.is_float()}
    if not v.scalar or len(names) < CROWDED:
        return False
    return streaming_loop(name, body, memo)


def choosing_fold(name: str, body: ir.Stmt, memo: dict | None = None) -> bool:
    """Whether the loop `name` over `body` is an innermost scalar loop that
    stores only into places that do not move with the loop, through a select
    or a branch (an argmin's rows), and is neither a scalar_fold nor a
    crowded_fold: the loop LLVM unrolls 8x with a remainder when its extent
    is not a constant (lowering/specialize_rows.py)."""
    plain = _ScalarStores()
    plain.visit(body)
    if plain.scalar:
        return False                # no choice in it
    v = _ScalarStores(through_choices=True)
    v.visit(body)
    if not v.scalar or not v.stores:
        return False
    if len({st.name for st in v.stores if not st.value.type.is_float()}) >= CROWDED:
        return False
    return streaming_loop(name, body, memo)


class _ScalarStores(ir.Visitor):
    """scalar_fold's and crowded_fold's walk: `stores` the stores met;
    `scalar` False once a loop or a vector is met, or a select or a branch
    unless `through_choices` (the walk stops there)."""

    def __init__(self, through_choices: bool = False):
        super().__init__()
        self.scalar = True
        self.stores: list = []
        self.through_choices = through_choices

    def visit(self, n):
        if self.scalar:
            if isinstance(n, ir.For) or (isinstance(n, ir.Expr) and n.type.lanes > 1) or \
                    not self.through_choices and (
                        isinstance(n, (ir.Select, ir.IfThenElse)) or
                        (isinstance(n, ir.Call) and n.name == "if_then_else")):
                self.scalar = False
            else:
                super().visit(n)

    def visit_Store(self, s):
        self.stores.append(s)
        self.visit_children(s)


_COMPARES = (ir.LT, ir.LE, ir.GT, ir.GE)


def running_extreme_update(cond: ir.Expr, then_case: ir.Stmt, lets: dict) -> frozenset:
    """The accumulators (buffer names) if `if (cond) then_case` (no else)
    updates a running minimum or maximum, else an empty set: cond (through the LetStmts in scope, `lets`: name -> stack of
    values) compares a value with a scalar accumulator, a Load at a constant
    index of a buffer that then_case stores into (an argmin's `if (a[i] <
    acc[0]) { acc[0] = a[i]; at[0] = i }`). Over many elements such an
    update is rare (a new extreme: O(log n) times in n random elements) or,
    on monotonic input, taken every time: predictable either way
    (codegen_llvm.emit_IfThenElse then marks it rarely_taken)."""
    seen = 0
    if isinstance(cond, ir.VectorReduce) and cond.op == "or" and cond.lanes == 1:
        cond = cond.value               # any lane of a vector update (select_to_branch)
        stores = then_case.stmts if isinstance(then_case, ir.Block) else (then_case,)
    else:
        v = _ScalarStores(through_choices=True)
        v.visit(then_case)
        stores = v.stores
    while isinstance(cond, ir.Variable) and lets.get(cond.name) and seen < 8:
        cond, seen = lets[cond.name][-1], seen + 1
    if not isinstance(cond, _COMPARES):
        return frozenset()
    accs = {e.name for e in (cond.a, cond.b)
            if isinstance(e, ir.Load) and _fixed_index(e.index)}
    if not accs:
        return frozenset()
    return frozenset(st.name for st in stores if isinstance(st, ir.Store) and st.name in accs)


def _fixed_index(index) -> bool:
    """A constant index, or a ramp of constants (a vector accumulator)."""
    if isinstance(index, ir.Ramp):
        return isinstance(index.base, ir.Const) and isinstance(index.stride, ir.Const)
    return isinstance(index, ir.Const)


def rarely_taken(module: ll.Module):
    """`!prof` branch weights saying a branch is almost never taken."""
    return module.add_metadata([ll.MetaDataString(module, "branch_weights"),
                                ll.Constant(I32, 1), ll.Constant(I32, 2000)])


def plain_loop_metadata(module: ll.Module, vectorize: bool = False):
    """A new loop ID (`!llvm.loop`, self-referential and distinct by a serial
    number) asking LLVM not to unroll the loop, nor to vectorize it unless
    `vectorize`. The guarded tail copies of partitioned loops carry it:
    unrolled and vectorized by LLVM, they made conv5x5's LLVM time 1.8x
    longer for code that runs on a few pixels of the border."""
    no_unroll = module.add_metadata([ll.MetaDataString(module, "llvm.loop.unroll.disable")])
    serial = module.add_metadata([ll.MetaDataString(module, "pyhalide.loop"),
                                  ll.Constant(I32, len(module.metadata))])
    hints = [no_unroll, serial]
    if not vectorize:
        hints.insert(1, module.add_metadata([
            ll.MetaDataString(module, "llvm.loop.vectorize.enable"), ll.Constant(ll.IntType(1), 0)]))
    loop_id = module.add_metadata(hints)
    loop_id.operands = (loop_id,) + tuple(loop_id.operands)
    return loop_id


def store_lines(b: ll.IRBuilder, value, ptr, etype, elem_bytes: int, align: int):
    """Store the vector `value` densely at `ptr` (elements of LLVM type
    `etype`, `elem_bytes` bytes each), one cache line's worth of lanes at a
    time in increasing address order when it spans several lines. LLVM
    splits a wider store into native ones in any order (a 64-lane float
    store as the zmm stores at +128, +192, +0, +64); on the AVX-512 host of
    session 12, with the output at NumPy's page + 16 (every 64-byte store
    across two lines), conv5x5 at 64 lanes ran 9% faster with its stores in
    address order (docs/performance.md, "AVX-512 (session 12)")."""
    lanes = value.type.count
    per_line = max(CACHE_LINE // elem_bytes, 1)
    if lanes * elem_bytes <= CACHE_LINE or lanes % per_line:
        b.store(value, ptr, align=align)
        return
    for k in range(0, lanes, per_line):
        part = shuffle(b, value, range(k, k + per_line))
        b.store(part, b.gep(ptr, [ll.Constant(I64, k)], source_etype=etype), align=align)


def prefetch(b: ll.IRBuilder, ptr, etype, elements: int):
    """Prefetch, for reading and into every cache level, the element
    `elements` past `ptr` (a pointer to elements of LLVM type `etype`). A
    prefetch never faults and changes no result, so the address may lie
    outside the buffer (the gep has no `inbounds`)."""
    p = b.gep(ptr, [ll.Constant(I64, elements)], source_etype=etype)
    fn = intrinsic(b.module, "llvm.prefetch.p0", ll.VoidType(), [PTR, I32, I32, I32])
    b.call(fn, [p, ll.Constant(I32, 0), ll.Constant(I32, 3), ll.Constant(I32, 1)])


def prefetch_vector(b: ll.IRBuilder, ptr, etype, elem_bytes: int, lanes: int,
                    backwards: bool = False):
    """Prefetch the `lanes` elements from `ptr` on, PREFETCH_BYTES ahead
    (behind when `backwards`): one prefetch per cache line the vector spans.
    A vector wider than a line (32 int32 lanes: 128 bytes) with one prefetch
    had every other line of its stream prefetched; on AMD Zen 3 kitchen_sink
    at 32 lanes ran 2.2x slower that way than with a prefetch per line
    (docs/performance.md, "Wide vectors and large chunks")."""
    step = PREFETCH_BYTES // elem_bytes
    per_line = max(CACHE_LINE // elem_bytes, 1)
    count = -(-lanes * elem_bytes // CACHE_LINE)
    for k in range(count):
        prefetch(b, ptr, etype, k * per_line + (-step if backwards else step))


# --------------------------------------------------------------------------
# Halide's tracing and print (pyhalide/tracing.py builds the calls)
# --------------------------------------------------------------------------
TRACE_PREFIX = "pyhalide.trace."     # pyhalide.trace.<event>.<value index>.<func>
TRACE_SYMBOL = "pyhalide_trace"      # void (ptr name, i32 code, i32 lanes, i32 n, ptr ints, ptr vals)
_TYPE_CODE = {"int": 0, "uint": 1, "float": 2, "bool": 3}


def _lane(b, v, t: ir.Type, lane: int):
    return v if t.lanes == 1 else b.extract_element(v, ll.Constant(I32, lane))


def _as_i64_bits(b, x, t: ir.Type):
    """A scalar as 64 bits: integers extended, floats as the bits of a double."""
    if t.is_float():
        d = x if t.bits == 64 else b.fpext(x, ll.DoubleType())
        return b.bitcast(d, I64)
    if t.bits == 64:
        return x
    return b.zext(x, I64) if t.is_uint() or t.is_bool() else b.sext(x, I64)


def emit_trace(em, name: str, args, arg_types):
    """Call the trace hook with the event `name`, the coordinates (args[1:],
    lane-major per dimension, as Halide's halide_trace_event_t) and the
    value args[0] (every lane); gives the value."""
    b = em.b
    t = arg_types[0]
    lanes = max(at.lanes for at in arg_types)
    dims = len(args) - 1
    coords = em.entry_alloca(I64, ll.Constant(I32, max(1, dims * lanes)))
    vals = em.entry_alloca(I64, ll.Constant(I32, lanes))
    for d in range(dims):
        at = arg_types[1 + d]
        for lane in range(lanes):
            c = _as_i64_bits(b, _lane(b, args[1 + d], at, lane if at.lanes > 1 else 0), at.element_of())
            b.store(c, b.gep(coords, [ll.Constant(I32, d * lanes + lane)], source_etype=I64))
    for lane in range(lanes):
        v = _as_i64_bits(b, _lane(b, args[0], t, lane if t.lanes > 1 else 0), t.element_of())
        b.store(v, b.gep(vals, [ll.Constant(I32, lane)], source_etype=I64))
    text = bytearray(name.encode()) + b"\0"
    gname = f"pyhalide.trace.name.{len(em.module.globals)}"
    g = ll.GlobalVariable(em.module, ll.ArrayType(I8, len(text)), name=gname)
    g.initializer = ll.Constant(ll.ArrayType(I8, len(text)), text)
    g.global_constant = True
    g.linkage = "private"
    code = _TYPE_CODE[t.code] * 1000 + t.bits
    hook = intrinsic(em.module, TRACE_SYMBOL, ll.VoidType(), [PTR, I32, I32, I32, PTR, PTR])
    b.call(hook, [b.bitcast(g, PTR), ll.Constant(I32, code), ll.Constant(I32, lanes),
                  ll.Constant(I32, dims), coords, vals])
    return args[0]
