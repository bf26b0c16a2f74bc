"""User-facing expressions: `Expr` and the operators, with Halide's coercion
rules (API.md): a Python number takes the type of the Expr it meets (TypeError
if it does not fit a narrow integer type), except that a Python float meeting an
integer Expr makes Float(32), 2.0 included; a bare Python int is Int(32) (Int(64)
if it does not fit), a bare float Float(32); mixed Exprs follow Halide's
match_types (float wins; same signedness widens; mixed signedness becomes a
signed int of the wider width)."""
from __future__ import annotations

import builtins
import numbers
import warnings

import numpy as np

from . import ir
from .ir import Type


class ExprTruthError(TypeError, ValueError):
    """bool() of an Expr: a TypeError, and the ValueError Halide's bindings raise."""


class Expr:
    """A handle on an IR expression with Python operators."""

    __slots__ = ("node",)
    __array_priority__ = 1000  # make `np.int32(3) + expr` call our __radd__

    def __init__(self, *value):
        """Expr(v) converts v; Expr() is undefined (Halide's default Expr: an
        unbounded dimension's bound), an error wherever a value is needed."""
        if len(value) > 1:
            raise TypeError(f"Expr() takes one value, got {len(value)}")
        self.node = to_node(value[0]) if value else None

    def defined(self) -> bool:
        return self.node is not None

    @classmethod
    def wrap(cls, node: ir.Expr) -> "Expr":
        e = object.__new__(Expr)
        e.node = node
        return e

    def type(self) -> Type:
        return self.node.type

    def __repr__(self) -> str:
        return f"<halide.Expr of type {self.node.type}: {ir.expr_to_str(self.node)}>"

    def __str__(self) -> str:
        return ir.expr_to_str(self.node)

    def __bool__(self):
        raise ExprTruthError(f"the Expr ({ir.expr_to_str(self.node)}) cannot be converted to a "
                             f"bool: a pyhalide Expr has no truth value; use ph.select, &, | "
                             f"and ph.logical_not instead of if/and/or/not")

    def __hash__(self):
        return id(self)

    def __index__(self):
        raise TypeError("a pyhalide Expr cannot be used as a Python integer")

    # arithmetic -----------------------------------------------------------
    def __add__(self, o): return binary(ir.Add, self, o)
    def __radd__(self, o): return binary(ir.Add, o, self)
    def __sub__(self, o): return binary(ir.Sub, self, o)
    def __rsub__(self, o): return binary(ir.Sub, o, self)
    def __mul__(self, o): return binary(ir.Mul, self, o)
    def __rmul__(self, o): return binary(ir.Mul, o, self)
    def __truediv__(self, o): return binary(ir.Div, self, o)
    def __rtruediv__(self, o): return binary(ir.Div, o, self)
    def __floordiv__(self, o): return _floordiv(self, o)
    def __rfloordiv__(self, o): return _floordiv(o, self)
    def __mod__(self, o): return binary(ir.Mod, self, o)
    def __rmod__(self, o): return binary(ir.Mod, o, self)
    def __pow__(self, o): return pow(self, o)
    def __rpow__(self, o): return pow(o, self)
    def __neg__(self): return _negate(self)
    def __pos__(self): return self
    def __invert__(self): return _invert(self)
    def __abs__(self): return abs(self)

    # bitwise --------------------------------------------------------------
    def __and__(self, o): return _bitwise(ir.BitAnd, ir.And, self, o)
    def __rand__(self, o): return _bitwise(ir.BitAnd, ir.And, o, self)
    def __or__(self, o): return _bitwise(ir.BitOr, ir.Or, self, o)
    def __ror__(self, o): return _bitwise(ir.BitOr, ir.Or, o, self)
    def __xor__(self, o): return _bitwise(ir.BitXor, ir.NE, self, o)
    def __rxor__(self, o): return _bitwise(ir.BitXor, ir.NE, o, self)
    def __lshift__(self, o): return _shift(ir.Shl, self, o)
    def __rlshift__(self, o): return _shift(ir.Shl, o, self)
    def __rshift__(self, o): return _shift(ir.Shr, self, o)
    def __rrshift__(self, o): return _shift(ir.Shr, o, self)

    # comparisons ----------------------------------------------------------
    def __lt__(self, o): return binary(ir.LT, self, o)
    def __le__(self, o): return binary(ir.LE, self, o)
    def __gt__(self, o): return binary(ir.GT, self, o)
    def __ge__(self, o): return binary(ir.GE, self, o)
    def __eq__(self, o): return binary(ir.EQ, self, o)
    def __ne__(self, o): return binary(ir.NE, self, o)


