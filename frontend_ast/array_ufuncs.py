"""Element-wise NumPy functions (np.sqrt, np.minimum, np.where, np.clip,
np.add, ...) on arrays and scalars, `.astype`, `.clip`, dtype constructors
and builtin abs() applied to arrays.

Every function is its scalar implementation in calls.py (calls.ELEMENTWISE)
applied element by element with NumPy's broadcasting (arrayexpr.lift): the
result is an array value whose elements are computed where it is used, so a
chain of functions makes no temporary arrays. With scalar arguments only, the
result is the scalar NumPy gives."""
from __future__ import annotations

import ast

import numpy as np

from . import (  # noqa: F401  (array_extras ... array_ufunc_reduce register their handlers)
    array_calls,
    array_extras,
    array_math,
    array_trace,
    array_ufunc_outer,
    array_ufunc_reduce,
    calls,
    clip_ties,
)
from .array_create import tuple_array
from .arrayexpr import ArrayExpr, lift
from .values import Arr, TupleVal, Val
from .zero_d_args import mark

# keyword arguments of ufuncs that compiled code refuses, with what to write instead
_KEYWORD_HINTS = {
    "out": "assign the result instead (r = np.sqrt(a)), or store it into an array's slice "
           "(r[...] = np.sqrt(a))",
    "where": "compute the whole result and choose with np.where(mask, np.sqrt(a), other)",
    "dtype": "cast the arguments first (a.astype(np.float32)) or the result (.astype(...))",
    "casting": "cast the arguments explicitly with .astype(...)",
}
_CLIP_KEYWORDS = {"a_min": 1, "min": 1, "a_max": 2, "max": 2}


@array_calls.function(*calls.ELEMENTWISE)
def elementwise(b, f, node, first=None):
    """f(...) of arrays and scalars, element-wise with broadcasting (`first`:
    the value of a first argument that is not in node.args, for methods)."""
    nargs, impl = calls.ELEMENTWISE[f]
    name = f"np.{f.__name__}"
    if f is np.where and len(node.args) == 1 and not node.keywords:
        raise b.cx.err(node, "np.where(condition) with one argument (the indices where the "
                             "condition holds) has a size that depends on the data",
                       hint="use np.where(condition, x, y) to choose element-wise, or loop "
                            "over the array")
    if f in (np.round, np.around) and (len(node.args) > (1 if first is None else 0) or
                                       node.keywords):
        return array_extras.round_call(b, f, node, first)
    arg_nodes = ([] if first is None else [_FIRST]) + list(node.args)
    for k in node.keywords:
        pos = _CLIP_KEYWORDS.get(k.arg) if f is np.clip else None
        if pos is None or len(arg_nodes) > pos:
            raise b.cx.err(k, f"keyword {k.arg}= of {name} is not supported",
                           hint=_KEYWORD_HINTS.get(k.arg, f"call {name} with positional "
                                                          f"arguments only"))
        arg_nodes += [None] * (pos + 1 - len(arg_nodes))
        arg_nodes[pos] = k.value
    if f is np.clip and first is None and len(node.args) == 2 and \
            not any(k.arg == "a_max" for k in node.keywords):
        raise b.cx.err(node, "np.clip(a, a_min) needs a_max too (NumPy: clip() missing 1 "
                             "required positional argument: 'a_max')",
                       hint="write np.clip(a, lo, None) or np.clip(a, min=lo)")
    if f is np.clip and (first is not None or 1 <= len(arg_nodes) <= nargs):
        # a bound not given is None: a.clip(lo), a.clip(max=hi), np.clip(a, max=hi),
        # np.clip(a), a.clip() (NumPy 2: np.positive(a))
        arg_nodes += [None] * (nargs - len(arg_nodes))
        arg_nodes = [ast.copy_location(ast.Constant(None), node) if a is None and k > 0 else a
                     for k, a in enumerate(arg_nodes)]
    if len(arg_nodes) != nargs or any(a is None for a in arg_nodes):
        raise b.cx.err(node, f"{name} takes {nargs} argument(s), got {len(arg_nodes)}")
    values = [first if a is _FIRST else _operand(b, a, name, none_ok=f is np.clip and k > 0)
              for k, a in enumerate(arg_nodes)]
    b.cx.cur_node = node
    if f is np.clip:
        return _clip(b, values, node)
    if f is np.power and not isinstance(values[1], ArrayExpr):
        impl = calls.np_power_scalar_exponent
    out = lift(b.cx, lambda cx, *v: impl(cx, f, *v), values, node, ufunc=True)
    if f is np.where and isinstance(out, Val) and not out.union and not out.ty.is_complex():
        # np.where is no ufunc: NumPy gives a 0-d array for 0-d operands. It is
        # computed with as a scalar (NumPy's arithmetic on it gives scalars; loops
        # carry it: m = np.where(a[i] > m, a[i], m)) and is a 0-d array where
        # it reaches Python (zero_d_args)
        out = mark(b.cx, Val(out.node, out.ty, out.lo, out.hi, out.lbs, out.ubs, out.static,
                             out.const, out.risky, facts=out.facts), node)
    return out


