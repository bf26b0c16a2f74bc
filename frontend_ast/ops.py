"""Operators on values with plain Python / NumPy 2 semantics, lowered to the
IR's Halide semantics by explicit casts, floor division built from Euclidean
division, exact NEP 50 conversions, and run-time checks (OverflowError for
Python ints leaving int64, ZeroDivisionError for Python scalars) wherever the
ranges cannot prove them unnecessary."""
from __future__ import annotations

import itertools
import operator

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import complex_values as C
from . import convert as _convert
from . import types as T
from . import unions
from .convert import (
    const2,
    fabs,
    is_int_like,
    py_call,
    py_int_node,
    static2,
    to_python_int,
    via_double,
    wrap_range,
)

# conversions the builder reaches through this module (ops.is_nan; ops.truth below)
from .convert import is_nan as is_nan
from .ranges import INT32, INT64, Aff, n_add, n_contains_zero, n_mul, n_neg, n_sub, n_within
from .types import PY_BOOL, PY_FLOAT, PY_INT, Ty, UnsupportedType
from .values import NO_CONST, Val, const_val, node_of


# ---------------------------------------------------------------------------
# conversions (complex values and types: complex_values)
# ---------------------------------------------------------------------------
def convert(cx, v: Val, ty: Ty, what: str = "") -> Val:
    """v converted to ty as NumPy converts an operand (convert.convert)."""
    if C.involves(v, ty):
        return C.cast(cx, v, ty)
    return _convert.convert(cx, v, ty, what)


def cast_to(cx, v: Val, ty: Ty) -> Val:
    """An explicit conversion (convert.cast_to)."""
    if C.involves(v, ty):
        return C.cast(cx, v, ty)
    return _convert.cast_to(cx, v, ty)


def truth(cx, v: Val) -> Val:
    """bool(v) (convert.truth)."""
    if C.is_complex(v):
        return C.truth(cx, v)
    return _convert.truth(cx, v)


def assumed_conjunction(cx, assumed):
    """The conjunction (bool node) of the conditions `assumed` ((cond, when)
    pairs: cond's truth, negated where when is false; constants skipped), or
    None where there is none or one's truth is not a bool node."""
    terms = []
    for c, when in assumed:
        if c is None or c.is_const:
            continue
        n = truth(cx, c).node
        if n is None or not n.type.is_bool():
            return None
        terms.append(n if when else ir.Not(n))
    return ir.conjunction(terms)


# ---------------------------------------------------------------------------
# arithmetic
# ---------------------------------------------------------------------------
_PYOP = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
         "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
         "<<": operator.lshift, ">>": operator.rshift, "&": operator.and_,
         "|": operator.or_, "^": operator.xor,
         "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
         "==": operator.eq, "!=": operator.ne}

_IROP = {"+": ir.Add, "-": ir.Sub, "*": ir.Mul, "&": ir.BitAnd, "|": ir.BitOr, "^": ir.BitXor,
         "<<": ir.Shl, ">>": ir.Shr, "<": ir.LT, "<=": ir.LE, ">": ir.GT, ">=": ir.GE,
         "==": ir.EQ, "!=": ir.NE}


def result_ty(op: str, a: Ty, b: Ty, sample: int = 1) -> Ty:
    return T.result_type(_PYOP[op], a, b, sample=sample)


@unions.over_alternatives
def binary(cx, op: str, a: Val, b: Val) -> Val:
    """a op b."""
    if C.involves(a, b):
        return C.binary(cx, op, a, b)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return compare(cx, op, a, b)
    folded = _fold(op, a, b)
    if folded is not None:
        return folded
    try:
        rt = result_ty(op, a.ty, b.ty, sample=2 if op in ("**", "<<", ">>") else 1)
    except UnsupportedType as e:
        raise cx.error(f"unsupported operand types for {op}: {a.ty.describe()} and "
                       f"{b.ty.describe()} ({e})")
    if op == "**":
        out = power(cx, a, b, rt)
    elif op in ("//", "%"):
        out = floordiv_mod(cx, op, a, b, rt)
    elif op == "/":
        out = truediv(cx, a, b, rt)
    elif rt.kind == "int":
        out = py_int_arith(cx, op, a, b)
    elif rt.kind in ("float",):
        an, bn = convert(cx, a, rt), convert(cx, b, rt)
        out = Val(_IROP[op](node_of(cx, an), node_of(cx, bn)), rt)
    elif rt.is_bool():
        an, bn = convert(cx, a, rt), convert(cx, b, rt)
        cls = {"&": ir.And, "|": ir.Or, "^": ir.NE, "+": ir.Or, "*": ir.And}.get(op)
        if cls is None:
            raise cx.error(f"unsupported operation {op} on bool values")
        out = Val(cls(node_of(cx, an), node_of(cx, bn)), rt)
    else:
        out = np_arith(cx, op, a, b, rt)
    out.risky = out.risky or a.risky or b.risky
    if out.static is None:
        out.static = static2(_PYOP[op], a, b)
    if out.const is NO_CONST:
        out.const = const2(_PYOP[op], a, b)
        if out.const is not NO_CONST:
            try:
                if T.of_value(out.const) != out.ty:
                    out.const = NO_CONST
            except UnsupportedType:
                out.const = NO_CONST
    return out


