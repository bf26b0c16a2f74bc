"""Values between types: NumPy's conversions of operands (weak Python
scalars that must fit), explicit casts (C casts that wrap or truncate),
int() of floats, truth values; the helpers the operators (ops.py) share for
values known at compile or at call time."""
from __future__ import annotations

import operator
import warnings

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import unions
from .ranges import INT64, n_within
from .types import PY_BOOL, PY_INT, Ty
from .values import NO_CONST, Val, cannot_raise, int_node_type, mark_cannot_raise, node_of


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def is_nan(n: ir.Expr) -> ir.Expr:
    """A bool node: the float node n is NaN."""
    return ir.NE(n, n)


@unions.over_alternatives
def truth(cx, v: Val) -> Val:
    """bool(v) as a Python bool value (NaN is true)."""
    n = node_of(cx, v)      # a value known only at call time gets its parameter
    node = n if v.ty.is_bool() else ir.NE(n, ir.Const(n.type, 0))
    const_v = bool(v.const) if v.is_const else NO_CONST
    static = (lambda env, f=v.static: bool(f(env))) if v.is_static else None
    return Val(node, PY_BOOL, static=static, const=const_v, risky=v.risky,
               facts=v.facts if v.ty.is_bool() else None)


def static2(fn, a: Val, b: Val):
    """The call-time function computing fn(a, b) when both are known at
    call time, else None. It is marked `cannot_raise` (static_sinks.py
    needs not compute it when nothing uses it) where fn cannot raise on
    such operands: +, -, *, comparisons and bitwise operators of two
    operands of one integer or float type, each computed by such functions
    (Python ints do not overflow, floats and NumPy's scalars give inf or
    wrap, and py_call silences their warnings)."""
    if a.is_static and b.is_static:
        fa, fb = a.static, b.static

        def static(env):
            return py_call(fn, fa(env), fb(env))
        return mark_cannot_raise(static) if _cannot_raise(fn, a, b) else static
    return None


_SAFE_OPS = frozenset([operator.add, operator.sub, operator.mul, operator.lt, operator.le,
                       operator.eq, operator.ne, operator.gt, operator.ge])
_SAFE_INT_OPS = frozenset([operator.and_, operator.or_, operator.xor])


def _cannot_raise(fn, a: Val, b: Val) -> bool:
    if a.union or b.union or not (cannot_raise(a.static) and cannot_raise(b.static)):
        return False
    ty = a.ty
    if ty != b.ty or ty.dtype.kind not in "iuf":
        return False            # (mixed types may convert a huge int to float: OverflowError)
    return fn in _SAFE_OPS or (fn in _SAFE_INT_OPS and ty.dtype.kind in "iu")


