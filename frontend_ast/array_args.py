"""Arguments of the reductions, products and scans of NumPy-style array
code: NumPy's parameter lists (what compiled code does not take is a located
error with a hint), the operand as an array value (a scalar as a 0-d array
of its NumPy type), constant axes, flags and dtypes, and result dtypes
asked of NumPy."""
from __future__ import annotations

import ast

import numpy as np

from . import ops
from . import types as T
from .arrayexpr import ArrayExpr
from .refs import BuiltinRef
from .types import UnsupportedType
from .values import DtypeVal, TupleVal, Val

_HINTS = {"out": "assign the result instead: out[...] = a.sum(axis=0)",
          "where": "mask the operand instead: np.where(mask, a, 0).sum()",
          "initial": "combine the result with the initial value: max(a.max(), v)",
          "mean": "compute the deviations yourself: ((a - m) ** 2).mean()",
          "correction": "use ddof="}


def parse_args(b, what, obj, node, sig, lists=(), literal_array=None):
    """{parameter name: (value, AST node)} of a reduction call: obj the
    array of a method call (else the first positional argument); a
    parameter this code does not compile is a located error. A parameter
    named in `lists` given as a list or tuple literal is the array
    np.asarray makes of it (`literal_array(b, node)`, array_create's)."""
    args = list(node.args)
    got = {}
    if obj is None:
        if not args:
            raise b.cx.err(node, f"{what}() needs an array argument")
        first = args.pop(0)
        got["a"] = (b.ev(first), first)
    else:
        got["a"] = (obj, node)
    if len(args) > len(sig):
        raise b.cx.err(node, f"{what}() takes at most {len(sig)} arguments after the array")
    pairs = list(zip(sig, args)) + [(k.arg, k.value) for k in node.keywords]
    for name, vnode in pairs:
        if name is None or name not in sig:
            raise b.cx.err(vnode, f"{what}() got an unexpected argument {name!r}")
        if name in got:
            raise b.cx.err(vnode, f"{what}() got multiple values for argument {name!r}")
        if name in _HINTS:
            raise b.cx.err(vnode, f"the {name}= argument of {what}() is not supported in "
                                  f"compiled code", hint=_HINTS[name])
        if name in lists and isinstance(vnode, (ast.List, ast.Tuple)):
            got[name] = (literal_array(b, vnode), vnode)
        else:
            got[name] = (b.ev(vnode), vnode)
    return got


def operand_of(b, v, where) -> ArrayExpr:
    """An array, or a scalar as a 0-d array of its NumPy type."""
    a = b.array_code.as_array(v, where)
    if a is not None:
        return a
    if isinstance(v, Val):
        if v.ty.weak:
            v = ops.convert(b.cx, v, T.np_ty(np.asarray(v.ty.sample(1)).dtype))
        return ArrayExpr([], v.ty, lambda i, v=v: v, where)
    raise b.cx.err(where, f"expected an array, got {b.describe_obj(v)}")


def axes_of(b, got, ndim, single=False):
    """The sorted NumPy axes a reduction reduces (all for axis=None)."""
    order = axis_order(b, got, ndim, single)
    return tuple(range(ndim)) if order is None else tuple(sorted(order))


def axis_order(b, got, ndim, single=False):
    """The normalized axes of the axis= argument in the order given (None
    for axis=None); `single`: an integer only."""
    v, where = got.get("axis", (None, None))
    if v is None:
        return None
    items = v.items if isinstance(v, TupleVal) else [v]
    if single and isinstance(v, TupleVal):
        raise b.cx.err(where, "axis must be an integer here, not a tuple")
    out = []
    for it in items:
        if not (isinstance(it, Val) and it.is_const and isinstance(it.const, (int, np.integer))
                and not isinstance(it.const, (bool, np.bool_))):
            raise b.cx.err(where, "axis must be a constant integer or a tuple of them",
                           hint="write the axis as a literal, e.g. axis=0 or axis=(0, 1)")
        k = int(it.const)
        if not -ndim <= k < ndim:
            raise b.cx.err(where, f"axis {k} is out of bounds for array of dimension {ndim}")
        k %= ndim
        if k in out:
            raise b.cx.err(where, "duplicate value in 'axis'")
        out.append(k)
    return out


def flag_of(b, got, name):
    v, where = got.get(name, (None, None))
    if v is None:
        return False
    if isinstance(v, Val) and v.is_const:
        return bool(v.const)
    raise b.cx.err(where, f"{name}= must be a constant True or False")


def dtype_value(cx, v, where):
    """The dtype a value names (np.float32, 'int32', float, a.dtype; None
    for None); a located error for anything else."""
    if v is None:
        return None
    if isinstance(v, DtypeVal):
        return v.dtype
    if isinstance(v, BuiltinRef) and v.name in ("int", "float", "bool"):
        return T.parse_dtype({"int": int, "float": float, "bool": bool}[v.name])
    if isinstance(v, str):
        try:
            return np.dtype(v)
        except TypeError:
            raise cx.err(where, f"unknown dtype {v!r}") from None
    raise cx.err(where, "expected a dtype (np.float64, 'int32', float, a.dtype, ...)")


def dtype_of(b, got):
    v, where = got.get("dtype", (None, None))
    return dtype_value(b.cx, v, where)


def numpy_ty(b, fn, where):
    """The Ty of the dtype NumPy gives fn() (a located error if unsupported)."""
    try:
        return T.np_ty(np.dtype(fn()))
    except (UnsupportedType, TypeError, ValueError) as e:
        raise b.cx.err(where, str(e)) from None