# ---------------------------------------------------------------------------
# conversion
# ---------------------------------------------------------------------------
def is_python_number(v) -> bool:
    return isinstance(v, (bool, numbers.Integral, numbers.Real)) and not isinstance(v, np.generic)


def python_const(v) -> ir.Expr:
    """A Python number (or NumPy bool) alone as a constant: bool, the first of
    Int(32)/Int(64)/UInt(64) holding an integer, Float(32) for a float."""
    if isinstance(v, (bool, np.bool_)):
        return ir.Const(ir.Bool(), bool(v))
    if isinstance(v, numbers.Integral):
        v = int(v)
        for t in (ir.Int(32), ir.Int(64), ir.UInt(64)):
            if t.can_represent(v):
                return ir.Const(t, v)
        raise TypeError(f"integer {v} does not fit in 64 bits")
    return float32_const(v)


def float32_const(v) -> ir.Expr:
    """A Python float as a Float(32) constant; RuntimeWarning (Halide 21's
    bindings' text, the value with 17 decimals) when float32 cannot hold it exactly."""
    v = float(v)
    with np.errstate(over="ignore"):                 # past float32's range: inf, as Halide
        rounded = float(np.float32(v))
    if rounded != v and np.isfinite(v):
        warnings.warn(f"The floating-point value {v:.17f} will be interpreted as a float32 by "
                      f"Halide and lose precision; add an explicit `f32()` or `f64()`` cast "
                      f"to avoid this warning.", RuntimeWarning, stacklevel=4)
    return ir.Const(ir.Float(32), v)


def to_node(v) -> ir.Expr:
    """Anything Expr-like to an IR node: Expr, Var/RVar/FuncRef (via .node or
    `_expr_node()`), NumPy scalars (their own type), Python numbers."""
    if isinstance(v, ir.Expr):
        return v
    if isinstance(v, Expr):
        if v.node is None:
            raise ir.CompileError("an undefined Expr (Expr()) is used as a value; give it one "
                                  "(Expr(0))")
        return v.node
    conv = getattr(v, "_expr_node", None)
    if conv is not None:
        return conv()
    if isinstance(v, np.generic):
        t = ir.Type.from_numpy(v.dtype)
        return ir.Const(t, v.item())
    if is_python_number(v):
        return python_const(v)
    raise TypeError(f"cannot convert {type(v).__name__} {v!r} to a pyhalide Expr")


def number_as(t: Type, v, what: str = "") -> ir.Expr:
    """A Python number meeting an Expr of type t takes that type; None for a
    float meeting an integer or bool type (Halide: the result is Float(32),
    even for an integer-valued float such as 2.0)."""
    t = t.element_of()
    if isinstance(v, bool) or isinstance(v, np.bool_):
        v = int(v)
    if t.is_float():
        if isinstance(v, float):
            # Halide 21's bindings make a Python float a Float(32) Expr first
            # (double_to_expr_check), then widen it to the other operand's type
            return ir.Const(t, float32_const(v).value)
        rounded = ir.int_to_float(t, int(v))
        if rounded != v:
            raise TypeError(f"Integer constant {v} will be implicitly coerced to type {t}, "
                            f"which changes its value to {rounded:g}{what}")
        return ir.Const(t, rounded)
    if isinstance(v, float):
        return None
    if t.is_bool():
        if v in (0, 1):
            return ir.Const(t, bool(v))
        raise TypeError(f"{v} does not fit in type bool{what}")
    if not t.can_represent(v):
        raise TypeError(f"integer constant {v} does not fit in type {t}{what}; "
                        f"cast it explicitly (e.g. ph.cast(ph.Int(64), ...))")
    return ir.Const(t, int(v))