def _fold(op, a: Val, b: Val):
    """Both operands constant: Python computes it (exactly, with its errors
    deferred to run time by not folding)."""
    if not (a.is_const and b.is_const):
        return None
    c = const2(_PYOP[op], a, b)
    if c is NO_CONST:
        return None
    try:
        out = const_val(c)
    except UnsupportedType:
        return None
    if out.node is None and out.ty.kind != "int":
        return None
    return out


def tighten(cx, v: Val) -> Val:
    """Narrow the numeric range of an integer value with its affine bounds."""
    if not v.ty.is_int():
        return v
    lo, hi = v.lo, v.hi
    for u in v.ubs:
        n = cx.syms.numeric_of(u, True)
        if n is not None and (hi is None or n < hi):
            hi = n
    for l in v.lbs:
        n = cx.syms.numeric_of(l, False)
        if n is not None and (lo is None or n > lo):
            lo = n
    if (lo, hi) != (v.lo, v.hi):
        v.lo, v.hi = lo, hi
    return v


def np_arith(cx, op, a: Val, b: Val, rt: Ty) -> Val:
    an, bn = convert(cx, a, rt), convert(cx, b, rt)
    t = rt.ir()
    node = _IROP[op](node_of(cx, an), node_of(cx, bn))     # (a call-time value: its parameter)
    out = Val(node, rt, risky=an.risky or bn.risky)
    if t.is_integer():
        rng = _int_range(op, an, bn)
        if rng is not None:
            rng = wrap_range(rng, t)
            if rng[0] is not None:
                lbs, ubs = _aff_bounds(op, an, bn)
                out.set_range(rng[0], rng[1], lbs, ubs)
    return out


def _int_range(op, a: Val, b: Val):
    if op == "+":
        return n_add(a.rng, b.rng)
    if op == "-":
        return n_sub(a.rng, b.rng)
    if op == "*":
        return n_mul(a.rng, b.rng)
    if op == "&":
        if a.lo is not None and a.lo >= 0 and a.hi is not None:
            return (0, a.hi if b.lo is None or b.lo < 0 else min(a.hi, b.hi if b.hi is not None else a.hi))
        if b.lo is not None and b.lo >= 0 and b.hi is not None:
            return (0, b.hi)
        return (None, None)
    if op in ("|", "^"):
        if a.lo is not None and b.lo is not None and a.lo >= 0 and b.lo >= 0 and \
                a.hi is not None and b.hi is not None:
            m = max(a.hi, b.hi)
            return (0, (1 << m.bit_length()) - 1)
        return (None, None)
    if op == "<<":
        if b.lo is not None and b.hi is not None and b.lo >= 0 and b.hi < 64 and \
                a.lo is not None and a.hi is not None:
            c = [a.lo << b.lo, a.lo << b.hi, a.hi << b.lo, a.hi << b.hi]
            return (min(c), max(c))
        return (None, None)
    if op == ">>":
        if b.lo is not None and b.lo >= 0 and a.lo is not None and a.hi is not None:
            c = [a.lo >> b.lo, a.hi >> b.lo, a.lo >> 63, a.hi >> 63] if b.hi is None else \
                [a.lo >> b.lo, a.lo >> b.hi, a.hi >> b.lo, a.hi >> b.hi]
            return (min(c), max(c))
        return (None, None)
    return (None, None)


def _aff_bounds(op, a: Val, b: Val):
    lim = 6
    if op == "+":
        return ([x + y for x in a.lbs for y in b.lbs][:lim], [x + y for x in a.ubs for y in b.ubs][:lim])
    if op == "-":
        return ([x - y for x in a.lbs for y in b.ubs][:lim], [x - y for x in a.ubs for y in b.lbs][:lim])
    if op == "*":
        for x, y in ((a, b), (b, a)):
            # (a constant's range may be wider than its value: `(1 < 2)` is True
            # with the range [0, 1] of a bool)
            if y.is_const and isinstance(y.const, int):
                k = int(y.const)
            elif y.lo is not None and y.lo == y.hi:
                k = int(y.lo)
            else:
                continue
            if k >= 0:
                return ([l.scale(k) for l in x.lbs], [u.scale(k) for u in x.ubs])
            return ([u.scale(k) for u in x.ubs], [l.scale(k) for l in x.lbs])
    return ([], [])


