"""Halide 21's arithmetic helpers (IROperator.h) with its Python names, each
built from pyhalide's IR operations exactly as Halide lowers it
(FindIntrinsics.cpp), so a ported program computes the same integers:

    absd  saturating_cast  i8_sat .. u64_sat  widening_add/sub/mul
    widening_shift_left/right  widen_right_add/sub/mul  halving_add/sub
    rounding_halving_add  rounding_shift_left/right  mul_shift_right
    rounding_mul_shift_right  div_round_to_zero  mod_round_to_zero  fract
    hypot  popcount  count_leading_zeros  count_trailing_zeros
    likely  likely_if_innermost  strict_float  unsafe_promise_clamped
    fast_exp  fast_log  fast_pow  fast_sin  fast_cos  fast_inverse
    fast_inverse_sqrt  Tuple  target_bits  target_arch_is  target_os_is
    target_has_feature  target_natural_vector_size  get_target_from_environment

Where Halide leaves a result to the target (a shift by the bit width or
more) pyhalide's definition applies (DESIGN.md). The fast_* approximations
are computed exactly here (Halide's own are within their stated error of
these). Halide's widening of 64-bit types needs 128-bit integers: a
TypeError here.
"""
from __future__ import annotations

import numpy as np

from . import expr as E
from . import ir
from .expr import Expr, cast_node, match, to_node

__all__ = [
    "absd", "saturating_cast", "i8_sat", "i16_sat", "i32_sat", "i64_sat", "u8_sat",
    "u16_sat", "u32_sat", "u64_sat", "widening_add", "widening_sub", "widening_mul",
    "widening_shift_left", "widening_shift_right", "widen_right_add", "widen_right_sub",
    "widen_right_mul", "halving_add", "halving_sub", "rounding_halving_add",
    "rounding_shift_left", "rounding_shift_right", "mul_shift_right",
    "rounding_mul_shift_right", "div_round_to_zero", "mod_round_to_zero", "fract", "hypot",
    "popcount", "count_leading_zeros", "count_trailing_zeros", "likely",
    "likely_if_innermost", "strict_float", "unsafe_promise_clamped", "fast_exp", "fast_log",
    "fast_pow", "fast_sin", "fast_cos", "fast_inverse", "fast_inverse_sqrt", "Tuple",
    "target_bits", "target_arch_is", "target_os_is", "target_has_feature",
    "target_natural_vector_size", "get_target_from_environment",
]


def _wrap(node: ir.Expr) -> Expr:
    return Expr.wrap(node)


def _integer_operands(name, a, b):
    an, bn = match(a, b)
    if not an.type.is_integer():
        raise TypeError(f"{name} needs integer operands, not {an.type}")
    return an, bn


def _widened(t: ir.Type, name: str) -> ir.Type:
    if t.bits >= 64 or t.is_bool():
        raise TypeError(f"{name}: {t} has no wider type")
    return t.with_bits(t.bits * 2)


def _unsigned(t: ir.Type) -> ir.Type:
    return t.with_code("uint")


# ---- absolute difference and saturation --------------------------------------
def absd(a, b) -> Expr:
    """|a - b|, exactly: an unsigned type of the operands' width for integers."""
    an, bn = match(a, b)
    if an.type.is_float():
        return E.abs(_wrap(ir.Sub(an, bn)))
    u = _unsigned(an.type)
    ua, ub = cast_node(u, an), cast_node(u, bn)
    return _wrap(ir.Select(ir.LT(an, bn), ir.Sub(ub, ua), ir.Sub(ua, ub)))


def _largest_finite(t: ir.Type) -> float:
    return float(np.finfo(t.element_of().to_numpy()).max)


def saturating_cast(t, e) -> Expr:
    """e converted to t, clamped to t's range (float targets: to the largest
    finite values) as Halide's lower_saturating_cast does."""
    t = ir.as_type(t)
    a = to_node(e)
    t = t.with_lanes(a.type.lanes)
    s = a.type
    if t == s:
        return _wrap(a)
    if t.is_float() and s.is_float():
        hi = _largest_finite(t)
        if t.bits < s.bits:
            return _wrap(cast_node(t, ir.Max(ir.Min(a, ir.const(s, hi)), ir.const(s, -hi))))
        c = cast_node(t, a)
        return _wrap(ir.Max(ir.Min(c, ir.const(t, hi)), ir.const(t, -hi)))
    if s.is_float() and not t.is_float() and t.bits >= s.bits:
        low = ir.Max(a, ir.const(s, float(t.min_value())))
        top = ir.const(s, float(t.max_value()))          # rounds up to a power of two
        return _wrap(ir.Select(ir.GE(low, top), ir.const(t, t.max_value()), cast_node(t, low)))
    lo = t.min_value() if not s.is_uint() and _fits(s, t.min_value()) else None
    hi = t.max_value() if _fits(s, t.max_value()) else None
    if lo is not None:
        a = ir.Max(a, ir.const(s, lo))
    if hi is not None:
        a = ir.Min(a, ir.const(s, hi))
    return _wrap(cast_node(t, a))