def cast_node(t: Type, e: ir.Expr) -> ir.Expr:
    t = t.with_lanes(e.type.lanes)
    if e.type == t:
        return e
    if isinstance(e, ir.Const):
        if t.is_float():
            if e.type.is_float() or e.type.is_bool():
                return ir.Const(t, float(e.value))
            return ir.Const(t, ir.int_to_float(t, e.value))
        if t.is_bool():
            return ir.Const(t, e.value != 0)
        if not e.type.is_float():
            return ir.Const(t, int(e.value))
    return ir.Cast(t, e)


def _match_types(a: ir.Expr, b: ir.Expr):
    ta, tb = a.type, b.type
    if ta == tb:
        return a, b
    if ta.is_float() or tb.is_float():
        if ta.is_float() and tb.is_float():
            t = ta if ta.bits >= tb.bits else tb
        else:
            t = ta if ta.is_float() else tb
        return cast_node(t, a), cast_node(t, b)
    if ta.is_bool() or tb.is_bool():
        other = tb if ta.is_bool() else ta
        return cast_node(other, a), cast_node(other, b)
    bits = builtins.max(ta.bits, tb.bits)
    if ta.code == tb.code:
        t = Type(ta.code, bits)
    else:
        t = ir.Int(bits)
    return cast_node(t, a), cast_node(t, b)


def _beyond_int32(v, other: Type) -> bool:
    """A Python integer outside int32 meeting an integer Expr of at most 32
    bits: Halide's bindings make it an Int(64) Expr, which promotes the other
    operand. (64-bit operands take it in their own type when it fits, as
    before: Halide would make `u64 + 2**40` an int64.)"""
    return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) and \
        not ir.Int(32).can_represent(int(v)) and \
        other.is_integer() and not other.is_bool() and other.bits <= 32


def match(a, b, what: str = ""):
    """Coerce two operands (Exprs or numbers) to one type, Halide style."""
    a_num = is_python_number(a)
    b_num = is_python_number(b)
    if a_num and b_num:
        return _match_types(python_const(a), python_const(b))
    if a_num:
        bn = to_node(b)
        if _beyond_int32(a, bn.type):           # Halide: an Int(64) Expr
            return _match_types(python_const(a), bn)
        an = number_as(bn.type, a, what)
        if an is None:
            return _match_types(python_const(a), bn)
        return an, bn
    if b_num:
        an = to_node(a)
        if _beyond_int32(b, an.type):
            return _match_types(an, python_const(b))
        bn = number_as(an.type, b, what)
        if bn is None:
            return _match_types(an, python_const(b))
        return an, bn
    return _match_types(to_node(a), to_node(b))


def binary(cls, a, b) -> Expr:
    an, bn = match(a, b)
    if an.type.is_bool() and cls in (ir.Add, ir.Sub, ir.Mul, ir.Div, ir.Mod):
        raise TypeError(f"arithmetic ({cls.__name__}) on bool operands; cast them first")
    return Expr.wrap(cls(an, bn))


def _floordiv(a, b) -> Expr:
    an, bn = match(a, b)
    if an.type.is_float():
        return Expr.wrap(intrinsic("floor", an.type, ir.Div(an, bn)))
    return Expr.wrap(ir.Div(an, bn))


def _negate(a) -> Expr:
    n = to_node(a)
    if n.type.is_bool():
        raise TypeError("unary minus of a bool Expr")
    if isinstance(n, ir.Const):
        return Expr.wrap(ir.Const(n.type, -n.value))
    return Expr.wrap(ir.Sub(ir.zero(n.type), n))