def py_int_arith(cx, op, a: Val, b: Val) -> Val:
    """Python-int + - * & | ^ << >>: exact while int64 holds the value,
    OverflowError when it would not."""
    a = cx.limits_before(a, b)
    fits = None
    if op in ("<<", ">>"):
        b, fits = cx.huge_shift_count(a, b, op)
    if op in ("<<", ">>") and not (b.lo is not None and b.lo >= 0):
        nb = node_of(cx, b)
        b = cx.guard(b, ir.GE(nb, ir.Const(nb.type, 0)), "ValueError", "negative shift count",
                     after=node_of(cx, a))
        a = cx.limits_before(a, b)
    rng = _int_range(op, a, b)
    lbs, ubs = _aff_bounds(op, a, b)
    if not n_within(rng, INT32) and (lbs or ubs):
        probe = tighten(cx, Val(None, PY_INT, rng[0], rng[1], lbs, ubs))
        rng = (probe.lo, probe.hi)
    an, bn = node_of(cx, a), node_of(cx, b)
    if n_within(rng, INT32) and an.type.bits <= 32 and bn.type.bits <= 32 and \
            n_within(a.rng, INT32) and n_within(b.rng, INT32):
        t = ir.Int(32)
    else:
        t = ir.Int(64)
    x, y = cast(t, an), cast(t, bn)
    node = _IROP[op](x, y)
    if op == "+":
        # (a loop bound that is a sum of max/min terms, a merged loop's
        # extents, has the sum of their hulls: loops.hull_checked_bound)
        cx.sum_parts[id(node)] = (node, a, b)
    if n_within(rng, INT64):
        # (risky: the shift count's check may be in the node)
        return Val(node, PY_INT, rng[0], rng[1], lbs, ubs, risky=b.risky)
    if a.is_static and b.is_static:
        # computed exactly at call time (a static parameter when IR needs it)
        return Val(None, PY_INT, rng[0], rng[1], lbs, ubs, static=static2(_PYOP[op], a, b),
                   risky=b.risky)
    # no numeric range (int64 may not hold the result); the affine bounds
    # hold where the overflow check below passes (the value is then exact):
    # a loop over range(i + lo, ...) with lo a Python int argument has a hull
    out = Val(node, PY_INT, None, None, lbs, ubs, risky=b.risky)
    if fits is not None:
        out = cx.guard(out, fits, "OverflowError", "too many digits in integer", after=an)
    ok = _overflow_ok(op, x, y, node)
    if ok is None:
        return out
    return cx.guard(out, ok, "OverflowError", f"Python int result of {op} does not fit in int64",
                    limit=True)


def _overflow_ok(op, x, y, r):
    """A bool node: the int64 operation did not overflow."""
    zero = ir.Const(ir.Int(64), 0)
    if op == "+":
        return ir.GE(ir.BitAnd(ir.BitXor(x, r), ir.BitXor(y, r)), zero)
    if op == "-":
        return ir.GE(ir.BitAnd(ir.BitXor(x, y), ir.BitXor(x, r)), zero)
    if op == "*":
        mn = ir.Const(ir.Int(64), INT64[0])
        m1 = ir.Const(ir.Int(64), -1)
        exact = ir.Or(ir.EQ(x, zero), ir.EQ(ir.Div(r, x), y))
        bad = ir.Or(ir.And(ir.EQ(x, m1), ir.EQ(y, mn)), ir.And(ir.EQ(y, m1), ir.EQ(x, mn)))
        return ir.And(exact, ir.Not(bad))
    if op == "<<":
        back = ir.Shr(r, y)
        return ir.And(ir.EQ(back, x), ir.LT(y, ir.Const(ir.Int(64), 64)))
    return None


def truediv(cx, a: Val, b: Val, rt: Ty) -> Val:
    an, bn = convert(cx, a, rt), convert(cx, b, rt)
    if _inexact_int_division(a, b):
        # Python's int / int is the exact quotient rounded once; float(a) / float(b)
        # rounds three times where |a| or |b| passes 2**53
        args = tuple(cast(ir.Int(64), node_of(cx, v)) for v in (a, b))
        out = Val(ir.Call(ir.Float(64), "int_true_divide", args, ir.INTRINSIC), rt)
    else:
        out = Val(ir.Div(node_of(cx, an), node_of(cx, bn)), rt)
    if a.ty.weak and b.ty.weak:
        out = _zero_div_check(cx, out, b, node_of(cx, bn), "division by zero")
    return out


def _inexact_int_division(a: Val, b: Val) -> bool:
    """a / b of two Python ints not both known to lie within +-2**53 (where
    their conversions to float64 are exact)."""
    if a.ty not in (PY_INT, PY_BOOL) or b.ty not in (PY_INT, PY_BOOL):
        return False
    exact = (-(1 << 53), 1 << 53)
    return not (n_within(a.rng, exact) and n_within(b.rng, exact))


def _zero_div_check(cx, out: Val, b: Val, bn, msg) -> Val:
    if is_int_like(b.ty) and not n_contains_zero(b.rng):
        return out
    if b.is_const and b.const != 0:
        return out
    return cx.guard(out, ir.NE(bn, ir.Const(bn.type, 0)), "ZeroDivisionError", msg)