def _fits(s: ir.Type, value) -> bool:
    """Whether `value` converts to type s without loss (Halide's lossless_cast
    of a constant)."""
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return False
    if s.is_float():
        v = s.element_of().to_numpy().type(value)
        return bool(np.isfinite(v)) and int(v) == int(value)
    return s.can_represent(value)


def _sat_caster(t: ir.Type):
    def f(e) -> Expr:
        return saturating_cast(t, e)
    f.__name__ = f"{t.code[0]}{t.bits}_sat"
    return f


i8_sat, i16_sat, i32_sat, i64_sat = (_sat_caster(ir.Int(b)) for b in (8, 16, 32, 64))
u8_sat, u16_sat, u32_sat, u64_sat = (_sat_caster(ir.UInt(b)) for b in (8, 16, 32, 64))


# ---- widening ------------------------------------------------------------------
def widening_add(a, b) -> Expr:
    an, bn = match(a, b)
    w = _widened(an.type, "widening_add")
    return _wrap(ir.Add(cast_node(w, an), cast_node(w, bn)))


def widening_mul(a, b) -> Expr:
    an, bn = match(a, b)
    w = _widened(an.type, "widening_mul")
    return _wrap(ir.Mul(cast_node(w, an), cast_node(w, bn)))


def widening_sub(a, b) -> Expr:
    """a - b in the wider type, signed even for unsigned operands."""
    an, bn = match(a, b)
    w = _widened(an.type, "widening_sub")
    if w.is_uint():
        w = w.with_code("int")
    return _wrap(ir.Sub(cast_node(w, an), cast_node(w, bn)))


def _widen(a) -> Expr:
    an = to_node(a)
    return _wrap(cast_node(_widened(an.type, "widen"), an))


def widening_shift_left(a, b) -> Expr:
    return _widen(a) << b


def widening_shift_right(a, b) -> Expr:
    return _widen(a) >> b


def _widen_right(name, cls, a, b) -> Expr:
    an, bn = to_node(a), to_node(b)
    w = _widened(bn.type, name)
    if an.type.element_of() != w.element_of():
        raise TypeError(f"{name}: the first operand must be {w.element_of()}, not {an.type}")
    return _wrap(cls(an, cast_node(w.with_lanes(an.type.lanes), bn)))


def widen_right_add(a, b) -> Expr:
    return _widen_right("widen_right_add", ir.Add, a, b)


def widen_right_sub(a, b) -> Expr:
    return _widen_right("widen_right_sub", ir.Sub, a, b)


def widen_right_mul(a, b) -> Expr:
    return _widen_right("widen_right_mul", ir.Mul, a, b)


# ---- halving and rounding --------------------------------------------------------
def halving_add(a, b) -> Expr:
    """(a + b) >> 1 without overflow: (a & b) + ((a ^ b) >> 1)."""
    an, bn = _integer_operands("halving_add", a, b)
    return _wrap(ir.Add(ir.BitAnd(an, bn), ir.Shr(ir.BitXor(an, bn), ir.const(an.type, 1))))


def rounding_halving_add(a, b) -> Expr:
    """(a + b + 1) >> 1 without overflow."""
    an, bn = _integer_operands("rounding_halving_add", a, b)
    low_bit = ir.BitAnd(ir.BitXor(an, bn), ir.const(an.type, 1))
    return _wrap(ir.Add(to_node(halving_add(_wrap(an), _wrap(bn))), low_bit))


def halving_sub(a, b) -> Expr:
    """(a - b) >> 1 without overflow (unsigned results wrap)."""
    an, bn = _integer_operands("halving_sub", a, b)
    e = to_node(rounding_halving_add(_wrap(an), _wrap(ir.BitNot(bn))))
    if an.type.is_uint():
        e = ir.Add(e, ir.const(an.type, 1 << (an.type.bits - 1)))
    return _wrap(e)


def _one_if(cond, t: ir.Type) -> ir.Expr:
    return ir.Select(cond, ir.const(t, 1), ir.const(t, 0))


def rounding_shift_right(a, b) -> Expr:
    """a >> b rounded to nearest, ties up: plus the last bit shifted out."""
    shifted = _wrap(to_node(a)) >> b
    an, bn = to_node(shifted), to_node(_shift_amount(a, b))
    positive = _one_if(ir.GT(bn, ir.const(bn.type, 0)), an.type)
    dropped = to_node(_wrap(to_node(a)) >> E.saturating_sub(_wrap(bn), 1))
    return _wrap(ir.Add(an, ir.BitAnd(positive, dropped)))