def _invert(a) -> Expr:
    n = to_node(a)
    if n.type.is_bool():
        return Expr.wrap(ir.Not(n))
    if n.type.is_float():
        raise TypeError("~ of a float Expr")
    return Expr.wrap(ir.BitNot(n))


def _bitwise(int_cls, bool_cls, a, b) -> Expr:
    an, bn = match(a, b)
    if an.type.is_float():
        raise TypeError(f"bitwise {int_cls.__name__} of float operands")
    if an.type.is_bool():
        return Expr.wrap(bool_cls(an, bn))
    return Expr.wrap(int_cls(an, bn))


_OPPOSITE_SHIFT = {ir.Shl: ir.Shr, ir.Shr: ir.Shl}


def _shift(cls, a, b) -> Expr:
    """a << b, a >> b as in Halide: a Python number on the left is Int(32); the
    narrower operand is widened to the other's bits, each keeping its
    signedness; the result has a's type (after widening). A negative shift
    amount (a Python int, or a signed Expr at run time) shifts the other way
    by its magnitude (Halide's lower_signed_shift_left/right). An amount of
    the bit width or more gives 0 (sign fill for >> of a negative signed
    value): defined here, where Halide leaves it to the target."""
    an = to_node(a)
    if is_python_number(b) and not isinstance(b, float):
        if b < 0:
            cls, b = _OPPOSITE_SHIFT[cls], -b
        bn = number_as(ir.UInt(an.type.bits) if an.type.is_integer() else an.type, b)
    else:
        bn = to_node(b)
    if not an.type.is_integer() or not bn.type.is_integer():
        raise TypeError("shift operands must be integers")
    bits = an.type.bits if an.type.bits >= bn.type.bits else bn.type.bits
    t = ir.Type(an.type.code, bits, an.type.lanes)
    an = cast_node(t, an)
    bn = cast_node(ir.Type(bn.type.code, bits, bn.type.lanes), bn)
    if not bn.type.is_int():
        return Expr.wrap(cls(an, cast_node(t, bn)))
    magnitude = cast_node(t, intrinsic("abs", ir.UInt(bits, bn.type.lanes), bn))
    value = ir.const_value(bn)
    if value is not None:
        return Expr.wrap((cls if value >= 0 else _OPPOSITE_SHIFT[cls])(an, magnitude))
    return Expr.wrap(ir.Select(ir.GE(bn, ir.zero(bn.type)), cls(an, magnitude),
                               _OPPOSITE_SHIFT[cls](an, magnitude)))


def intrinsic(name: str, t: Type, *args) -> ir.Expr:
    return ir.Call(t, name, tuple(args), ir.INTRINSIC)


# ---------------------------------------------------------------------------
# functions on Exprs (ph.select, ph.min, ...)
# ---------------------------------------------------------------------------
def cast(t, e) -> Expr:
    """cast(type, e); a Python float is a Float(32) Expr first, as in Halide 21's
    bindings (`ph.f64(0.1)` is the exact double: _caster)."""
    return Expr.wrap(cast_node(ir.as_type(t), to_node(e)))


def select(*args) -> Expr:
    """select(c, a, b); select(c1, a, c2, b, ..., default). With Tuple values
    (Python tuples), a Tuple of selects; the conditions are then all Exprs or all
    Tuples of the same size (one condition per element), as in Halide."""
    if len(args) < 3 or len(args) % 2 == 0:
        raise TypeError("select takes (cond, a, b) or (c1, a, c2, b, ..., default)")
    conds, values = list(args[0:-1:2]), list(args[1:-1:2]) + [args[-1]]
    if any(isinstance(v, tuple) for v in values):
        tuple_conds = [isinstance(c, tuple) for c in conds]
        if any(tuple_conds) and not all(tuple_conds):
            raise ir.CompileError("select() on Tuples may not mix Expr and Tuple for the "
                                  "condition elements.")
        tuples = values + (conds if all(tuple_conds) else [])
        if not all(isinstance(v, tuple) for v in values) or len({len(t) for t in tuples}) != 1:
            raise ir.CompileError("select() on Tuples requires all Tuples to have identical "
                                  "sizes.")
        return tuple(select(*[a[i] if isinstance(a, tuple) else a for a in args])
                     for i in range(len(values[0])))
    if len(args) > 3:
        return select(args[0], args[1], select(*args[2:]))
    c, a, b = args
    cn = to_node(c)
    if not cn.type.is_bool():
        raise TypeError(f"select condition must be bool, not {cn.type}")
    an, bn = _literal_takes_other_type(a, b)
    an, bn = match(an, bn)
    return Expr.wrap(ir.Select(cn, an, bn))


