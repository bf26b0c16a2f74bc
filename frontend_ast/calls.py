"""Calls: builtins, NumPy and math functions on scalars, dtype constructors,
array creation.

The functions that evaluate a call's arguments take `b`, the
exprs.Expressions evaluating the call (they create arrays through
`b.arrays`); those that compute on values take only the context `cx`
(errors and run-time checks)."""
from __future__ import annotations

import ast
import math

import numpy as np

from pyhalide import ir

from . import array_calls, ops, unions
from . import types as T
from .refs import BuiltinRef, InfoVal, MethodRef
from .types import PY_BOOL, PY_FLOAT, UnsupportedType
from .values import Arr, DtypeVal, ModuleRef, TupleVal, Val, const_val

# NumPy ufuncs on one argument with an IR intrinsic of the same meaning
_NP_UNARY = {np.sqrt: "sqrt", np.exp: "exp", np.log: "log", np.sin: "sin", np.cos: "cos",
             np.tan: "tan", np.arcsin: "asin", np.arccos: "acos", np.arctan: "atan",
             np.sinh: "sinh", np.cosh: "cosh", np.tanh: "tanh", np.floor: "floor",
             np.ceil: "ceil", np.trunc: "trunc", np.rint: "round"}
_MATH_UNARY = {math.sqrt: "sqrt", math.exp: "exp", math.log: "log", math.sin: "sin",
               math.cos: "cos", math.tan: "tan", math.asin: "asin", math.acos: "acos",
               math.atan: "atan", math.sinh: "sinh", math.cosh: "cosh", math.tanh: "tanh",
               math.fabs: "abs"}
_MATH_TO_INT = {math.floor: "floor", math.ceil: "ceil", math.trunc: "trunc"}
_CREATE = {np.zeros: 0, np.ones: 1, np.empty: None, np.full: "full",
           np.zeros_like: 0, np.ones_like: 1, np.empty_like: None, np.full_like: "full"}
_NP_BINARY_OPS = {np.add: "+", np.subtract: "-", np.multiply: "*", np.divide: "/",
                  np.true_divide: "/", np.floor_divide: "//", np.mod: "%",
                  np.remainder: "%", np.power: "**", np.bitwise_and: "&", np.bitwise_or: "|",
                  np.bitwise_xor: "^", np.left_shift: "<<", np.right_shift: ">>",
                  np.less: "<", np.less_equal: "<=", np.greater: ">", np.greater_equal: ">=",
                  np.equal: "==", np.not_equal: "!="}


def call(b, fn, node: ast.Call):
    """fn(...) at `node`: fn is what the call's function evaluated to."""
    if isinstance(fn, BuiltinRef):
        return _builtin(b, fn.name, node)
    if isinstance(fn, DtypeVal):
        args = _pos(b, node, 1, 1)
        v = _scalar(b, args[0], node.args[0])
        b.cx.cur_node = node
        return _construct(b.cx, v, fn.dtype)
    if isinstance(fn, MethodRef):
        return _method(b, fn, node)
    if isinstance(fn, ModuleRef):
        return _module_fn(b, fn, node)
    raise b.cx.err(node.func, f"{b.describe_obj(fn)} is not callable here",
                   hint="only builtins, NumPy and math functions on scalars can be called")


def _pos(b, node, lo, hi):
    if not lo <= len(node.args) <= hi:
        raise b.cx.err(node, f"expected {lo}{'' if lo == hi else f' to {hi}'} argument(s), "
                             f"got {len(node.args)}")
    for a in node.args:
        if isinstance(a, ast.Starred):
            raise b.cx.err(a, "`*` arguments are not supported")
    return [b.ev(a) for a in node.args]


def _no_kw(b, node):
    if node.keywords:
        raise b.cx.err(node, "keyword arguments are not supported here")


def _scalar(b, v, where) -> Val:
    if isinstance(v, Val):
        return v
    raise b.cx.err(where, f"expected a scalar, got {b.describe_obj(v)}", hint=b.obj_hint(v))