def floordiv_mod(cx, op, a: Val, b: Val, rt: Ty) -> Val:
    both_weak = a.ty.weak and b.ty.weak
    if rt.is_float():
        an, bn = convert(cx, a, rt), convert(cx, b, rt)
        x, y = node_of(cx, an), node_of(cx, bn)
        out = Val(float_divmod(x, y)[0 if op == "//" else 1], rt)
        if both_weak:
            out = _zero_div_check(cx, out, b, y, "float floor division by zero" if op == "//"
                                  else "float modulo")
        return out
    if rt.kind == "int":
        a = cx.limits_before(a, b)
        rng = _floordiv_range(op, a, b)
        big = not (n_within(a.rng, INT32) and n_within(b.rng, INT32) and n_within(rng, INT32))
        t = ir.Int(64) if big else ir.Int(32)
        x, y = py_int_node(cx, a, t), py_int_node(cx, b, t)
    else:
        an, bn = convert(cx, a, rt), convert(cx, b, rt)
        x, y = node_of(cx, an), node_of(cx, bn)
        t = rt.ir()
        rng = _floordiv_range(op, an, bn)
    q, m = ir.Div(x, y), ir.Mod(x, y)
    # a divisor known to be positive, or a Python int known not to be
    # negative (zero raises: _zero_div_check): IR's Euclidean Div/Mod are
    # Python's and NumPy's floor division and modulo
    b_pos = b.lo is not None and (b.lo > 0 or b.lo == 0 and rt.kind == "int")
    if b_pos or t.is_uint():
        node = q if op == "//" else m
    else:
        zero = ir.Const(t, 0)
        adjust = ir.And(ir.LT(y, zero), ir.NE(m, zero))
        if op == "//":
            node = ir.Select(adjust, ir.Sub(q, ir.Const(t, 1)), q)
        else:
            node = ir.Select(adjust, ir.Add(m, y), m)
    out = Val(node, rt)
    if t.is_integer():
        r = wrap_range(rng, t) if rt.kind != "int" else rng
        if r[0] is not None:
            out.set_range(r[0], r[1])
    if rt.kind == "int":
        if not n_within(rng, INT64):
            mn = ir.Const(t, INT64[0])
            ok = ir.Not(ir.And(ir.EQ(x, mn), ir.EQ(y, ir.Const(t, -1))))
            out = cx.guard(out, ok, "OverflowError", "Python int floor division overflows int64",
                           limit=True)
        out = _zero_div_check(cx, out, b, y, "integer division or modulo by zero")
    return out


def float_divmod(x, y):
    """(x // y, x % y) of floats as NumPy's npy_divmod and Python's float
    divmod compute them: from C fmod, the quotient snapped to an integer,
    the signs of zero results from the operands; a zero divisor gives x / y
    and fmod's NaN (Python raises before: _zero_div_check)."""
    t = x.type

    def c(v):
        return ir.Const(t, v)

    def call(name, *args):
        return ir.Call(t, name, args, ir.INTRINSIC)

    mod0 = call("fmod", x, y)
    div0 = ir.Div(ir.Sub(x, mod0), y)
    nonzero_mod = ir.NE(mod0, c(0.0))             # true for NaN, as C's `if (mod)`
    adjust = ir.And(nonzero_mod, ir.NE(ir.LT(y, c(0.0)), ir.LT(mod0, c(0.0))))
    mod = ir.Select(adjust, ir.Add(mod0, y),
                    ir.Select(nonzero_mod, mod0, call("copysign", c(0.0), y)))
    div = ir.Select(adjust, ir.Sub(div0, c(1.0)), div0)
    fl = call("floor", div)
    snapped = ir.Select(ir.GT(ir.Sub(div, fl), c(0.5)), ir.Add(fl, c(1.0)), fl)
    floordiv = ir.Select(ir.NE(div, c(0.0)), snapped, call("copysign", c(0.0), ir.Div(x, y)))
    zero_divisor = ir.EQ(y, c(0.0))
    return (ir.Select(zero_divisor, ir.Div(x, y), floordiv),
            ir.Select(zero_divisor, mod0, mod))