_FIRST = object()     # marks the first argument given as a value (a method's array)


def _operand(b, arg, name, none_ok=False):
    """An argument as an array value (ArrayExpr) or a scalar Val."""
    if isinstance(arg, ast.Starred):
        raise b.cx.err(arg, "`*` arguments are not supported")
    v = b.ev(arg)
    if v is None and none_ok:
        return None
    if isinstance(v, (Arr, ArrayExpr)):
        return b.array_code.as_array(v, arg)
    if isinstance(v, Val):
        return v
    if isinstance(v, TupleVal):
        return tuple_array(b, v, arg)
    raise b.cx.err(arg, f"{name} of {b.describe_obj(v)} is not supported",
                   hint="pass arrays (named or computed) and scalars")


def _clip(b, values, node):
    """np.clip(x, lo, hi): NumPy's loop with both bounds at stride 0 keeps x
    where it ties a bound, its general loop computes minimum(maximum(x, lo),
    hi) (they differ only in the sign of a zero; clip_ties.py says which)."""
    x, lo, hi = values
    operands = [v for v in values if v is not None]
    keep = clip_ties.keep_ties(b.cx, x, lo, hi, node)
    has_lo, has_hi = lo is not None, hi is not None

    def fn(cx, xv, *bounds):
        it = iter(bounds)
        lv = next(it) if has_lo else None
        hv = next(it) if has_hi else None
        return calls.np_clip(cx, np.clip, xv, lv, hv, keep_ties=keep)
    return lift(b.cx, fn, operands, node, ufunc=True)


@array_calls.method("astype")
def astype(b, obj, name, node):
    """a.astype(dtype): a new array of dtype (a copy also for the same dtype)."""
    copy = True
    for k in node.keywords:
        if k.arg == "copy":
            v = b.ev(k.value)
            if not (isinstance(v, Val) and v.is_const and isinstance(v.const, bool)):
                raise b.cx.err(k, "copy= of .astype() must be a constant True or False")
            copy = v.const
        elif k.arg != "dtype":
            raise b.cx.err(k, f"keyword {k.arg}= of .astype() is not supported",
                           hint="write a.astype(dtype)")
    if len(node.args) > 1:
        raise b.cx.err(node, ".astype() takes one argument, the dtype")
    plain = ast.copy_location(ast.Call(node.func, node.args, [
        k for k in node.keywords if k.arg != "copy"]), node)
    dt = calls.dtype_arg(b, plain, 0, "dtype")
    if dt is None:
        raise b.cx.err(node, "astype() needs a dtype")
    if not copy and isinstance(obj, (Arr, ArrayExpr)) and obj.ty.dtype == np.dtype(dt):
        return obj                  # copy=False of the same dtype: the array itself
    return calls.cast_array(b, obj, dt, node)


@array_calls.method("clip")
def clip_method(b, obj, name, node):
    """a.clip(lo, hi): np.clip(a, lo, hi)."""
    return elementwise(b, np.clip, node, first=b.array_code.as_array(obj, node))