@unions.over_alternatives
def _construct(cx, v: Val, dtype) -> Val:
    dt = np.dtype(dtype)
    try:
        ty = T.np_ty(dt)
    except UnsupportedType as e:
        raise cx.error(str(e))
    if v.ty.weak and v.ty.kind == "float" and ty.is_int():
        return ops.cast_to(cx, v, ty)
    return ops.cast_to(cx, v, ty)


# builtins ---------------------------------------------------------------------------
def _builtin(b, name, node):
    if name == "range":
        raise b.cx.err(node, "range() is only supported as the iterable of a `for` loop")
    _no_kw(b, node)
    if name == "len":
        (a,) = _pos(b, node, 1, 1)
        if isinstance(a, Arr):
            if a.ndim == 0:
                raise b.cx.err(node, "len() of a 0-d array")
            return a.shape[0]
        if isinstance(a, TupleVal):
            return const_val(len(a.items))
        raise b.cx.err(node, f"len() of {b.describe_obj(a)}")
    if name in ("int", "float", "bool"):
        args = _pos(b, node, 0, 1)
        if not args:
            return const_val({"int": 0, "float": 0.0, "bool": False}[name])
        v = _scalar(b, args[0], node.args[0])
        b.cx.cur_node = node
        if name == "int":
            return ops.to_python_int(b.cx, v)
        if name == "float":
            return unions.distribute(
                b.cx, lambda x: ops.convert(b.cx, x, PY_FLOAT) if x.ty.kind != "float" else x, v)
        return ops.truth(b.cx, v)
    if name == "abs":
        (a,) = _pos(b, node, 1, 1)
        return ops.absolute(b.cx, _scalar(b, a, node.args[0]))
    if name in ("min", "max"):
        args = _pos(b, node, 1, 64)
        if len(args) == 1:
            raise b.cx.err(node, f"{name}() of a sequence is not supported",
                           hint=f"write a loop, or {name}(a, b, ...) of scalars")
        vals = [_scalar(b, a, n) for a, n in zip(args, node.args)]
        b.cx.cur_node = node
        out = vals[0]
        for v in vals[1:]:
            # Python: min(a, b) is `b if b < a else a`; max(a, b) `b if b > a else a`
            c = b.cx.compare("<" if name == "min" else ">", v, out)
            out = ops.select(b.cx, ops.truth(b.cx, c), v, out)
        return out
    if name == "round":
        args = _pos(b, node, 1, 2)
        v = _scalar(b, args[0], node.args[0])
        b.cx.cur_node = node
        if len(args) == 2 and args[1] is not None:
            raise b.cx.err(node, "round(x, ndigits) is not supported",
                           hint="use np.round / np.rint")
        return unions.distribute(b.cx, lambda x: _round(b.cx, x), v)
    if name == "pow":
        args = _pos(b, node, 2, 2)
        x, y = (_scalar(b, a, n) for a, n in zip(args, node.args))
        b.cx.cur_node = node
        return ops.binary(b.cx, "**", x, y)
    raise b.cx.err(node, f"{name}() is not supported")


def _round(cx, v):
    if v.ty.is_int() or v.ty.is_bool():
        return ops.to_python_int(cx, v)
    n = ops.node_of(cx, v)
    r = Val(ir.Call(n.type, "round", (n,), ir.INTRINSIC), v.ty, risky=v.risky)
    return ops.to_python_int(cx, r)


# methods ----------------------------------------------------------------------------
def _method(b, m: MethodRef, node):
    handler = array_calls.METHODS.get(m.name)
    if handler is not None and not isinstance(m.obj, Val):
        return handler(b, m.obj, m.name, node)
    if m.name == "item":
        _pos(b, node, 0, 0)
        v = m.obj
        if v.ty.weak:
            raise b.cx.err(node, f"a {v.ty.describe()} has no .item()")
        if v.ty.is_bool():
            return ops.truth(b.cx, v)
        if v.ty.is_int():
            return ops.to_python_int(b.cx, v)
        return ops.convert(b.cx, v, PY_FLOAT)
    if m.name == "astype":
        dt = _dtype_arg(b, node, 0, "dtype")
        if dt is None:
            raise b.cx.err(node, "astype() needs a dtype")
        v = m.obj
        if v.ty.weak:
            raise b.cx.err(node, f"a {v.ty.describe()} has no .astype()")
        return ops.cast_to(b.cx, v, T.np_ty(dt))
    if m.name == "copy":
        _pos(b, node, 0, 0)
        return b.arrays.copy_array(m.obj, node)
    raise b.cx.err(node, f"method .{m.name}() is not supported")


