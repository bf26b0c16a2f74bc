"""Calls: builtins, NumPy and math functions on scalars, dtype constructors,
array creation.

The functions that evaluate a call's arguments take `b`, the
exprs.Expressions evaluating the call (they create arrays through
`b.arrays`); those that compute on values take only the context `cx`
(errors and run-time checks)."""
from __future__ import annotations

import ast

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import array_calls, generators, index_tuples, loop_step_values, ops, unions
from . import complex_values as C
from . import types as T
from .array_args import dtype_value
from .arrayexpr import ArrayExpr, k_order, lift
from .refs import BuiltinRef, InfoVal, MethodRef
from .types import PY_FLOAT, UnsupportedType
from .values import Arr, DtypeVal, ModuleRef, TupleVal, Val, const_val

# NumPy ufuncs on one argument with an IR intrinsic of the same meaning
_NP_UNARY = {np.sqrt: "sqrt", np.exp: "exp", np.log: "log", np.sin: "sin", np.cos: "cos",
             np.tan: "tan", np.arcsin: "asin", np.arccos: "acos", np.arctan: "atan",
             np.sinh: "sinh", np.cosh: "cosh", np.tanh: "tanh", np.floor: "floor",
             np.ceil: "ceil", np.trunc: "trunc", np.rint: "round", np.exp2: "exp2",
             np.cbrt: "cbrt", np.expm1: "expm1", np.log1p: "log1p"}
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
        if isinstance(args[0], (Arr, ArrayExpr)):
            # np.float32(0-d array) is a scalar
            return scalar_if_0d(b, cast_array(b, args[0], fn.dtype, node), node)
        v = _scalar(b, args[0], node.args[0])
        b.cx.cur_node = node
        return _construct(b.cx, v, fn.dtype)
    if isinstance(fn, MethodRef):
        return _method(b, fn, node)
    if isinstance(fn, ModuleRef):
        return _module_fn(b, fn, node)
    if callable(fn) and getattr(getattr(fn, "py_func", fn), "__code__", None) is not None:
        raise b.cx.err(node.func, "calling a function passed as an argument is not supported: "
                                  "a call compiles the code of the function it names, known "
                                  "for a function named in the code or a parameter's default",
                       hint="call the function by its name, or make it the parameter's "
                            "default value")
    raise b.cx.err(node.func, f"{b.describe_obj(fn)} is not callable here",
                   hint="only builtins, NumPy and math functions on scalars can be called")


def scalar_if_0d(b, v, node):
    """A 0-d array result of a NumPy scalar's method or attribute as the
    scalar NumPy returns; any other value as it is."""
    if isinstance(v, (Arr, ArrayExpr)) and v.ndim == 0:
        return b.array_code.as_array(v, node).elem([])
    return v


def cast_array(b, value, dtype, node):
    """An array value converted to dtype element by element (NumPy's C casts)."""
    try:
        ty = T.np_ty(np.dtype(dtype))
    except UnsupportedType as e:
        raise b.cx.err(node, str(e)) from None
    arr = b.array_code.as_array(value, node)
    return lift(b.cx, lambda cx, v: ops.cast_to(cx, v, ty), [arr], node)


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
    if name == "range" and loop_step_values.marked(node):
        return loop_step_values.call(b, node)
    if name == "range":
        raise b.cx.err(node, "range() is only supported as the iterable of a `for` loop")
    if name == "tuple":
        return generators.build(b, node)
    _no_kw(b, node)
    if name == "len":
        (a,) = _pos(b, node, 1, 1)
        if isinstance(a, (Arr, ArrayExpr)):
            if a.ndim == 0:
                raise b.cx.err(node, "len() of a 0-d array")
            return a.shape[0]
        if isinstance(a, TupleVal):
            return const_val(len(a.items))
        raise b.cx.err(node, f"len() of {b.describe_obj(a)}")
    if name == "complex":
        args = [_scalar(b, a, n) for a, n in zip(_pos(b, node, 0, 2), node.args)]
        b.cx.cur_node = node
        return C.builtin_complex(b.cx, *args)
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
        if isinstance(a, (Arr, ArrayExpr)):       # abs of an array is np.absolute
            return lift(b.cx, lambda cx, v: np_unary(cx, np.absolute, v),
                        [b.array_code.as_array(a, node)], node, ufunc=True)
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
            if _plain_int(v) and _plain_int(out) and v.ty == out.ty and \
                    not (v.is_const and out.is_const):
                out = _int_minmax(b.cx, name, out, v)
                continue
            # Python: min(a, b) is `b if b < a else a`; max(a, b) `b if b > a else a`
            c = b.cx.compare("<" if name == "min" else ">", v, out)
            if _exact_int(v) and _exact_int(out):
                v, out = _bounded_by(name, v, out), _bounded_by(name, out, v)
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
    if name == "divmod":
        args = _pos(b, node, 2, 2)
        if any(isinstance(a, (Arr, ArrayExpr)) for a in args):
            raise b.cx.err(node, "divmod() of arrays is not supported",
                           hint="write a // b and a % b")
        x, y = (_scalar(b, a, n) for a, n in zip(args, node.args))
        b.cx.cur_node = node
        return TupleVal([ops.binary(b.cx, "//", x, y), ops.binary(b.cx, "%", x, y)])
    raise b.cx.err(node, f"{name}() is not supported")