def _literal_takes_other_type(a, b):
    """select's values with an integer literal Expr (a signed constant, e.g.
    Expr(13)) cast to the other value's type, as Halide's select does
    before it matches the types (select(c, abs(i), Expr(13)) is a uint32)."""
    def literal(v):
        return isinstance(v, Expr) and isinstance(v.node, ir.Const) and v.node.type.is_int()
    if literal(a) and not literal(b) and not is_python_number(b):
        return Expr.wrap(cast_node(to_node(b).type, a.node)), b
    if literal(b) and not literal(a) and not is_python_number(a):
        return a, Expr.wrap(cast_node(to_node(a).type, b.node))
    return a, b


def min(a, b, *rest) -> Expr:
    an, bn = match(a, b)
    r = Expr.wrap(ir.Min(an, bn))
    return min(r, *rest) if rest else r


def max(a, b, *rest) -> Expr:
    an, bn = match(a, b)
    r = Expr.wrap(ir.Max(an, bn))
    return max(r, *rest) if rest else r


def clamp(e, lo, hi) -> Expr:
    en = to_node(e)
    t = en.type
    return Expr.wrap(ir.Max(ir.Min(en, _bound_as(t, hi)), _bound_as(t, lo)))


def _bound_as(t: Type, v) -> ir.Expr:
    """A bound of clamp takes the clamped value's type (as in Halide: a
    Python number only if the cast loses nothing)."""
    if not is_python_number(v):
        return cast_node(t, to_node(v))
    n = number_as(t, v)
    if n is None and float(v).is_integer():
        n = number_as(t, int(v))
    if n is None:
        raise TypeError(f"clamp of a {t.element_of()} value with the bound {v!r}, which is "
                        f"not a {t.element_of()}; cast the value or use an integer bound")
    return n


def abs(e) -> Expr:
    n = to_node(e)
    t = n.type
    if t.is_int():
        t = ir.UInt(t.bits, t.lanes)
    elif t.is_bool():
        raise TypeError("abs of a bool Expr")
    return Expr.wrap(intrinsic("abs", t, n))


def _float_arg(e) -> ir.Expr:
    n = to_node(e)
    if not n.type.is_float():
        n = cast_node(ir.Float(32), n)
    return n


def math_function(name):
    def f(e) -> Expr:
        n = _float_arg(e)
        return Expr.wrap(intrinsic(name, n.type, n))
    f.__name__ = name
    f.__doc__ = f"{name}(e): elementwise; integer arguments become Float(32)."
    return f


sqrt = math_function("sqrt")
exp = math_function("exp")
log = math_function("log")
sin = math_function("sin")
cos = math_function("cos")
tan = math_function("tan")
asin = math_function("asin")
acos = math_function("acos")
atan = math_function("atan")
sinh = math_function("sinh")
cosh = math_function("cosh")
tanh = math_function("tanh")
floor = math_function("floor")
ceil = math_function("ceil")
round = math_function("round")
trunc = math_function("trunc")


def _first_decides(name, a, b) -> Expr:
    """A binary math function as in Halide: an integer first argument becomes
    Float(32), and the second is cast to the first's type."""
    an = _float_arg(a)
    bn = number_as(an.type, b) if is_python_number(b) else cast_node(an.type, to_node(b))
    return Expr.wrap(intrinsic(name, an.type, an, bn))