def _dtype_arg(b, node, pos, kw):
    val = None
    if len(node.args) > pos:
        val = b.ev(node.args[pos])
        where = node.args[pos]
    for k in node.keywords:
        if k.arg == kw:
            val = b.ev(k.value)
            where = k.value
        elif k.arg not in ("dtype", "fill_value", "shape", "order"):
            raise b.cx.err(k, f"keyword {k.arg!r} is not supported")
    if val is None:
        return None
    if isinstance(val, DtypeVal):
        return val.dtype
    if isinstance(val, BuiltinRef) and val.name in ("int", "float", "bool"):
        return T.parse_dtype({"int": int, "float": float, "bool": bool}[val.name])
    if isinstance(val, str):
        try:
            return np.dtype(val)
        except TypeError:
            raise b.cx.err(where, f"unknown dtype {val!r}") from None
    raise b.cx.err(where, "expected a dtype (np.int32, 'uint8', float, a.dtype, ...)")


# numpy and math -----------------------------------------------------------------------
def _module_fn(b, fn: ModuleRef, node):
    f = fn.obj
    handler = array_calls.FUNCTIONS.get(f)
    if handler is not None:
        return handler(b, f, node)
    if f in _CREATE:
        return _create(b, f, node)
    if f is np.copy:
        (a,) = _pos(b, node, 1, 1)
        return b.arrays.copy_array(a, node)
    if f in (np.iinfo, np.finfo):
        _no_kw(b, node)
        (a,) = _pos(b, node, 1, 1)
        dt = a.dtype if isinstance(a, DtypeVal) else (a.ty.dtype if isinstance(a, Val) and
                                                       not a.ty.weak else None)
        if dt is None and isinstance(a, BuiltinRef):
            dt = T.parse_dtype({"int": int, "float": float, "bool": bool}.get(a.name))
        if dt is None:
            raise b.cx.err(node, f"{fn.name}() needs a dtype")
        return InfoVal(f(dt))
    if f is np.dtype:
        dt = _dtype_arg(b, node, 0, "dtype")
        return DtypeVal(dt)
    _no_kw(b, node)
    if f in _NP_UNARY or f in (np.abs, np.absolute, np.fabs, np.square, np.negative,
                               np.isnan, np.isinf, np.isfinite, np.logical_not, np.round,
                               np.around, np.positive, np.sign):
        (a,) = _pos(b, node, 1, 1)
        v = _scalar(b, a, node.args[0])
        b.cx.cur_node = node
        return _np_unary(b.cx, f, v)
    if f in _NP_BINARY_OPS:
        args = _pos(b, node, 2, 2)
        x, y = (_scalar(b, a, n) for a, n in zip(args, node.args))
        b.cx.cur_node = node
        cx = b.cx
        op = _NP_BINARY_OPS[f]
        return unions.distribute(
            cx, lambda p, q: _as_numpy_result(cx, f, (p, q), ops.binary(cx, op, p, q)), x, y)
    if f in (np.minimum, np.maximum, np.fmin, np.fmax):
        args = _pos(b, node, 2, 2)
        x, y = (_scalar(b, a, n) for a, n in zip(args, node.args))
        b.cx.cur_node = node
        return _np_minmax(b.cx, f, x, y)
    if f in (np.arctan2, math.atan2, np.hypot):
        if f is np.hypot:
            raise b.cx.err(node, "np.hypot is not supported", hint="use np.sqrt(x*x + y*y)")
        args = _pos(b, node, 2, 2)
        x, y = (_scalar(b, a, n) for a, n in zip(args, node.args))
        b.cx.cur_node = node
        rt = PY_FLOAT if f is math.atan2 else _res(b.cx, f, x.ty, y.ty)
        xn = ops.convert(b.cx, _as_float(b.cx, x, rt), rt)
        yn = ops.convert(b.cx, _as_float(b.cx, y, rt), rt)
        return Val(ir.Call(rt.ir(), "atan2", (xn.node, yn.node), ir.INTRINSIC), rt,
                   risky=x.risky or y.risky)
    if f is np.where:
        args = _pos(b, node, 3, 3)
        c, x, y = (_scalar(b, a, n) for a, n in zip(args, node.args))
        b.cx.cur_node = node
        rt = _res(b.cx, lambda p, q: np.where(True, p, q)[()], x.ty, y.ty)
        return ops.select(b.cx, ops.truth(b.cx, c), ops.convert_for_merge(b.cx, x, rt),
                          ops.convert_for_merge(b.cx, y, rt), lazy=False)
    if f is np.clip:
        args = _pos(b, node, 3, 3)
        x, lo, hi = (_scalar(b, a, n) for a, n in zip(args, node.args))
        b.cx.cur_node = node
        return _np_minmax(b.cx, np.minimum, _np_minmax(b.cx, np.maximum, x, lo), hi)
    if f in (np.logical_and, np.logical_or, np.logical_xor):
        args = _pos(b, node, 2, 2)
        x, y = (ops.truth(b.cx, _scalar(b, a, n)) for a, n in zip(args, node.args))
        cls = {np.logical_and: ir.And, np.logical_or: ir.Or, np.logical_xor: ir.NE}[f]
        return Val(cls(x.node, y.node), T.np_ty(np.bool_), risky=x.risky or y.risky)
    if f in _MATH_UNARY or f in _MATH_TO_INT or f in (math.isnan, math.isinf, math.isfinite,
                                                       math.pow):
        return _math_fn(b, f, node)
    name = fn.name
    raise b.cx.err(node.func, f"{name}() is not supported in compiled code",
                   hint="supported: np.sqrt/exp/log/sin/cos/..., np.abs, np.minimum/maximum, "
                        "np.fmin/fmax, np.floor/ceil, dtype constructors, math functions on "
                   "scalars, array creation (np.zeros/ones/full/empty[_like])")