def _plain_int(v) -> bool:
    return not v.union and v.ty.is_int() and not v.ty.is_bool()


def _exact_int(v) -> bool:
    """An integer (or bool) of one type that compares exactly with any other
    such value (int64 holds every value of it)."""
    return not v.union and (v.ty.is_int() or v.ty.is_bool()) and \
        not (v.ty.kind == "np" and v.ty.ir() == ir.UInt(64))


def _bounded_by(name, v: Val, other: Val) -> Val:
    """v as the result of min(v, other) (max) where it is the one chosen:
    then also at most (least) each upper (lower) bound of `other`, since an
    exact comparison chose it. Each alternative of a union of the two types
    so carries the bounds of the min (max) itself."""
    lower = name == "min"
    lo, hi = v.lo, v.hi
    if lower and other.hi is not None:
        hi = other.hi if hi is None else min(hi, other.hi)
    if not lower and other.lo is not None:
        lo = other.lo if lo is None else max(lo, other.lo)
    lbs = list(dict.fromkeys(v.lbs + ([] if lower else other.lbs)))
    ubs = list(dict.fromkeys(v.ubs + (other.ubs if lower else [])))
    return Val(v.node, v.ty, lo, hi, lbs, ubs, v.static, v.const, v.risky, facts=v.facts,
               origin=v.origin)


def _int_minmax(cx, name, a: Val, b: Val) -> Val:
    """min(a, b) / max(a, b) of two integers of one type: an IR Min/Max
    (what `b if b < a else a` is for integers), bounded by both operands
    (a loop over range(min(len(a), len(b))) reads inside both arrays)."""
    x, y = ops.node_of(cx, a), ops.node_of(cx, b)
    if x.type != y.type:
        x, y = cast(ir.Int(64), x), cast(ir.Int(64), y)
    lower = name == "min"
    pick = min if lower else max
    static = None
    if a.is_static and b.is_static:
        fa, fb = a.static, b.static

        def static(env):
            return pick(fa(env), fb(env))
    out = Val((ir.Min if lower else ir.Max)(x, y), a.ty, risky=a.risky or b.risky,
              static=static)
    both = [p for p in (a.lo, b.lo) if p is not None], [p for p in (a.hi, b.hi) if p is not None]
    if lower:       # min(a, b) <= each of a and b; >= the lower of their lower bounds
        lo = min(both[0]) if len(both[0]) == 2 else None
        hi = min(both[1]) if both[1] else None
        lbs, ubs = unions.merge_bounds(a.lbs, b.lbs, False, cx.syms), list(dict.fromkeys(a.ubs + b.ubs))
    else:
        lo = max(both[0]) if both[0] else None
        hi = max(both[1]) if len(both[1]) == 2 else None
        lbs, ubs = list(dict.fromkeys(a.lbs + b.lbs)), unions.merge_bounds(a.ubs, b.ubs, True, cx.syms)
    if lower and not _tight(lbs):
        lbs = _sum_bounds(cx, a, b, False) + lbs
    if not lower and not _tight(ubs):
        ubs = _sum_bounds(cx, a, b, True) + ubs
    # (a loop's hull over a bound whose operands' bounds do not compare is the
    # max/min of the operands' hulls: emit.hull_node)
    cx.minmax_parts[id(out.node)] = (out.node, a, b)
    return out.set_range(lo, hi, lbs, ubs)