def rounding_shift_left(a, b) -> Expr:
    """a << b; for b < 0 a rounding right shift by -b."""
    shifted = _wrap(to_node(a)) << b
    an, bn = to_node(shifted), to_node(_shift_amount(a, b))
    negative = _one_if(ir.LT(bn, ir.const(bn.type, 0)), an.type)
    dropped = to_node(_wrap(to_node(a)) << E.saturating_add(_wrap(bn), 1))
    return _wrap(ir.Add(an, ir.BitAnd(negative, dropped)))


def _shift_amount(a, b) -> Expr:
    """b as Halide's shift sees it: a Python int in a's unsigned type, an Expr
    widened to a's bits keeping its signedness."""
    an = to_node(a)
    if E.is_python_number(b):
        if b >= 0:
            return _wrap(ir.Const(_unsigned(an.type).element_of(), int(b)))
        return _wrap(ir.Const(an.type.with_code("int").element_of(), int(b)))
    bn = to_node(b)
    if bn.type.bits < an.type.bits:
        bn = cast_node(bn.type.with_bits(an.type.bits), bn)
    return _wrap(bn)


def mul_shift_right(a, b, q) -> Expr:
    """(a * b) >> q in the wider type, saturated back to a's type; q unsigned."""
    an, bn = match(a, b)
    _check_unsigned_shift("mul_shift_right", q)
    wide = widening_mul(_wrap(an), _wrap(bn)) >> _unsigned_amount(an.type, q)
    return saturating_cast(an.type, wide)


def rounding_mul_shift_right(a, b, q) -> Expr:
    """(a * b) >> q rounded to nearest (ties up), saturated; q unsigned."""
    an, bn = match(a, b)
    _check_unsigned_shift("rounding_mul_shift_right", q)
    wide = rounding_shift_right(widening_mul(_wrap(an), _wrap(bn)), _unsigned_amount(an.type, q))
    return saturating_cast(an.type, wide)


def _check_unsigned_shift(name, q):
    if E.is_python_number(q):
        if q < 0:
            raise TypeError(f"{name}: the shift must not be negative")
        return
    if not to_node(q).type.is_uint():
        raise TypeError(f"{name} shift must be unsigned")


def _unsigned_amount(t: ir.Type, q):
    return q if not E.is_python_number(q) else _wrap(ir.Const(_unsigned(t).element_of(), int(q)))


# ---- C-style division ------------------------------------------------------------
def _truncated(a, b):
    """(quotient, remainder) rounded toward zero, from the IR's Euclidean
    division (a / 0 and a % 0 are 0, as Halide's division defines them)."""
    an, bn = _integer_operands("div_round_to_zero", a, b)
    q, r = ir.Div(an, bn), ir.Mod(an, bn)
    if an.type.is_uint():
        return q, r
    zero = ir.const(an.type, 0)
    adjust = ir.And(ir.LT(an, zero), ir.NE(r, zero))
    step = ir.Select(ir.GT(bn, zero), ir.const(an.type, 1), ir.const(an.type, -1))
    q_t = ir.Select(adjust, ir.Add(q, step), q)
    r_t = ir.Select(adjust, ir.Sub(r, ir.Select(ir.GT(bn, zero), bn, ir.Sub(zero, bn))), r)
    return q_t, r_t


def div_round_to_zero(a, b) -> Expr:
    return _wrap(_truncated(a, b)[0])


def mod_round_to_zero(a, b) -> Expr:
    return _wrap(_truncated(a, b)[1])


# ---- float helpers -----------------------------------------------------------------
def fract(x) -> Expr:
    """x - trunc(x) (Halide 21's definition)."""
    return _wrap(to_node(x)) - E.trunc(x)


def hypot(x, y) -> Expr:
    """sqrt(x * x + y * y), as Halide defines it (not C's hypot)."""
    xn, yn = match(x, y)
    return E.sqrt(_wrap(ir.Add(ir.Mul(xn, xn), ir.Mul(yn, yn))))


def _float32(name, x) -> ir.Expr:
    n = to_node(x)
    if n.type.element_of() != ir.Float(32):
        raise TypeError(f"{name} is only defined for Float(32), not {n.type}")
    return n


def fast_exp(x) -> Expr:
    return E.exp(_wrap(_float32("fast_exp", x)))


def fast_log(x) -> Expr:
    return E.log(_wrap(_float32("fast_log", x)))


def fast_pow(x, y) -> Expr:
    return E.pow(_wrap(_float32("fast_pow", x)), y)


def fast_sin(x) -> Expr:
    return E.sin(_wrap(_float32("fast_sin", x)))


def fast_cos(x) -> Expr:
    return E.cos(_wrap(_float32("fast_cos", x)))