def _as_numpy_result(cx, f, args, out: Val) -> Val:
    """np.add(x, y) on Python scalars returns a NumPy scalar."""
    try:
        rt = _res(cx, f, *[a.ty for a in args])
    except Exception:
        return out
    if out.ty != rt:
        return ops.cast_to(cx, out, rt)
    return out


def _res(cx, f, *tys):
    try:
        return T.result_type(f, *tys)
    except UnsupportedType as e:
        raise cx.error(f"{getattr(f, '__name__', f)} of {', '.join(t.describe() for t in tys)}: "
                       f"{e}", hint="cast the argument first, e.g. np.float32(x)")


def _as_float(cx, v, rt):
    return v


@unions.over_alternatives
def _np_unary(cx, f, v: Val) -> Val:
    if f in (np.isnan, np.isinf, np.isfinite):
        rt = T.np_ty(np.bool_)
        if not v.ty.is_float():
            return Val(ir.Const(ir.Bool(), f is np.isfinite), rt)
        n = ops.node_of(cx, v)
        name = {np.isnan: "is_nan", np.isinf: "is_inf", np.isfinite: "is_finite"}[f]
        return Val(ir.Call(ir.Bool(), name, (n,), ir.INTRINSIC), rt, risky=v.risky)
    if f is np.logical_not:
        t = ops.truth(cx, v)
        return Val(ir.Not(t.node), T.np_ty(np.bool_), risky=v.risky)
    rt = _res(cx, f, v.ty)
    if f in (np.abs, np.absolute, np.fabs):
        out = ops.absolute(cx, v if not v.ty.weak else ops.convert(cx, v, rt), numpy_style=True)
        return ops.cast_to(cx, out, rt) if out.ty != rt else out
    if f is np.negative:
        out = ops.negate(cx, ops.convert(cx, v, rt))
        return out
    if f is np.positive:
        return ops.convert(cx, v, rt)
    if f is np.square:
        x = ops.convert(cx, v, rt)
        return ops.binary(cx, "*", x, x)
    if f is np.sign:
        x = ops.convert(cx, v, rt)
        n = x.node
        t = n.type
        zero, one = ir.Const(t, 0), ir.Const(t, 1)
        if t.is_float():
            node = ir.Select(ir.GT(n, zero), one, ir.Select(ir.LT(n, zero), ir.Const(t, -1.0),
                                                            ir.Select(ir.EQ(n, zero), n, n)))
        elif t.is_uint():
            node = ir.Select(ir.GT(n, zero), one, zero)
        else:
            node = ir.Select(ir.GT(n, zero), one, ir.Select(ir.LT(n, zero), ir.Const(t, -1), zero))
        return Val(node, rt, risky=v.risky)
    if f in (np.round, np.around):
        f = np.rint
    name = _NP_UNARY[f]
    x = ops.convert(cx, v, rt) if v.ty.weak else ops.cast_to(cx, v, rt)
    n = ops.node_of(cx, x)
    if rt.is_int() or rt.is_bool():       # floor/ceil/trunc/rint of integers are identities
        return x
    return Val(ir.Call(rt.ir(), name, (n,), ir.INTRINSIC), rt, risky=v.risky)