def _tight(bounds) -> bool:
    """Some bound is symbolic or a constant below 2**30 (not one that only
    the type's range gives: max(i, 1) <= 2**31 - 2 in `for i in range(N)`,
    which as a loop's hull would run 2**31 - 2 iterations)."""
    return any(not b.is_const() or abs(b.c) < 2**30 for b in bounds)


def _sum_bounds(cx, a: Val, b: Val, upper: bool) -> list:
    """Affine bounds of max(a, b) (upper) or min(a, b) (lower) whose
    operands' bounds do not compare (max(N - i, M)): max(a, b) = a + b -
    min(a, b) <= ub(a) + ub(b) - min(lo(a), lo(b)), and min(a, b) >= lb(a)
    + lb(b) - max(hi(a), hi(b)), with lo/hi numeric bounds of a and b
    (over the enclosing loops' ranges). [] where one has none, or only
    the type's (|c| >= 2**30: hi + lo + 2**63 for Python ints lo, hi)."""
    ends = [_numeric(cx, v, not upper) for v in (a, b)]
    if None in ends:
        return []
    c = min(ends) if upper else max(ends)
    if abs(c) >= 2**30:         # the type's range: a bound no loop can run over
        return []
    xs, ys = (a.ubs, b.ubs) if upper else (a.lbs, b.lbs)
    return list(dict.fromkeys((x + y).shift(-c) for x in xs[:2] for y in ys[:2]))


def _numeric(cx, v: Val, upper: bool):
    """The tightest numeric upper (lower) bound of v, from its range and
    its affine bounds over the enclosing loops' ranges (N - i >= 1 in `for
    i in range(N)`, where its range says only >= -2**31 + 1)."""
    found = [n for a in (v.ubs if upper else v.lbs) for n in [cx.syms.numeric_of(a, upper)]
             if n is not None] + [n for n in [v.hi if upper else v.lo] if n is not None]
    return (min(found) if upper else max(found)) if found else None


def _round(cx, v):
    if v.ty.is_bool() and not v.ty.weak:
        raise cx.error("round() of a NumPy bool: Python raises TypeError (numpy.bool "
                       "has no __round__)", hint="write int(x)")
    if v.ty.is_int() or v.ty.is_bool():
        return ops.to_python_int(cx, v)
    n = ops.node_of(cx, v)
    r = Val(ir.Call(n.type, "round", (n,), ir.INTRINSIC), v.ty, risky=v.risky)
    return ops.to_python_int(cx, r)


# methods ----------------------------------------------------------------------------
def _method(b, m: MethodRef, node):
    handler = array_calls.method_handler(m.name)
    if handler is not None and not isinstance(m.obj, Val):
        out = handler(b, m.obj, m.name, node)
        return scalar_if_0d(b, out, node) if m.scalar else out
    if m.name in ("conjugate", "conj"):
        _pos(b, node, 0, 0)
        return C.conj(b.cx, m.obj)
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
        dt = dtype_arg(b, node, 0, "dtype")
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


def dtype_arg(b, node, pos, kw):
    val, where = None, node
    if len(node.args) > pos:
        val = b.ev(node.args[pos])
        where = node.args[pos]
    for k in node.keywords:
        if k.arg == kw:
            val = b.ev(k.value)
            where = k.value
        elif k.arg not in ("dtype", "fill_value", "shape", "order"):
            raise b.cx.err(k, f"keyword {k.arg!r} is not supported")
    return dtype_value(b.cx, val, where)


