"""math.* on scalars with Python's meaning: float results (math.floor,
ceil and trunc give ints), and the errors CPython's math module raises
instead of returning a NaN or an infinity it did not get as input:
ValueError("math domain error") where the result is NaN from non-NaN
arguments (sqrt(-1), log(0), sin(inf), fmod(x, 0), pow(-1, 0.5)),
OverflowError("math range error") where a finite argument overflows
(exp(1000), pow(10, 400)). Registered as call handlers (array_calls)."""
from __future__ import annotations

import math

import numpy as np

from pyhalide import ir

from . import complex_values as C
from . import ops, unions
from .array_calls import function
from .calls import np_unary
from .types import PY_BOOL, PY_FLOAT
from .values import Val, const_val

_UNARY = {math.sqrt: "sqrt", math.exp: "exp", math.log: "log", math.sin: "sin",
          math.cos: "cos", math.tan: "tan", math.asin: "asin", math.acos: "acos",
          math.atan: "atan", math.sinh: "sinh", math.cosh: "cosh", math.tanh: "tanh",
          math.fabs: "abs", math.expm1: "expm1", math.log1p: "log1p"}
_OVERFLOWS = {"exp", "sinh", "cosh", "expm1"}   # an infinity from a finite x: OverflowError
_TO_INT = {math.floor: "floor", math.ceil: "ceil", math.trunc: "trunc"}
_TESTS = {math.isnan: "is_nan", math.isinf: "is_inf", math.isfinite: "is_finite"}
_LOGS = {math.log2: (np.log2, 2.0), math.log10: (np.log10, 10.0)}
_BINARY = {math.pow: "pow", math.atan2: "atan2", math.copysign: "copysign",
           math.fmod: "fmod", math.hypot: "hypot"}
_DEG = 180.0 / math.pi          # CPython's radToDeg and degToRad
_RAD = math.pi / 180.0


def _f(v) -> ir.Expr:
    return ir.Const(ir.Float(64), v)


def _call(name, *args) -> ir.Expr:
    return ir.Call(ir.Float(64), name, tuple(args), ir.INTRINSIC)


def _nan(n):
    return ir.Call(ir.Bool(), "is_nan", (n,), ir.INTRINSIC)


def _inf(n):
    return ir.Call(ir.Bool(), "is_inf", (n,), ir.INTRINSIC)


def _pos(b, node, lo, hi) -> list:
    """The evaluated positional arguments of a call of a math function."""
    if not lo <= len(node.args) <= hi or node.keywords:
        raise b.cx.err(node, f"expected {lo}{'' if lo == hi else f' to {hi}'} "
                             f"positional argument(s), got {len(node.args)}")
    return [b.ev(a) for a in node.args]


def _scalar(b, v, where) -> Val:
    if isinstance(v, Val):
        return v
    raise b.cx.err(where, f"expected a number, got {b.describe_obj(v)}", hint=b.obj_hint(v))


def _float_arg(b, v, where) -> Val:
    v = _scalar(b, v, where)
    return unions.distribute(b.cx, lambda x: ops.convert(b.cx, x, PY_FLOAT)
                             if x.ty != PY_FLOAT else x, v)


def _failures(out: ir.Expr, args):
    """(domain error, range error) conditions of CPython's math functions:
    a NaN from non-NaN arguments, an infinity from finite ones."""
    any_nan = ir.Or(*[_nan(a) for a in args]) if len(args) == 2 else _nan(args[0])
    finite = ir.Not(_inf(args[0])) if len(args) == 1 else \
        ir.And(ir.Not(_inf(args[0])), ir.Not(_inf(args[1])))
    return ir.And(_nan(out), ir.Not(any_nan)), ir.And(_inf(out), finite)


def _checked(cx, out: ir.Expr, args, risky, overflow: bool) -> Val:
    """out (a float64 node of float64 args) with CPython's math errors."""
    domain, rng = _failures(out, args)
    v = Val(out, PY_FLOAT, risky=risky)
    if overflow:
        v = cx.guard(v, ir.Not(domain), "ValueError", "math domain error")
        return cx.guard(v, ir.Not(rng), "OverflowError", "math range error")
    return cx.guard(v, ir.Not(ir.Or(domain, rng)), "ValueError", "math domain error")


@function(*_UNARY)
def _unary(b, f, node):
    return _per_value(b, node, lambda x: _unary1(b.cx, f, x), to_float=True)


def _per_value(b, node, one, to_float=False):
    """one(x) for the call's single scalar argument x (as a Python float
    with to_float), for each type it may have at run time."""
    (a,) = _pos(b, node, 1, 1)
    x = _float_arg(b, a, node.args[0]) if to_float else _scalar(b, a, node.args[0])
    b.cx.cur_node = node
    return unions.distribute(b.cx, one, x)


def _unary1(cx, f, x: Val) -> Val:
    name = _UNARY[f]
    n = ops.node_of(cx, x)
    out = _call(name, n)
    if name in ("abs", "atan", "tanh"):
        return Val(out, PY_FLOAT, risky=x.risky)
    return _checked(cx, out, [n], x.risky, name in _OVERFLOWS)