@unions.over_alternatives
def _np_minmax(cx, f, x: Val, y: Val) -> Val:
    rt = _res(cx, f, x.ty, y.ty)
    xv = ops.convert(cx, x, rt) if x.ty.weak else ops.cast_to(cx, x, rt)
    yv = ops.convert(cx, y, rt) if y.ty.weak else ops.cast_to(cx, y, rt)
    a, c = ops.node_of(cx, xv), ops.node_of(cx, yv)
    t = a.type
    risky = x.risky or y.risky
    if not t.is_float():
        node = (ir.Min if f in (np.minimum, np.fmin) else ir.Max)(a, c)
        out = Val(node, rt, risky=risky)
        lo = None if xv.lo is None or yv.lo is None else \
            (min(xv.lo, yv.lo) if f in (np.minimum, np.fmin) else max(xv.lo, yv.lo))
        hi = None if xv.hi is None or yv.hi is None else \
            (min(xv.hi, yv.hi) if f in (np.minimum, np.fmin) else max(xv.hi, yv.hi))
        if f in (np.minimum, np.fmin):
            out.set_range(lo, hi, [], xv.ubs + yv.ubs)
        else:
            out.set_range(lo, hi, xv.lbs + yv.lbs, [])
        return out
    if f is np.minimum:      # NaN propagates; ties give the second operand
        node = ir.Select(ir.Or(ir.LT(a, c), ops.is_nan(a)), a, c)
    elif f is np.maximum:
        node = ir.Select(ir.Or(ir.GT(a, c), ops.is_nan(a)), a, c)
    elif f is np.fmin:       # NaN ignored; ties give the first operand
        node = ir.Select(ir.Or(ir.LE(a, c), ops.is_nan(c)), a, c)
    else:
        node = ir.Select(ir.Or(ir.GE(a, c), ops.is_nan(c)), a, c)
    return Val(node, rt, risky=risky)


def _math_fn(b, f, node):
    if f is math.pow:
        args = _pos(b, node, 2, 2)
        x, y = (ops.convert(b.cx, _scalar(b, a, n), PY_FLOAT) for a, n in zip(args, node.args))
        b.cx.cur_node = node
        return Val(ir.Call(ir.Float(64), "pow", (x.node, y.node), ir.INTRINSIC), PY_FLOAT,
                   risky=x.risky or y.risky)
    (a,) = _pos(b, node, 1, 1)
    v = _scalar(b, a, node.args[0])
    b.cx.cur_node = node
    return unions.distribute(b.cx, lambda x: _math1(b.cx, f, x), v)