# numpy and math -----------------------------------------------------------------------
def _module_fn(b, fn: ModuleRef, node):
    f = fn.obj
    if index_tuples.handles(f, node):
        return index_tuples.call(b, f, node)
    handler = array_calls.handler_of(f)
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
        dt = dtype_arg(b, node, 0, "dtype")
        return DtypeVal(dt)
    name = fn.name
    raise b.cx.err(node.func, f"{name}() is not supported in compiled code",
                   hint="supported: np.sqrt/exp/log/sin/cos/..., np.abs, np.minimum/maximum, "
                        "np.fmin/fmax, np.floor/ceil, dtype constructors, math functions on "
                   "scalars, array creation (np.zeros/ones/full/empty[_like])")


# element-wise NumPy functions ------------------------------------------------------------
# Each takes the evaluated argument values (scalars; array_ufuncs applies the same
# functions element-wise to arrays) and returns NumPy's result for them.
def res_type(cx, f, *tys):
    try:
        return T.result_type(f, *tys)
    except UnsupportedType as e:
        raise cx.error(f"{getattr(f, '__name__', f)} of {', '.join(t.describe() for t in tys)}: "
                       f"{e}", hint="cast the argument first, e.g. np.float32(x)")


def as_res(cx, v: Val, rt) -> Val:
    """An argument converted to the result type (NumPy's conversion of an
    operand: weak Python scalars must fit)."""
    return ops.convert(cx, v, rt) if v.ty.weak else ops.cast_to(cx, v, rt)


def _fcall(rt, name, *args, risky=False) -> Val:
    nodes = tuple(a.node if isinstance(a, Val) else a for a in args)
    return Val(ir.Call(rt.ir(), name, nodes, ir.INTRINSIC), rt, risky=risky)


@unions.over_alternatives
def np_unary(cx, f, v: Val) -> Val:
    """f(v) for a NumPy function of one argument."""
    if C.is_complex(v):
        return C.np_unary(cx, f, v, res_type(cx, f, v.ty))
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
    rt = res_type(cx, f, v.ty)
    if f in (np.abs, np.absolute, np.fabs):
        out = ops.absolute(cx, v if not v.ty.weak else ops.convert(cx, v, rt), numpy_style=True)
        return ops.cast_to(cx, out, rt) if out.ty != rt else out
    x = as_res(cx, v, rt)
    if f is np.negative:
        return ops.negate(cx, x)
    if f is np.positive:
        return x
    if f is np.invert:
        return ops.invert(cx, x)
    if f is np.square:
        return ops.binary(cx, "*", x, x)
    if f is np.reciprocal:
        if not rt.is_float():
            raise cx.error(f"np.reciprocal of {v.ty.describe()} (integer division) is not "
                           f"supported", hint="write 1 / x for a float result")
        return ops.binary(cx, "/", ops.convert(cx, const_val(1.0), rt), x)
    if f is np.sign:
        return _sign(x, rt, v.risky)
    if f in (np.round, np.around):
        f = np.rint
    if rt.is_int() or rt.is_bool():       # floor/ceil/trunc of integers are identities
        return x
    special = _FLOAT_UNARY.get(f)
    if special is not None:
        return Val(ops.node_of(cx, special(cx, x, rt)), rt, risky=v.risky)
    return _fcall(rt, _NP_UNARY[f], ops.node_of(cx, x), risky=v.risky)


def _sign(x: Val, rt, risky) -> Val:
    """np.sign: -1, 0 or 1 (0 for both zeros; NaN for NaN)."""
    n = x.node
    t = n.type
    zero, one = ir.Const(t, 0), ir.Const(t, 1)
    if t.is_float():
        node = ir.Select(ir.GT(n, zero), one, ir.Select(ir.LT(n, zero), ir.Const(t, -1.0),
                                                        ir.Select(ir.EQ(n, zero), zero, n)))
    elif t.is_uint():
        node = ir.Select(ir.GT(n, zero), one, zero)
    else:
        node = ir.Select(ir.GT(n, zero), one, ir.Select(ir.LT(n, zero), ir.Const(t, -1), zero))
    return Val(node, rt, risky=risky)


def _in_f64(fn):
    """A float32 function computed in float64 and rounded once (nearly
    always the correctly rounded float32 result); float64 as fn computes it."""
    def run(cx, x: Val, rt) -> Val:
        if rt.ir().bits == 64:
            return fn(cx, x, rt)
        wide = T.np_ty(np.float64)
        return ops.cast_to(cx, fn(cx, ops.cast_to(cx, x, wide), wide), rt)
    return run