@function(math.log)
def _log(b, f, node):
    args = _pos(b, node, 1, 2)
    xs = [_float_arg(b, a, w) for a, w in zip(args, node.args)]
    cx = b.cx
    cx.cur_node = node
    n = ops.node_of(cx, xs[0])
    num = _call("log", n)
    if len(xs) == 1:
        return _checked(cx, num, [n], xs[0].risky, False)
    m = ops.node_of(cx, xs[1])
    den = _call("log", m)
    # CPython: a domain error of x, then of the base, then num / den
    # (ZeroDivisionError for base 1): one check each, never two at once
    bad_x, bad_base = (ir.Or(*_failures(e, [a])) for e, a in ((num, n), (den, m)))
    v = Val(ir.Div(num, den), PY_FLOAT, risky=True)
    v = cx.guard(v, ir.Not(ir.Or(bad_x, bad_base)), "ValueError", "math domain error")
    return cx.guard(v, ir.Or(ir.NE(den, _f(0.0)), ir.Or(bad_x, bad_base)), "ZeroDivisionError",
                    "float division by zero")


@function(*_LOGS)
def _log_base(b, f, node):
    (a,) = _pos(b, node, 1, 1)
    x = _float_arg(b, a, node.args[0])
    cx = b.cx
    cx.cur_node = node
    npf, base = _LOGS[f]
    n = ops.node_of(cx, x)
    r = ops.node_of(cx, np_unary(cx, npf, Val(n, x.ty)))
    k = _call("round", r)
    # an exact power of the base has an exact logarithm, as C's log2/log10
    # (a normal x for base 10: pow(10, k) of a subnormal is rounded)
    exact = ir.And(ir.EQ(_call("pow", _f(base), k), n), ir.Not(_inf(n)))
    if base != 2.0:
        exact = ir.And(exact, ir.GE(n, _f(2.2250738585072014e-308)))
    out = ir.Select(exact, k, r)
    return _checked(cx, out, [n], x.risky, False)


@function(*_TO_INT)
def _to_int(b, f, node):
    cx = b.cx

    def one(x):
        if x.ty.is_int() or x.ty.is_bool():
            return ops.to_python_int(cx, x)
        n = ops.node_of(cx, x)
        r = Val(ir.Call(n.type, _TO_INT[f], (n,), ir.INTRINSIC), x.ty, risky=x.risky)
        return ops.to_python_int(cx, r)
    return _per_value(b, node, one)


@function(*_TESTS)
def _test(b, f, node):
    def one(x):
        if not x.ty.is_float():     # an int (int64 here) converts to a finite float
            return const_val(f is math.isfinite)
        return Val(ir.Call(ir.Bool(), _TESTS[f], (ops.node_of(b.cx, x),), ir.INTRINSIC),
                   PY_BOOL, risky=x.risky)
    return _per_value(b, node, one)


@function(math.degrees, math.radians)
def _angle(b, f, node):
    (a,) = _pos(b, node, 1, 1)
    x = _float_arg(b, a, node.args[0])
    b.cx.cur_node = node
    k = _DEG if f is math.degrees else _RAD
    return Val(ir.Mul(ops.node_of(b.cx, x), _f(k)), PY_FLOAT, risky=x.risky)


@function(*_BINARY)
def _binary(b, f, node):
    args = _pos(b, node, 2, 2)
    x, y = (_float_arg(b, a, w) for a, w in zip(args, node.args))
    cx = b.cx
    cx.cur_node = node
    name = _BINARY[f]
    n, m = ops.node_of(cx, x), ops.node_of(cx, y)
    risky = x.risky or y.risky
    if name == "hypot":
        # CPython's own algorithm; it raises nothing (finite arguments past
        # the float range give inf, an infinite one inf even with a NaN)
        out = C.python_hypot_node(ops.cast(ir.Float(64), n), ops.cast(ir.Float(64), m))
        return Val(out, PY_FLOAT, risky=risky)
    if name == "copysign":
        return Val(_call(name, n, m), PY_FLOAT, risky=risky)
    if name == "atan2":
        return Val(_call(name, n, m), PY_FLOAT, risky=risky)
    if name == "fmod":
        # CPython: fmod(x, inf) is x for finite x; inf or a zero divisor is a domain error
        out = ir.Select(ir.And(_inf(m), ir.Not(_inf(n))), n, _call(name, n, m))
        return _checked(cx, out, [n, m], risky, False)
    # pow: C pow (CPython's special cases are C99's); pow(0, y) for a finite
    # negative y is an infinity from finite arguments: a domain error
    out = _call("pow", n, m)
    zero_neg = ir.And(ir.And(ir.EQ(n, _f(0.0)), ir.LT(m, _f(0.0))), ir.Not(_inf(m)))
    v = Val(out, PY_FLOAT, risky=risky)
    v = cx.guard(v, ir.And(ir.Or(ir.Not(_nan(out)), ir.Or(_nan(n), _nan(m))),
                           ir.Not(zero_neg)), "ValueError", "math domain error")
    finite = ir.And(ir.Not(_inf(n)), ir.Not(_inf(m)))
    return cx.guard(v, ir.Or(ir.Or(ir.Not(_inf(out)), ir.Not(finite)), zero_neg),
                    "OverflowError", "math range error")