def py_call(fn, *args):
    """fn(*args) with NumPy's warnings and floating-point errors silenced
    (what the compiled code computes does not warn either). An operator on
    Python ints and floats warns about nothing: called directly (silencing
    costs ~3 us per call, paid at each call of a compiled function)."""
    if fn in _QUIET_OPS and all(type(a) in _QUIET_TYPES for a in args):
        return fn(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return fn(*args)


# operators that warn about nothing on Python ints and floats (they raise:
# ZeroDivisionError, OverflowError, ValueError); bool is not among the types
# (`~True` is deprecated: a DeprecationWarning)
_QUIET_OPS = frozenset([operator.add, operator.sub, operator.mul, operator.truediv,
                        operator.floordiv, operator.mod, operator.pow, operator.neg,
                        operator.pos, operator.abs, abs, operator.lt, operator.le, operator.eq,
                        operator.ne, operator.gt, operator.ge, operator.and_, operator.or_,
                        operator.xor, operator.lshift, operator.rshift, operator.invert, min,
                        max])
_QUIET_TYPES = (int, float)


def const2(fn, a: Val, b: Val):
    """fn(a, b) of two constants as Python/NumPy computes it, or NO_CONST
    (an operand not constant, or the operation raises)."""
    if a.is_const and b.is_const:
        try:
            return py_call(fn, a.const, b.const)
        except (ArithmeticError, ValueError, TypeError):
            return NO_CONST
    return NO_CONST


def is_int_like(t: Ty) -> bool:
    """Integer or bool (bools take part in integer arithmetic)."""
    return t.is_int() or t.is_bool()


def py_int_node(cx, v: Val, t: ir.Type) -> ir.Expr:
    """A Python int (or bool) value in Int(32)/Int(64)."""
    return cast(t, node_of(cx, v))


def wrap_range(rng, t: ir.Type):
    """An exact range if it fits the (wrapping) type, else unknown."""
    if t.is_integer() and n_within(rng, (t.min_value(), t.max_value())):
        return rng
    return (None, None)


# ---------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------
@unions.over_alternatives
def convert(cx, v: Val, ty: Ty, what: str = "") -> Val:
    """v converted to ty as NumPy converts an operand (weak Python scalars
    must fit an integer dtype: OverflowError otherwise)."""
    if v.ty == ty:
        return v
    t = ty.ir()
    n = node_of(cx, v)
    if ty.weak:
        if ty.kind == "int":
            nt = int_node_type(v.lo, v.hi)
            return Val(cast(nt, n), ty, v.lo, v.hi, v.lbs, v.ubs, v.static,
                       int(v.const) if v.is_const else NO_CONST, v.risky)
        if ty.kind == "float":
            return Val(cast(ir.Float(64), n), ty, static=conv_static(v, float),
                       const=float(v.const) if v.is_const else NO_CONST, risky=v.risky)
        return truth(cx, v)
    out = Val(cast(t, via_double(v, t, n)), ty, risky=v.risky,
              static=conv_static(v, ty.dtype.type), const=_const_as(v, ty))
    if t.is_integer() and is_int_like(v.ty):
        if v.ty.weak and v.ty.kind == "int":
            ok_range = (t.min_value(), t.max_value())
            if not n_within(v.rng, ok_range):
                if v.hi is not None and v.lo is not None and (v.hi < ok_range[0] or
                                                             v.lo > ok_range[1]):
                    cond = ir.Const(ir.Bool(), False)
                else:
                    wide = node_of(cx, v) if node_of(cx, v).type == ir.Int(64) else \
                        cast(ir.Int(64), n)
                    if t.is_uint() and t.bits == 64:
                        cond = ir.GE(wide, ir.Const(ir.Int(64), 0))
                    else:
                        cond = ir.And(ir.GE(wide, ir.Const(ir.Int(64), t.min_value())),
                                      ir.LE(wide, ir.Const(ir.Int(64), t.max_value())))
                out = cx.guard(out, cond, "OverflowError",
                               f"Python integer out of bounds for {ty.dtype.name}{what}")
                out.set_range(t.min_value(), t.max_value())
                return out
            out.set_range(v.lo, v.hi, v.lbs, v.ubs)
        else:
            r = wrap_range(v.rng, t)
            if r == v.rng:
                out.set_range(v.lo, v.hi, v.lbs, v.ubs)
            else:
                out.set_range(t.min_value(), t.max_value())
    return out


def _const_as(v: Val, ty: Ty):
    """v's constant converted to NumPy type ty, or NO_CONST (not a
    constant, or NumPy refuses the conversion)."""
    if not v.is_const:
        return NO_CONST
    try:
        return py_call(ty.dtype.type, v.const)
    except (OverflowError, ValueError):
        return NO_CONST


def conv_static(v: Val, fn):
    """The call-time function computing fn(v) (a conversion), or None."""
    if not v.is_static:
        return None
    f = v.static
    return lambda env: py_call(fn, f(env))


def via_double(v: Val, t: ir.Type, n: ir.Expr) -> ir.Expr:
    """n (the node of v) ready to cast to t: NumPy converts a Python int to a
    float type through a double (PyLong_AsDouble), which rounds differently
    from one rounding to float32 beyond 2**24."""
    if t.is_float() and t.bits < 64 and v.ty.weak and v.ty.kind == "int":
        return cast(ir.Float(64), n)
    return n


@unions.over_alternatives
def cast_to(cx, v: Val, ty: Ty) -> Val:
    """An explicit conversion (np.int32(x), x.astype(...), storing into an
    array of dtype ty): wraps / truncates as NumPy's C casts do."""
    if v.ty == ty:
        return v
    if v.ty.weak and v.ty.kind == "int" and ty.is_int():
        return convert(cx, v, ty)
    t = ty.ir()
    n = node_of(cx, v)
    if ty.kind == "int":
        return to_python_int(cx, v)
    if ty.kind == "float":
        return convert(cx, v, ty)
    if ty.kind == "bool":
        return truth(cx, v)
    node = cast(t, via_double(v, t, n))
    if t.is_integer() and n.type.is_float() and t.bits < 64:
        # NumPy's C casts go through a 32-bit (64-bit for uint32) conversion
        # and then wrap (the IR's float->int casts saturate)
        via = ir.Int(32) if t.bits < 32 else ir.Int(64)
        node = cast(t, cast(via, n))
    out = Val(node, ty, risky=v.risky, static=conv_static(v, ty.dtype.type), const=_const_as(v, ty))
    if t.is_integer() and is_int_like(v.ty):
        r = wrap_range(v.rng, t)
        if r == v.rng:
            out.set_range(v.lo, v.hi, v.lbs, v.ubs)
        else:
            out.set_range(t.min_value(), t.max_value())
    elif t.is_integer() and v.ty.is_float() and v.ty.weak:
        # Python float -> integer dtype: NaN is a ValueError, inf an OverflowError
        out = cx.guard(out, ir.Not(is_nan(n)), "ValueError", "cannot convert float NaN to integer")
        out = cx.guard(out, ir.Or(is_nan(n), ir.LT(fabs(n), ir.Const(n.type, float("inf")))),
                       "OverflowError", "cannot convert float infinity to integer")
    return out


def fabs(n: ir.Expr) -> ir.Expr:
    """|n| of a float node."""
    return ir.Call(n.type, "abs", (n,), ir.INTRINSIC)


@unions.over_alternatives
def to_python_int(cx, v: Val) -> Val:
    """int(v): exact for integers, truncation for floats (OverflowError /
    ValueError for values no int64 holds, inf and NaN)."""
    if v.ty.kind == "int":
        return v
    n = node_of(cx, v)
    static = conv_static(v, int)
    c = NO_CONST
    if v.is_const:
        try:
            c = int(v.const)
        except (OverflowError, ValueError):
            pass
    if is_int_like(v.ty):
        if v.ty.is_bool():
            return Val(cast(ir.Int(32), n), PY_INT, 0, 1, static=static, const=c, risky=v.risky)
        t = v.node.type if v.node is not None else v.ty.ir()
        if t.is_uint() and t.bits == 64:
            out = Val(cast(ir.Int(64), n), PY_INT, 0, INT64[1], static=static, const=c,
                      risky=v.risky)
            return cx.guard(out, ir.LE(n, ir.Const(t, INT64[1])), "OverflowError",
                            "Python int too large to convert to int64", limit=True)
        nt = int_node_type(v.lo, v.hi)
        return Val(cast(nt, n), PY_INT, v.lo, v.hi, v.lbs, v.ubs, static, c, v.risky)
    # float -> int: truncate; the result must fit int64
    tr = ir.Call(n.type, "trunc", (n,), ir.INTRINSIC)
    out = Val(cast(ir.Int(64), tr), PY_INT, static=static, const=c, risky=v.risky)
    out = cx.guard(out, ir.Not(is_nan(n)), "ValueError", "cannot convert float NaN to integer")
    out = cx.guard(out, ir.Or(is_nan(n), ir.LT(fabs(n), ir.Const(n.type, float("inf")))),
                   "OverflowError", "cannot convert float infinity to integer")
    lim = ir.Const(n.type, 2.0 ** 63)
    # NaN and inf pass this check (a limit of int64, not Python's: Python makes a big
    # int, so an unused value does not check it: check_order._risky)
    out = cx.guard(out, ir.Or(is_nan(n), ir.And(ir.LT(tr, lim),
                                                ir.GE(tr, ir.Const(n.type, -(2.0 ** 63))))),
                   "OverflowError", "float too large for a Python int kept in int64",
                   limit=True)
    return out