def _c(rt, v) -> ir.Expr:
    return ir.Const(rt.ir(), v)


def _times(num, den):
    """x * (num / den), the constant computed in x's dtype (NumPy's deg2rad
    and rad2deg)."""
    def run(cx, x: Val, rt) -> Val:
        t = rt.dtype.type
        return Val(ir.Mul(ops.node_of(cx, x), _c(rt, float(t(num) / t(den)))), rt)
    return run


def _log_base(name):
    """log2 / log10: the intrinsic `name` (lowering/codegen_logbase.py) for
    float64 and float32; a narrower float computed in float64 and rounded once."""
    def direct(cx, x: Val, rt) -> Val:
        return _fcall(rt, name, ops.node_of(cx, x))
    wide = _in_f64(direct)

    def run(cx, x: Val, rt) -> Val:
        return (direct if rt.ir().bits in (32, 64) else wide)(cx, x, rt)
    return run


_FLOAT_UNARY = {np.log2: _log_base("log2"), np.log10: _log_base("log10"),
                np.deg2rad: _times(np.pi, 180), np.radians: _times(np.pi, 180),
                np.rad2deg: _times(180, np.pi), np.degrees: _times(180, np.pi)}


@unions.over_alternatives
def np_minmax(cx, f, x: Val, y: Val) -> Val:
    """np.minimum/maximum (NaN propagates) and np.fmin/fmax (NaN ignored)."""
    rt = res_type(cx, f, x.ty, y.ty)
    xv, yv = as_res(cx, x, rt), as_res(cx, y, rt)
    a, c = ops.node_of(cx, xv), ops.node_of(cx, yv)
    t = a.type
    risky = x.risky or y.risky
    low = f in (np.minimum, np.fmin)
    if not t.is_float():
        out = Val((ir.Min if low else ir.Max)(a, c), rt, risky=risky)
        lo = None if xv.lo is None or yv.lo is None else \
            (min(xv.lo, yv.lo) if low else max(xv.lo, yv.lo))
        hi = None if xv.hi is None or yv.hi is None else \
            (min(xv.hi, yv.hi) if low else max(xv.hi, yv.hi))
        if low:
            out.set_range(lo, hi, [], xv.ubs + yv.ubs)
        else:
            out.set_range(lo, hi, xv.lbs + yv.lbs, [])
        return out
    # the first operand is used twice only (fused chains nest there most)
    if f is np.minimum:      # NaN propagates; ties give the second operand
        node = ir.Select(ir.GE(a, c), c, ir.Select(ops.is_nan(c), c, a))
    elif f is np.maximum:
        node = ir.Select(ir.LE(a, c), c, ir.Select(ops.is_nan(c), c, a))
    elif f is np.fmin:       # NaN ignored; ties give the first operand
        node = ir.Select(ir.Or(ir.LE(a, c), ops.is_nan(c)), a, c)
    else:
        node = ir.Select(ir.Or(ir.GE(a, c), ops.is_nan(c)), a, c)
    return Val(node, rt, risky=risky)


@unions.over_alternatives
def np_clip(cx, f, x: Val, lo, hi, keep_ties=True) -> Val:
    """np.clip(x, lo, hi) (a bound None: no bound on that side). NumPy's
    loop with scalar bounds keeps x where it equals a bound (the sign of a
    zero), its general loop is minimum(maximum(x, lo), hi); `keep_ties`
    (True, False or a boolean node: clip_ties.py) says which loop NumPy
    runs. Without either bound NumPy 2 computes np.positive(x) (a copy; bool
    refused)."""
    bounds = [v for v in (lo, hi) if v is not None]
    if not bounds:
        return np_unary(cx, np.positive, x)
    rt = res_type(cx, _clip2 if len(bounds) == 2 else _clip1, *[v.ty for v in [x] + bounds])
    out = as_res(cx, x, rt)
    lo, hi = (None if v is None else _clip_bound(cx, v, rt) for v in (lo, hi))
    risky = x.risky or any(b.risky for b in bounds)
    if len(bounds) == 1:
        keep_ties = False       # NumPy calls np.maximum / np.minimum
    if rt.is_float() and keep_ties is not False:
        n = out.node
        if lo is not None:
            ln = ops.node_of(cx, as_res(cx, lo, rt))
            n = ir.Select(ir.Or(ir.LT(n, ln), ops.is_nan(ln)), ln, n)
        if hi is not None:
            hn = ops.node_of(cx, as_res(cx, hi, rt))
            n = ir.Select(ir.Or(ir.GT(n, hn), ops.is_nan(hn)), hn, n)
        if keep_ties is True:
            return Val(n, rt, risky=risky)
        general = ops.node_of(cx, _clip_general(cx, out, lo, hi, rt))
        return Val(ir.Select(keep_ties, n, general), rt, risky=risky)
    return _clip_general(cx, out, lo, hi, rt)