def pow(a, b) -> Expr:
    return _first_decides("pow", a, b)


def atan2(a, b) -> Expr:
    return _first_decides("atan2", a, b)


def _float_pred(name):
    def f(e) -> Expr:
        n = to_node(e)
        if not n.type.is_float():
            return Expr.wrap(ir.const(ir.Bool(n.type.lanes), name == "is_finite"))
        return Expr.wrap(intrinsic(name, ir.Bool(n.type.lanes), n))
    f.__name__ = name
    return f


is_nan = _float_pred("is_nan")
is_inf = _float_pred("is_inf")
is_finite = _float_pred("is_finite")


def logical_not(e) -> Expr:
    n = to_node(e)
    if not n.type.is_bool():
        n = ir.NE(n, ir.zero(n.type))
    return Expr.wrap(ir.Not(n))


def logical_and(a, b) -> Expr:
    return Expr.wrap(ir.And(_as_bool(a), _as_bool(b)))


def logical_or(a, b) -> Expr:
    return Expr.wrap(ir.Or(_as_bool(a), _as_bool(b)))


def _as_bool(e) -> ir.Expr:
    n = to_node(e)
    return n if n.type.is_bool() else ir.NE(n, ir.zero(n.type))


def _saturating(op):
    def f(a, b) -> Expr:
        an, bn = match(a, b)
        t = an.type
        if t.is_float():
            return Expr.wrap(op(an, bn))
        if t.bits == 64:
            return Expr.wrap(_saturating64(op, an, bn))
        wide = ir.Int(64)
        w = op(cast_node(wide, an), cast_node(wide, bn))
        lo, hi = ir.Const(wide, t.min_value()), ir.Const(wide, t.max_value())
        return Expr.wrap(cast_node(t, ir.Max(ir.Min(w, hi), lo)))
    return f


def _saturating64(op, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    """a + b or a - b of a 64-bit type, clamped to the type's range, from
    selects on overflow tests that cannot overflow themselves (unsigned add:
    the wrapped sum is below a exactly when it carried)."""
    t = a.type
    lo, hi, zero = ir.const(t, t.min_value()), ir.const(t, t.max_value()), ir.zero(t)
    r = op(a, b)
    if t.is_uint():
        return ir.Select(ir.LT(r, a), hi, r) if op is ir.Add else ir.Select(ir.LT(a, b), zero, r)
    if op is ir.Add:        # b > 0: overflow above max - b; b <= 0: below min - b
        return ir.Select(ir.LT(zero, b), ir.Select(ir.LT(ir.Sub(hi, b), a), hi, r),
                         ir.Select(ir.LT(a, ir.Sub(lo, b)), lo, r))
    return ir.Select(ir.LT(b, zero), ir.Select(ir.LT(ir.Add(hi, b), a), hi, r),
                     ir.Select(ir.LT(a, ir.Add(lo, b)), lo, r))


saturating_add = _saturating(ir.Add)
saturating_sub = _saturating(ir.Sub)


# type shorthands -------------------------------------------------------------
def _caster(t: Type):
    """The shorthand cast to t. As Halide 21's `f32(float)`/`f64(double)`
    overloads, a Python float becomes the constant of t without passing through
    Float(32) and without a precision warning."""
    def f(e) -> Expr:
        if t.is_float() and isinstance(e, float) and not isinstance(e, np.generic):
            return Expr.wrap(ir.Const(t, e))
        return cast(t, e)
    f.__name__ = str(t)
    return f


i8, i16, i32, i64 = (_caster(ir.Int(b)) for b in (8, 16, 32, 64))
u8, u16, u32, u64 = (_caster(ir.UInt(b)) for b in (8, 16, 32, 64))
f32, f64 = _caster(ir.Float(32)), _caster(ir.Float(64))

ir.types.set_expr_wrapper(Expr.wrap)