def fast_inverse(x) -> Expr:
    n = _float32("fast_inverse", x)
    return _wrap(ir.Div(ir.const(n.type, 1.0), n))


def fast_inverse_sqrt(x) -> Expr:
    n = _float32("fast_inverse_sqrt", x)
    return _wrap(ir.Div(ir.const(n.type, 1.0), to_node(E.sqrt(_wrap(n)))))


# ---- bit counts ----------------------------------------------------------------------
def popcount(x) -> Expr:
    """The number of set bits, in x's type."""
    n = to_node(x)
    if not n.type.is_integer():
        raise TypeError(f"popcount of a {n.type}")
    return _wrap(cast_node(n.type, _popcount(cast_node(_unsigned(n.type), n))))


def _popcount(u: ir.Expr) -> ir.Expr:
    """The set bits of an unsigned value, by the usual pairwise sums (LLVM
    recognizes the pattern as ctpop)."""
    t, bits = u.type, u.type.bits
    m = [int("".join(p * (bits // len(p)) for p in [pat]), 2)
         for pat in ("01", "0011", "00001111")]
    x = ir.Sub(u, ir.BitAnd(ir.Shr(u, ir.const(t, 1)), ir.const(t, m[0])))
    x = ir.Add(ir.BitAnd(x, ir.const(t, m[1])), ir.BitAnd(ir.Shr(x, ir.const(t, 2)), ir.const(t, m[1])))
    x = ir.BitAnd(ir.Add(x, ir.Shr(x, ir.const(t, 4))), ir.const(t, m[2]))
    shift = 8
    while shift < bits:
        x = ir.Add(x, ir.Shr(x, ir.const(t, shift)))
        shift *= 2
    return ir.BitAnd(x, ir.const(t, 0xFF if bits > 8 else 0x0F))


def count_leading_zeros(x) -> Expr:
    """Leading zero bits (the bit width for 0), in x's type."""
    n = to_node(x)
    if not n.type.is_integer():
        raise TypeError(f"count_leading_zeros of a {n.type}")
    u = cast_node(_unsigned(n.type), n)
    shift = 1
    while shift < n.type.bits:                  # every bit below the highest set one
        u = ir.BitOr(u, ir.Shr(u, ir.const(u.type, shift)))
        shift *= 2
    return _wrap(cast_node(n.type, _popcount(ir.BitNot(u))))


def count_trailing_zeros(x) -> Expr:
    """Trailing zero bits (the bit width for 0), in x's type."""
    n = to_node(x)
    if not n.type.is_integer():
        raise TypeError(f"count_trailing_zeros of a {n.type}")
    u = cast_node(_unsigned(n.type), n)
    below = ir.BitAnd(ir.BitNot(u), ir.Sub(u, ir.const(u.type, 1)))     # ones below the lowest set bit
    return _wrap(cast_node(n.type, _popcount(below)))


# ---- hints that do not change values -----------------------------------------------
def likely(e) -> Expr:
    """A branch-probability hint in Halide; the value itself here."""
    return _wrap(to_node(e))


def likely_if_innermost(e) -> Expr:
    return _wrap(to_node(e))


def strict_float(e) -> Expr:
    """pyhalide never reassociates or contracts floats outside a reduction the
    schedule asked for: every float is strict already."""
    return _wrap(to_node(e))


def unsafe_promise_clamped(e, lo, hi) -> Expr:
    """A promise that lo <= e <= hi, for bounds inference in Halide; pyhalide
    bounds e from its own expression, so the value is e."""
    return _wrap(to_node(e))


def Tuple(*values) -> tuple:     # noqa: N802 (Halide's class name)
    """hl.Tuple(a, b) or hl.Tuple([a, b]): a Python tuple, which pyhalide's
    Funcs take as Tuple values."""
    if len(values) == 1 and isinstance(values[0], (list, tuple)):
        values = tuple(values[0])
    return tuple(values)


# ---- the target as a compile-time Expr -------------------------------------------------
def get_target_from_environment():
    from .halide_target import get_jit_target_from_environment
    return get_jit_target_from_environment()


def target_bits() -> Expr:
    return _wrap(ir.Const(ir.Int(32), get_target_from_environment().bits))


def target_arch_is(arch) -> Expr:
    return _wrap(ir.Const(ir.Bool(), get_target_from_environment().arch == arch))


def target_os_is(os_) -> Expr:
    return _wrap(ir.Const(ir.Bool(), get_target_from_environment().os == os_))


def target_has_feature(feature) -> Expr:
    return _wrap(ir.Const(ir.Bool(), get_target_from_environment().has_feature(feature)))


def target_natural_vector_size(t) -> Expr:
    n = get_target_from_environment().natural_vector_size(ir.as_type(t))
    return _wrap(ir.Const(ir.Int(32), n))