def _clip_general(cx, out: Val, lo, hi, rt) -> Val:
    """NumPy's general clip loop: minimum(maximum(x, lo), hi)."""
    if lo is not None:
        out = np_minmax(cx, np.maximum, out, as_res(cx, lo, rt))
    if hi is not None:
        out = np_minmax(cx, np.minimum, out, as_res(cx, hi, rt))
    return out


def _clip_bound(cx, v: Val, rt) -> Val:
    """A bound of np.clip as rt: a Python int beyond an integer dtype's range
    is that range's end (NumPy clips with it instead of raising)."""
    if not (v.ty.kind == "int" and rt.is_int()):
        return as_res(cx, v, rt)
    t = rt.ir()
    lo, hi = max(t.min_value(), -(2 ** 63)), min(t.max_value(), 2 ** 63 - 1)
    if v.lo is not None and v.hi is not None and lo <= v.lo and v.hi <= hi:
        return as_res(cx, v, rt)
    n = cast(ir.Int(64), ops.node_of(cx, v))
    n = ir.Max(ir.Min(n, ir.Const(ir.Int(64), hi)), ir.Const(ir.Int(64), lo))
    return Val(cast(t, n), rt, risky=v.risky)


@unions.over_alternatives
def np_binary_op(cx, f, x: Val, y: Val) -> Val:
    """np.add, np.less, ... : the operator on NumPy's result type (a NumPy
    scalar also for Python-scalar operands)."""
    if x.ty.weak and y.ty.weak:      # NumPy computes on its default dtypes, not Python's
        x = ops.convert(cx, x, T.np_ty(x.ty.dtype))
    out = ops.binary(cx, _NP_BINARY_OPS[f], x, y)
    try:
        rt = T.result_type(f, x.ty, y.ty)
    except UnsupportedType:
        return out
    return ops.cast_to(cx, out, rt) if out.ty != rt else out


@unions.over_alternatives
def np_arctan2(cx, f, y: Val, x: Val) -> Val:
    rt = res_type(cx, f, y.ty, x.ty)
    return _fcall(rt, "atan2", ops.node_of(cx, as_res(cx, y, rt)), ops.node_of(cx, as_res(cx, x, rt)),
                  risky=x.risky or y.risky)


@unions.over_alternatives
def np_copysign(cx, f, x: Val, y: Val) -> Val:
    rt = res_type(cx, f, x.ty, y.ty)
    return _fcall(rt, "copysign", ops.node_of(cx, as_res(cx, x, rt)),
                  ops.node_of(cx, as_res(cx, y, rt)), risky=x.risky or y.risky)


@unions.over_alternatives
def np_hypot(cx, f, x: Val, y: Val) -> Val:
    """sqrt(x*x + y*y) as NumPy's loop computes it: C's hypot / hypotf of
    each pair (complex_values.hypot_node: glibc's algorithm, bit for bit)."""
    rt = res_type(cx, f, x.ty, y.ty)
    xv, yv = as_res(cx, x, rt), as_res(cx, y, rt)
    node = C.hypot_node(ops.node_of(cx, xv), ops.node_of(cx, yv))
    return Val(node, rt, risky=x.risky or y.risky)