def _floordiv_range(op, a: Val, b: Val):
    if b.lo is not None and b.lo == b.hi and b.lo > 0:
        k = b.lo
        if op == "%":
            return (0, k - 1)
        if a.lo is not None and a.hi is not None:
            return (a.lo // k, a.hi // k)
        return (None, None)
    if op == "%":
        if b.lo is not None and b.hi is not None:
            m = max(abs(b.lo), abs(b.hi))
            lo = 0 if b.lo >= 0 else -(m - 1)
            hi = 0 if b.hi <= 0 else m - 1
            return (lo, hi)
        return (None, None)
    if a.lo is not None and a.hi is not None:
        m = max(abs(a.lo), abs(a.hi))
        return (-m, m)
    return (None, None)


def power(cx, a: Val, b: Val, rt: Ty) -> Val:
    if rt.is_float():
        x, y = node_of(cx, convert(cx, a, rt)), node_of(cx, convert(cx, b, rt))
        if b.is_const and b.const == 2:
            out = Val(ir.Mul(x, x), rt)
        else:
            out = Val(ir.Call(rt.ir(), "pow", (x, y), ir.INTRINSIC), rt)
        if a.ty.weak and b.ty.weak:
            out = _python_float_power_checks(cx, x, y, out)
        return out
    if not b.is_const or not isinstance(b.const, (int,)) and not hasattr(b.const, "__index__"):
        if a.is_static and b.is_static:
            return _static_power(cx, a, b, rt)
        if rt.kind != "int":
            return _int_power(cx, a, b, rt)
        if b.lo is not None and b.lo >= 0:
            return _int_power(cx, a, b, rt, checked=True)
        raise cx.error("an integer power needs a constant exponent or one known not to be "
                       "negative", hint="write the exponent as a literal, or use floats "
                                        "(float(x) ** y)")
    k = int(b.const)
    if k < 0:
        if rt.kind == "int":      # Python gives a float: handled by result_ty (sample 2)
            raise cx.error("negative integer exponent")
        return cx.guard(Val(ir.Const(rt.ir(), 0), rt), ir.Const(ir.Bool(), False), "ValueError",
                        "Integers to negative integer powers are not allowed.")
    if k > 64:
        if a.is_static:
            return Val(None, rt, static=static2(operator.pow, a, b))
        raise cx.error("integer exponent too large", hint="use a float exponent")
    result = convert(cx, const_val(1), rt) if rt.kind != "int" else const_val(1)
    base = to_python_int(cx, a) if rt.kind == "int" else convert(cx, a, rt)   # (bool: int)
    first = True
    for bit in bin(k)[2:]:
        if not first:
            result = binary(cx, "*", result, result)
        if bit == "1":
            result = base if first else binary(cx, "*", result, base)
            first = False
    if k == 0:
        result = convert(cx, const_val(1), rt) if rt.kind != "int" else const_val(1)
    return result


def _python_float_power_checks(cx, x, y, out: Val) -> Val:
    """out = x ** y of Python numbers (float64 nodes x, y), with the outcomes of
    CPython's float_pow that are not a float: ZeroDivisionError for 0.0 to a
    negative power; a negative finite base to a finite non-integral power is
    a complex number in Python (NotImplementedError here: a limit of the
    compiled code, whose value is a float); OverflowError where finite
    operands give an infinite result (`10.0 ** 400`, `1e200 ** 2`)."""
    t = x.type

    def c(v):
        return ir.Const(t, v)

    def finite(n):
        return ir.LT(ir.Call(t, "abs", (n,), ir.INTRINSIC), c(float("inf")))
    zero = c(0.0)
    ok = ir.Not(ir.And(ir.EQ(x, zero), ir.LT(y, zero)))
    out = cx.guard(out, ok, "ZeroDivisionError", "0.0 cannot be raised to a negative power")
    fraction = ir.NE(y, ir.Call(t, "floor", (y,), ir.INTRINSIC))
    complex_ = ir.And(ir.And(ir.LT(x, zero), finite(x)), ir.And(finite(y), fraction))
    out = cx.guard(out, ir.Not(complex_), "NotImplementedError",
                   "a negative float to a fractional power is a complex number in Python, "
                   "not supported here", limit=True)
    overflow = ir.And(ir.Not(finite(out.node)),
                      ir.And(ir.And(finite(x), finite(y)), ir.NE(x, zero)))
    return cx.guard(out, ir.Not(overflow), "OverflowError",
                    "(34, 'Numerical result out of range')")


def _static_power(cx, a: Val, b: Val, rt: Ty) -> Val:
    """a ** b of call-time values in Python: of Python ints, a float where the
    exponent is negative (`2 ** k` is 0.5 at k = -1): a value of two types
    unless b is known not to be negative."""
    fn = static2(operator.pow, a, b)
    if rt != PY_INT or b.lo is not None and b.lo >= 0:
        return Val(None, rt, static=fn)
    neg = compare(cx, "<", b, const_val(0))
    as_float = Val(None, PY_FLOAT, static=fn, risky=True)   # (0 ** -1: ZeroDivisionError)
    node_of(cx, as_float)       # (float operations take their operands' nodes)
    return unions.make_union(cx, [(neg, as_float), (None, Val(None, rt, static=fn))])


def _int_power(cx, a: Val, b: Val, rt: Ty, checked: bool = False) -> Val:
    """a ** b for a NumPy integer dtype rt and an exponent known at run
    time: NumPy's loop (square and multiply over the exponent's bits,
    wrapping; a negative exponent is its ValueError), the intrinsic
    int_power (a loop in the LLVM code: codegen_int_power.py). `checked`:
    Python ints (rt the Python int type, b known not negative) in int64,
    OverflowError where a product the result needs leaves int64 (a square
    of a bit above the exponent's highest is not needed): square and
    multiply unrolled for an exponent bound up to _CHECKED_CAP, else the
    intrinsics int_power_checked and int_power_fits (a loop, with LLVM's
    multiply-overflow flag)."""
    if not checked:
        t = rt.ir()
        x, e = node_of(cx, convert(cx, a, rt)), node_of(cx, convert(cx, b, rt))
        return _power_of_sign(cx, Val(ir.Call(t, "int_power", (x, e), ir.INTRINSIC), rt,
                                      risky=a.risky or b.risky), b, e, t, rt.dtype.kind == "i")
    t = ir.Int(64)
    x, e = cast(t, node_of(cx, a)), cast(t, node_of(cx, b))
    hi = b.hi if b.hi is not None and b.hi >= 0 else t.max_value()
    if hi > _CHECKED_CAP:
        # an exponent without a small bound: a loop over its bits in the LLVM code
        # (codegen_int_power.checked_power), the value and whether it fits in int64
        value = ir.Call(t, "int_power_checked", (x, e), ir.INTRINSIC)
        fits = ir.Call(ir.Bool(), "int_power_fits", (x, e), ir.INTRINSIC)
        node = cx.guard(Val(value, rt), fits, "OverflowError",
                        "Python int result of ** does not fit in int64", limit=True).node
        return _power_of_sign(cx, Val(node, rt, risky=a.risky or b.risky), b, e, t, True)
    steps = max(1, min(int(hi), t.max_value()).bit_length())
    names = [f"pow{next(_POW_IDS)}_{k}" for k in range(2 * steps + 1)]
    var = [ir.Variable(t, n, "let") for n in names]      # (not pure Vars of a definition)
    one = ir.Const(t, 1)

    def bit(k):
        return ir.NE(ir.BitAnd(var[0], ir.Const(t, 1 << k)), ir.Const(t, 0))
    # var[0] = e; var[2k+1] = x ** (2 ** k); var[2k+2] = the product of the bits up to k
    lets = [(names[0], e), (names[1], x), (names[2], ir.Select(bit(0), var[1], one))]
    for k in range(1, steps):
        sq = ir.Mul(var[2 * k - 1], var[2 * k - 1])
        lets.append((names[2 * k + 1], sq))
        lets.append((names[2 * k + 2], ir.Select(bit(k), ir.Mul(var[2 * k], var[2 * k + 1]),
                                                 var[2 * k])))
    def in_lets(e):
        for n, v in reversed(lets):
            e = ir.Let(n, v, e)
        return e
    # the check holds its own lets: moved out of the value (checks.strip), it
    # names no variable out of their scope
    node = cx.guard(Val(in_lets(var[2 * steps]), rt), in_lets(_power_fits(var, bit, steps)),
                    "OverflowError", "Python int result of ** does not fit in int64",
                    limit=True).node
    return _power_of_sign(cx, Val(node, rt, risky=a.risky or b.risky), b, e, t, True)


def _power_of_sign(cx, out: Val, b: Val, e, t, signed: bool) -> Val:
    """_int_power's `out`, with NumPy's ValueError where a signed exponent
    `e` (b's node in t) may be negative."""
    if signed and not (b.lo is not None and b.lo >= 0):
        out = cx.guard(out, ir.GE(e, ir.Const(t, 0)), "ValueError",
                       "Integers to negative integer powers are not allowed.")
    return out


def _power_fits(var, bit, steps):
    """_int_power's products and squares did not overflow int64 where the
    result needs them: the product at bit k where the bit is set, the square
    x ** (2 ** k) where the exponent has a bit at k or above."""
    t = ir.Int(64)
    ok = ir.Const(ir.Bool(), True)
    for k in range(1, steps):
        sq_in = var[2 * k - 1]      # (s * s fits in int64 exactly where |s| <= _SQRT_MAX)
        square_ok = ir.And(ir.GE(sq_in, ir.Const(t, -_SQRT_MAX)),
                           ir.LE(sq_in, ir.Const(t, _SQRT_MAX)))
        needed = ir.NE(ir.Shr(var[0], ir.Const(t, k)), ir.Const(t, 0))
        ok = ir.And(ok, ir.Or(ir.Not(needed), square_ok))
        prod_ok = _overflow_ok("*", var[2 * k], var[2 * k + 1],
                               ir.Mul(var[2 * k], var[2 * k + 1]))
        ok = ir.And(ok, ir.Or(ir.Not(bit(k)), prod_ok))
    return ok


_POW_IDS = itertools.count()
_SQRT_MAX = 3037000499  # (isqrt(2 ** 63 - 1))
_CHECKED_CAP = 65        # (_int_power: the largest exponent bound a checked power unrolls)


# ---------------------------------------------------------------------------
# comparisons
# ---------------------------------------------------------------------------
@unions.over_alternatives
def compare(cx, op: str, a: Val, b: Val, facts=None) -> Val:
    """a op b for a comparison op; `facts`: the result's (Val.facts)."""
    if C.involves(a, b):
        return C.compare(cx, op, a, b)
    try:
        rt = result_ty(op, a.ty, b.ty)
    except UnsupportedType as e:
        raise cx.error(f"cannot compare {a.ty.describe()} with {b.ty.describe()} ({e})")
    mixed = _uint64_signed(cx, op, a, b)
    if mixed is not None:
        return Val(mixed, rt, risky=a.risky or b.risky, static=static2(_PYOP[op], a, b),
                   const=const2(_PYOP[op], a, b), facts=facts)
    exact = _python_int_float(cx, op, a, b)
    if exact is not None:
        return Val(exact, rt, risky=a.risky or b.risky, static=static2(_PYOP[op], a, b),
                   const=const2(_PYOP[op], a, b), facts=facts)
    cmp_ty = _compare_type(cx, a, b)
    an, bn = _compare_operand(cx, a, cmp_ty), _compare_operand(cx, b, cmp_ty)
    if cmp_ty.is_bool() and op in ("<", "<=", ">", ">="):
        an, bn = cast(ir.UInt(8), an), cast(ir.UInt(8), bn)
    node = _IROP[op](an, bn)
    return Val(node, rt, risky=a.risky or b.risky, static=static2(_PYOP[op], a, b),
               const=const2(_PYOP[op], a, b), facts=facts)


def _uint64_signed(cx, op, a: Val, b: Val):
    """a op b exactly where one operand is a uint64 and the other a signed
    integer that may be negative (NumPy 2 compares these exactly; neither
    type holds both): a negative signed value decides the result by its
    sign, else both compare as uint64. None for other operand types."""
    def unsigned64(t):
        return not t.weak and t.is_int() and not t.is_bool() and t.ir().is_uint() and \
            t.ir().bits == 64

    def signed(v):
        t = v.ty
        return is_int_like(t) and not t.is_bool() and (t.weak or not t.ir().is_uint()) and \
            (v.lo is None or v.lo < 0)

    if unsigned64(a.ty) and signed(b):
        s, flipped = b, False
    elif unsigned64(b.ty) and signed(a):
        s, flipped = a, True
    else:
        return None
    u64 = ir.UInt(64)
    an, bn = cast(u64, node_of(cx, a)), cast(u64, node_of(cx, b))
    sn = node_of(cx, s)
    if s.ty.weak:
        sn = py_int_node(cx, s, ir.Int(64))
    negative = ir.LT(sn, ir.Const(sn.type, 0))
    # the unsigned operand is greater than a negative one
    unsigned_greater = {"<": False, "<=": False, ">": True, ">=": True, "==": False,
                        "!=": True}[op] if not flipped else \
        {"<": True, "<=": True, ">": False, ">=": False, "==": False, "!=": True}[op]
    return ir.Select(negative, ir.Const(ir.Bool(), unsigned_greater), _IROP[op](an, bn))


def _compare_type(cx, a: Val, b: Val) -> ir.Type:
    ta, tb = a.ty, b.ty
    if is_int_like(ta) and is_int_like(tb):
        if ta.is_bool() and tb.is_bool():
            return ir.Bool()
        # exact comparison of integers (NumPy 2 compares Python ints exactly)
        if ta.weak or tb.weak:
            strong = tb if ta.weak else ta
            weak_v = a if ta.weak else b
            if strong.weak:
                return ir.Int(64) if not (n_within(a.rng, INT32) and n_within(b.rng, INT32)) \
                    else ir.Int(32)
            st = strong.ir()
            if n_within(weak_v.rng, (st.min_value(), st.max_value())) and not st.is_bool():
                return st
            if st.is_uint() and st.bits == 64:
                return st
            return ir.Int(64)
        return T.promote(ta, tb).ir() if T.promote(ta, tb).is_int() else ir.Float(64)
    pt = T.promote(ta, tb)
    return pt.ir()


def _compare_operand(cx, v: Val, t: ir.Type) -> ir.Expr:
    n = node_of(cx, v)
    return cast(t, via_double(v, t, n))


def _python_int_float(cx, op, a: Val, b: Val):
    """a op b exactly where one operand is a Python int and the other a Python
    float (Python compares their values, not the int rounded to a double);
    None for other operand types. With f the float and i the int, fi =
    float(i): fi < f implies i < f and fi > f implies i > f (rounding to
    nearest cannot step over a double); where fi == f, f is an integer of at
    most 2**63 and i compares with int(f), f == 2**63 being above every int64."""
    def kinds(x, y):
        return x.ty.weak and x.ty.kind == "int" and y.ty.weak and y.ty.kind == "float"
    if kinds(a, b):
        i, f, op = a, b, op
    elif kinds(b, a):
        i, f, op = b, a, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
    else:
        return None
    i64, f64 = ir.Int(64), ir.Float(64)
    iv, fv = cast(i64, node_of(cx, i)), cast(f64, node_of(cx, f))
    fi = cast(f64, iv)
    top = ir.GE(fv, ir.Const(f64, 2.0 ** 63))
    fint = cast(i64, ir.Select(top, ir.Const(f64, 0.0), fv))
    same = ir.EQ(fi, fv)
    if op in ("==", "!="):
        eq = ir.And(same, ir.And(ir.Not(top), ir.EQ(iv, fint)))
        return eq if op == "==" else ir.Not(eq)
    ints = {"<": ir.LT, "<=": ir.LE, ">": ir.GT, ">=": ir.GE}[op](iv, fint)
    if op in ("<", "<="):
        return ir.Or(ir.LT(fi, fv), ir.And(same, ir.Or(top, ints)))
    return ir.Or(ir.GT(fi, fv), ir.And(same, ir.And(ir.Not(top), ints)))


# ---------------------------------------------------------------------------
# unary operators and small functions
# ---------------------------------------------------------------------------
def _fold1(fn, v: Val):
    if not v.is_const:
        return None
    try:
        c = py_call(fn, v.const)
        out = const_val(c)
    except (ArithmeticError, ValueError, TypeError, UnsupportedType):
        return None
    if out.node is None and out.ty.kind != "int":
        return None
    return out


@unions.over_alternatives
def negate(cx, v: Val) -> Val:
    if C.is_complex(v):
        return C.negate(cx, v)
    f = _fold1(operator.neg, v)
    if f is not None:
        return f
    ty = v.ty
    if ty.is_bool():
        if not ty.weak:
            raise cx.error("the - operator is not supported on numpy.bool_",
                           hint="use `not x` or `~x`")
        v = to_python_int(cx, v)
        ty = PY_INT
    n = node_of(cx, v)
    static = (lambda env, f=v.static: py_call(operator.neg, f(env))) if v.is_static else None
    c = py_call(operator.neg, v.const) if v.is_const else NO_CONST
    if ty.is_float():
        return Val(ir.Mul(n, ir.Const(n.type, -1.0)), ty, static=static, const=c, risky=v.risky)
    rng = n_neg(v.rng)
    lbs, ubs = [u.scale(-1) for u in v.ubs], [l.scale(-1) for l in v.lbs]
    if ty.kind == "int":
        t = n.type if n_within(rng, INT32) and n.type.bits == 32 else ir.Int(64)
        x = cast(t, n)
        out = Val(ir.Sub(ir.Const(t, 0), x), ty, rng[0], rng[1], lbs, ubs, static, c, v.risky)
        if not n_within(rng, INT64):
            out.set_range(None, None)
            out = cx.guard(out, ir.NE(x, ir.Const(t, INT64[0])), "OverflowError",
                           "Python int negation overflows int64", limit=True)
            # past the guard -x is in [-max, max] and keeps x's affine bounds
            # negated (range(-i, -n, -1) is bounded through -n)
            out.set_range(-INT64[1], INT64[1], lbs, ubs)
        return out
    t = ty.ir()
    out = Val(ir.Sub(ir.Const(t, 0), n), ty, static=static, const=c, risky=v.risky)
    r = wrap_range(rng, t)
    if r[0] is not None:
        out.set_range(r[0], r[1], lbs, ubs)
    return out


@unions.over_alternatives
def invert(cx, v: Val) -> Val:
    f = _fold1(operator.invert, v)
    if f is not None:
        return f
    n = node_of(cx, v)
    static = (lambda env, f=v.static: py_call(operator.invert, f(env))) if v.is_static else None
    if v.ty.is_bool() and not v.ty.weak:
        return Val(ir.Not(n), v.ty, static=static, risky=v.risky)
    if v.ty.is_float():
        raise cx.error("bad operand type for unary ~: float")
    if v.ty.is_bool():
        v = to_python_int(cx, v)
        n = node_of(cx, v)
    rng = n_sub(n_neg(v.rng), (1, 1))
    if v.ty.kind == "int":
        t = n.type if n_within(rng, INT32) else ir.Int(64)
        return Val(ir.BitNot(cast(t, n)), PY_INT, rng[0], rng[1], static=static, risky=v.risky)
    out = Val(ir.BitNot(n), v.ty, static=static, risky=v.risky)
    return out


@unions.over_alternatives
def absolute(cx, v: Val, numpy_style: bool = False) -> Val:
    """abs(v) / np.abs(v)."""
    if C.is_complex(v):
        return C.absolute(cx, v, ufunc=numpy_style)
    f = _fold1(abs, v)
    if f is not None:
        return f
    ty = v.ty
    static = (lambda env, f=v.static: py_call(abs, f(env))) if v.is_static else None
    if ty.is_bool():
        if ty.weak:
            return to_python_int(cx, v)
        return v
    n = node_of(cx, v)
    if ty.is_float():
        return Val(fabs(n), ty, static=static, risky=v.risky)
    lo, hi = v.rng
    if lo is not None and lo >= 0:
        return v
    if lo is not None and hi is not None:
        m = max(abs(lo), abs(hi))
        rng = (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), m)
    else:
        rng = (0, None)
    if ty.kind == "int":
        t = n.type if n_within(rng, INT32) and n.type.bits == 32 else ir.Int(64)
        x = cast(t, n)
        node = ir.Select(ir.LT(x, ir.Const(t, 0)), ir.Sub(ir.Const(t, 0), x), x)
        out = Val(node, ty, rng[0], rng[1], static=static, risky=v.risky)
        # abs(v) = max(v, -v): bounded by both forms where they compare
        # (abs(N - 2 * i) <= N over i in range(N))
        ubs = unions.merge_bounds(v.ubs, [l.scale(-1) for l in v.lbs], True, cx.syms)
        if ubs:
            out.set_range(out.lo, out.hi, [Aff.const(out.lo)], ubs)
        if not n_within(rng, INT64):
            out.set_range(0, None)
            out = cx.guard(out, ir.NE(x, ir.Const(t, INT64[0])), "OverflowError",
                           "abs() of a Python int overflows int64")
        return out
    t = ty.ir()
    if t.is_uint():
        return v
    node = cast(t, ir.Call(ir.UInt(t.bits), "abs", (n,), ir.INTRINSIC))
    out = Val(node, ty, static=static, risky=v.risky)
    r = wrap_range(rng, t)
    if r[0] is not None:
        out.set_range(r[0], r[1])
    return out


def select(cx, cond: Val, a: Val, b: Val, lazy=None) -> Val:
    """`a if cond else b` (cond a bool Val). Branches that may raise at run
    time (checked reads, overflow checks) are evaluated lazily; values of
    different types make a union (the type of the one chosen at run time)."""
    if cond.is_const:
        return a if cond.const else b
    if a.union or b.union or a.ty != b.ty:
        return unions.make_union(cx, [(cond, a), (unions.negate(cx, cond), b)])
    if C.is_complex(a):
        return C.select(cx, cond, a, b, lazy)
    return unions.choose(cx, cond, a, b, lazy)


@unions.over_alternatives
def convert_for_merge(cx, v: Val, ty: Ty) -> Val:
    """v as ty where two values of different types meet (branches, loop
    state): NumPy's conversion (Python scalars are weak)."""
    if v.ty == ty:
        return v
    if v.ty.weak:
        return convert(cx, v, ty)
    return cast_to(cx, v, ty)