def _math1(cx, f, v):
    if f in (math.isnan, math.isinf, math.isfinite):
        if not v.ty.is_float():
            return const_val(f is math.isfinite)
        name = {math.isnan: "is_nan", math.isinf: "is_inf", math.isfinite: "is_finite"}[f]
        return Val(ir.Call(ir.Bool(), name, (ops.node_of(cx, v),), ir.INTRINSIC), PY_BOOL,
                   risky=v.risky)
    if f in _MATH_TO_INT:
        if v.ty.is_int() or v.ty.is_bool():
            return ops.to_python_int(cx, v)
        x = ops.node_of(cx, v)
        r = Val(ir.Call(x.type, _MATH_TO_INT[f], (x,), ir.INTRINSIC), v.ty, risky=v.risky)
        return ops.to_python_int(cx, r)
    x = ops.convert(cx, v, PY_FLOAT) if v.ty != PY_FLOAT else v
    n = ops.node_of(cx, x)
    name = _MATH_UNARY[f]
    out = Val(ir.Call(ir.Float(64), name, (n,), ir.INTRINSIC), PY_FLOAT, risky=v.risky)
    zero = ir.Const(ir.Float(64), 0.0)
    if name == "sqrt":
        out = cx.guard(out, ir.Not(ir.LT(n, zero)), "ValueError", "math domain error")
    elif name == "log":
        out = cx.guard(out, ir.Or(ir.GT(n, zero), ops.is_nan(n)), "ValueError",
                       "math domain error")
    elif name in ("asin", "acos"):
        out = cx.guard(out, ir.Not(ir.GT(ir.Call(ir.Float(64), "abs", (n,), ir.INTRINSIC),
                                         ir.Const(ir.Float(64), 1.0))),
                       "ValueError", "math domain error")
    elif name == "exp":
        inf = ir.Const(ir.Float(64), float("inf"))
        out = cx.guard(out, ir.Or(ir.LT(out.node, inf), ir.EQ(n, inf)), "OverflowError",
                       "math range error")
    return out


# array creation ------------------------------------------------------------------------
def _create(b, f, node):
    kind = _CREATE[f]
    like = f in (np.zeros_like, np.ones_like, np.empty_like, np.full_like)
    for k in node.keywords:
        if k.arg not in ("dtype", "fill_value", "shape"):
            raise b.cx.err(k, f"keyword {k.arg!r} of {f.__name__} is not supported")
    nargs = len(node.args)
    if nargs < 1:
        raise b.cx.err(node, f"{f.__name__}() needs a shape" if not like else
                       f"{f.__name__}() needs an array")
    first = b.ev(node.args[0])
    fill = None
    fill_pos = 1
    if kind == "full":
        fv = None
        if nargs > 1:
            fv = b.ev(node.args[1])
        for k in node.keywords:
            if k.arg == "fill_value":
                fv = b.ev(k.value)
        if fv is None:
            raise b.cx.err(node, f"{f.__name__}() needs a fill value")
        fill = _scalar(b, fv, node)
        fill_pos = 2
    dt = _dtype_arg(b, node, fill_pos, "dtype")
    if like:
        if not isinstance(first, Arr):
            raise b.cx.err(node.args[0], f"{f.__name__}() needs an array")
        shape = list(first.shape)
        if dt is None:
            dt = first.ty.dtype
    else:
        shape = _shape(b, first, node.args[0])
        if dt is None:
            if kind == "full":
                dt = np.full((), fill.ty.sample(1)).dtype if fill.ty.weak else fill.ty.dtype
            else:
                dt = np.dtype(np.float64)
    try:
        ty = T.np_ty(dt)
    except UnsupportedType as e:
        raise b.cx.err(node, str(e))
    if kind == "full":
        fill_val = ops.cast_to(b.cx, fill, ty) if not fill.ty.weak else \
            b.arrays.store_convert(fill, ty)
    elif kind is None:
        fill_val = None
    else:
        fill_val = ops.cast_to(b.cx, const_val(kind), ty)
    b.cx.cur_node = node
    return b.arrays.create_array(ty, shape, fill_val, node)


def _shape(b, v, where) -> list:
    items = v.items if isinstance(v, TupleVal) else [v]
    out = []
    for it in items:
        if not isinstance(it, Val) or not (it.ty.is_int() or it.ty.is_bool()):
            raise b.cx.err(where, "an array shape must be integers (or a tuple of them)")
        if not it.is_static:
            raise b.cx.err(where, "an array shape must not depend on array contents or loop "
                                  "variables",
                           hint="compute shapes from .shape, len() and scalar arguments")
        out.append(ops.to_python_int(b.cx, it) if it.ty.kind != "int" else it)
    return out