@unions.over_alternatives
def np_where(cx, f, c: Val, x: Val, y: Val) -> Val:
    """np.where(c, x, y) (both branches evaluated, as NumPy). A Python int
    that the integer result type cannot hold wraps into it, as NumPy's
    np.where casts it (np.where(c, uint8_array, 300) holds 44; a ufunc
    raises OverflowError instead)."""
    rt = res_type(cx, _where, x.ty, y.ty)
    return ops.select(cx, ops.truth(cx, c), _where_operand(cx, x, rt),
                      _where_operand(cx, y, rt), lazy=False)


def _where_operand(cx, v: Val, rt) -> Val:
    if v.ty.weak and v.ty.is_int() and not v.ty.is_bool() and rt.is_int() and v.ty != rt:
        return ops.cast_to(cx, ops.cast_to(cx, v, T.np_ty(np.int64)), rt)
    return ops.convert_for_merge(cx, v, rt)


def np_power_scalar_exponent(cx, f, x: Val, y: Val) -> Val:
    """np.power with an exponent that is not an array: NumPy's loop then
    computes x ** 0.5 as sqrt(x) (so (-inf) ** 0.5 is NaN, (-0.0) ** 0.5 is -0.0)."""
    out = np_binary_op(cx, f, x, y)
    if not out.ty.is_float() or (y.is_const and y.const != 0.5):
        return out
    root = _fcall(out.ty, "sqrt", ops.node_of(cx, as_res(cx, x, out.ty)), risky=out.risky)
    if y.is_const:
        return root
    half = ir.EQ(ops.node_of(cx, as_res(cx, y, out.ty)), ir.Const(out.ty.ir(), 0.5))
    return Val(ir.Select(half, root.node, ops.node_of(cx, out)), out.ty, risky=out.risky)


def np_float_power(cx, f, x: Val, y: Val) -> Val:
    """np.float_power: pow of the operands converted to float64 (complex128
    where one is complex); its loop has no scalar-exponent path (x ** 0.5 is
    pow's: (-inf) ** 0.5 is inf, where np.power gives NaN)."""
    t = T.np_ty(np.complex128 if x.ty.is_complex() or y.ty.is_complex() else np.float64)
    return np_binary_op(cx, np.power, ops.convert(cx, x, t), ops.convert(cx, y, t))


def _clip2(x, lo, hi):
    return np.clip(x, lo, hi)[()]


def _clip1(x, bound):
    return np.clip(x, bound, None)[()]


def _where(x, y):
    return np.where(True, x, y)[()]


def np_logical(cx, f, x: Val, y: Val) -> Val:
    a, c = ops.truth(cx, x), ops.truth(cx, y)
    cls = {np.logical_and: ir.And, np.logical_or: ir.Or, np.logical_xor: ir.NE}[f]
    return Val(cls(a.node, c.node), T.np_ty(np.bool_), risky=a.risky or c.risky)


# NumPy function -> (number of arguments, implementation(cx, f, *argument Vals))
ELEMENTWISE = {}
for _f in list(_NP_UNARY) + [np.abs, np.absolute, np.fabs, np.square, np.negative, np.positive,
                             np.isnan, np.isinf, np.isfinite, np.logical_not, np.round,
                             np.around, np.sign, np.invert, np.reciprocal, np.log2, np.log10,
                             np.deg2rad, np.radians, np.rad2deg,
                             np.degrees]:
    ELEMENTWISE[_f] = (1, np_unary)
for _f in _NP_BINARY_OPS:
    ELEMENTWISE[_f] = (2, np_binary_op)
for _f in (np.minimum, np.maximum, np.fmin, np.fmax):
    ELEMENTWISE[_f] = (2, np_minmax)
for _f in (np.logical_and, np.logical_or, np.logical_xor):
    ELEMENTWISE[_f] = (2, np_logical)
ELEMENTWISE.update({np.arctan2: (2, np_arctan2), np.hypot: (2, np_hypot),
                    np.copysign: (2, np_copysign), np.float_power: (2, np_float_power),
                    np.where: (3, np_where), np.clip: (3, np_clip)})


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
    dt = dtype_arg(b, node, fill_pos, "dtype")
    if like:
        if not isinstance(first, (Arr, ArrayExpr)):
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
    arr = b.arrays.create_array(ty, shape, fill_val, node)
    if like and not ty.is_complex():
        arr.memory_order = k_order(b.array_code.as_array(first, node))    # order='K'
    return arr


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
