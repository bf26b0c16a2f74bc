"""NumPy functions of array code built from the others: np.flip (also
fliplr/flipud), np.count_nonzero, np.ptp, np.round/np.around with
decimals, np.linalg.norm, np.nansum/np.nanmean, with NumPy's results and
dtypes (each function's docstring says how NumPy computes it).

- np.flip(m, axis=None) is a view (index arithmetic n - 1 - i along the
  flipped axes), as in NumPy.
- np.count_nonzero(a, axis=None, keepdims=False) is
  `a.astype(bool).sum(axis, dtype=np.intp, keepdims)` (an np.intp scalar
  for all axes), as NumPy computes it.
- np.ptp(a, axis=None, keepdims=False) is `max - min` over the axes in
  a's dtype (integers wrap as NumPy's subtraction does).
- np.round(x, d) follows NumPy's PyArray_Round: f = 10 ** |d| (the same
  double NumPy makes), then rint(x * f) / f for d >= 0, rint(x / f) * f
  for d < 0, in x's float dtype; an integer x is returned as a copy for
  d >= 0 and computed in float64 and cast back for d < 0."""
from __future__ import annotations

import ast

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import array_calls, calls, ops
from . import types as T
from .array_args import axes_of, dtype_of, flag_of, numpy_ty, operand_of, parse_args
from .array_reduce import INTP, finish, fold, minmax, reduce_call, total
from .array_shape import derived
from .arrayexpr import ArrayExpr, k_order, lift
from .ufunc_order import result_order
from .values import Val, const_val


# np.flip -----------------------------------------------------------------------------------
@array_calls.function(np.flip, np.fliplr, np.flipud)
def _flip(b, fn, node):
    sig = ("axis",) if fn is np.flip else ()
    got = parse_args(b, fn.__name__, None, node, sig)
    a = operand_of(b, got["a"][0], got["a"][1])
    if fn is np.flip:
        axes = axes_of(b, got, a.ndim) if "axis" in got else tuple(range(a.ndim))
    else:
        need = 2 if fn is np.fliplr else 1
        if a.ndim < need:
            raise b.cx.err(node, f"Input must be >= {need}-d.")
        axes = (1,) if fn is np.fliplr else (0,)
    cx = b.cx
    sizes = {k: cast(ir.INDEX, ops.node_of(cx, a.shape[k])) for k in axes}

    def m(idx):
        return [ir.Sub(ir.Sub(sizes[k], ir.index(1)), i) if k in sizes else i
                for k, i in enumerate(idx)]
    return derived(a, list(a.shape), m, node)


# np.count_nonzero ---------------------------------------------------------------------------
@array_calls.function(np.count_nonzero)
def _count_nonzero(b, fn, node):
    got = parse_args(b, "count_nonzero", None, node, ("axis", "keepdims"))
    a = operand_of(b, got["a"][0], got["a"][1])
    cx, ac = b.cx, b.array_code
    keepdims = flag_of(b, got, "keepdims")
    axes = axes_of(b, got, a.ndim)

    def nonzero(i):
        cx.cur_node = node
        return Val(ops.truth(cx, a.elem(i)).node, T.np_ty(np.bool_))
    truth = ArrayExpr(a.shape, T.np_ty(np.bool_), nonzero, node)
    if not axes:
        out = ArrayExpr(a.shape, INTP, lambda i: ops.cast_to(cx, truth.elem(i), INTP), node)
    else:
        out = fold(ac, truth, axes, INTP, "+", 0, node, "count_nonzero")
    return finish(ac, out, axes, a.ndim, keepdims, node)


# np.ptp ------------------------------------------------------------------------------------
@array_calls.function(np.ptp)
def _ptp(b, fn, node):
    got = parse_args(b, "ptp", None, node, ("axis", "out", "keepdims"))
    cx = b.cx
    hi = reduce_call(b, "max", got["a"][0], _Call(node, "max"))
    lo = reduce_call(b, "min", got["a"][0], _Call(node, "min"))
    cx.cur_node = node
    if isinstance(hi, Val):
        return ops.binary(cx, "-", hi, lo)
    return b.array_code.binary("-", hi, lo, node)


class _Call:
    """The ast.Call of np.ptp(a, ...) as a method call a.max(...)/a.min(...)
    (the same keyword arguments, the array argument dropped)."""

    def __init__(self, node, name):
        self.args = list(node.args[1:])
        self.keywords = list(node.keywords)
        self.func = node.func
        self.name = name
        for k in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            setattr(self, k, getattr(node, k, None))


# np.round with decimals ------------------------------------------------------------------------
def power_of_ten(n: int) -> float:
    """NumPy's power_of_ten (calculation.c): the double 10 ** n it rounds with."""
    p10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8]
    if n < 9:
        return p10[n]
    ret = 1e9
    while n > 9:
        ret *= 10.0
        n -= 1
    return ret


def round_call(b, f, node, first=None):
    """np.round(x, decimals) / np.around / a.round(decimals) (`first`: the
    array of a method call): decimals a constant integer, out= refused."""
    cx = b.cx
    args = ([first] if first is not None else []) + list(node.args)
    d_node = args[1] if len(args) > 1 else None
    for k in node.keywords:
        if k.arg != "decimals" or d_node is not None:
            raise cx.err(k, f"keyword {k.arg}= of np.{f.__name__} is not supported",
                         hint="assign the result instead" if k.arg == "out" else "")
        d_node = k.value
    if len(args) > 2 or not args:
        raise cx.err(node, f"np.{f.__name__} takes an array and the decimals")
    d = b.ev(d_node) if d_node is not None else const_val(0)
    if not (isinstance(d, Val) and d.is_const and isinstance(d.const, (int, np.integer)) and
            not isinstance(d.const, bool)):
        raise cx.err(d_node, "the decimals of np.round must be a constant integer")
    x = args[0] if first is not None else b.ev(args[0])
    x = b.array_code.as_array(x, node) if not isinstance(x, Val) else x
    if x is None:
        raise cx.err(node, f"np.{f.__name__} of this value is not supported")
    return round_decimals(b, f, x, int(d.const), node)


@array_calls.method("round")
def _round_method(b, obj, name, node):
    return round_call(b, np.round, node, first=b.array_code.as_array(obj, node))


def round_decimals(b, f, x, decimals: int, node):
    """np.round(x, decimals) of an array value or a scalar (see the module
    docstring)."""
    cx = b.cx
    if isinstance(x, Val) and x.ty.weak:        # as the 0-d array NumPy makes of it
        x = ops.convert(cx, x, T.np_ty(np.asarray(x.ty.sample(1)).dtype))
    ty = x.ty
    name = f"np.{f.__name__}"
    if ty.is_complex() or ty.is_bool():
        raise cx.err(node, f"{name} with decimals of {ty.describe()} is not supported",
                     hint=f"round a float array: {name}(x.astype(np.float64), d)")
    rint = calls.ELEMENTWISE[np.rint][1]
    if ty.is_int() and decimals >= 0:
        return x                                # a copy in NumPy: the same values
    work = ty if ty.is_float() else T.np_ty(np.float64)
    factor = ops.convert(cx, const_val(power_of_ten(abs(decimals))), work)
    first, then = ("*", "/") if decimals >= 0 else ("/", "*")

    def one(cx, v):
        v = ops.cast_to(cx, v, work)
        r = rint(cx, np.rint, ops.binary(cx, first, v, factor))
        r = ops.binary(cx, then, r, factor)
        return r if not ty.is_int() else ops.cast_to(cx, r, T.np_ty(ty.dtype))
    if isinstance(x, ArrayExpr):
        return lift(cx, one, [x], node)
    return one(cx, x)


# np.linalg.norm --------------------------------------------------------------------------------
@array_calls.function(np.linalg.norm)
def _norm(b, fn, node):
    """np.linalg.norm of real arrays as NumPy's _linalg.norm computes it:
    with axis=None and ord None ('fro' for 2-D, 2 for 1-D), sqrt(x.dot(x))
    of the raveled array (here summed in C order, as np.dot here: NumPy's
    BLAS order differs, docs/numpy_code.md); with one axis, ord None/2
    sqrt(add.reduce(x * x)), 1 add.reduce(abs(x)), inf/-inf abs(x).max/min,
    0 the count of nonzeros as floats; with two axes, 'fro' (or None)
    sqrt(add.reduce(x * x)) over both (NumPy's summation order)."""
    got = parse_args(b, "norm", None, node, ("ord", "axis", "keepdims"))
    cx, ac = b.cx, b.array_code
    x = operand_of(b, got["a"][0], got["a"][1])
    if x.ty.is_complex():
        raise cx.err(node, "np.linalg.norm of complex arrays is not supported yet",
                     hint="np.sqrt((z.real ** 2 + z.imag ** 2).sum())")
    if not x.ty.is_float():
        x = _map_cast(cx, x, T.np_ty(np.float64), node)
    ord_ = _norm_ord(b, got)
    keepdims = flag_of(b, got, "keepdims")
    given = "axis" in got and not (isinstance(got["axis"][0], Val) and got["axis"][0].is_const
                                   and got["axis"][0].const is None)
    axes = axes_of(b, got, x.ndim)
    sqrt = calls.ELEMENTWISE[np.sqrt][1]

    def absolute(cx, v):
        return calls.ELEMENTWISE[np.abs][1](cx, np.abs, v)

    def elementwise(value, f):
        # NumPy's temporaries keep their operand's memory order, which decides
        # the summation order of the reduction over them
        return ArrayExpr(value.shape, value.ty, lambda i: f(cx, value.elem(i)), node,
                         order=result_order([value], value.ndim))
    square = elementwise(x, lambda cx, v: ops.binary(cx, "*", v, v))
    if not given and (ord_ is None or (ord_ == "fro" and x.ndim == 2) or
                      (ord_ == 2 and x.ndim == 1)):
        s = fold(ac, square, tuple(range(x.ndim)), x.ty, "+", 0, node, "norm")
        return finish(ac, elementwise(s, lambda cx, v: sqrt(cx, np.sqrt, v)),
                      tuple(range(x.ndim)), x.ndim, keepdims, node)
    if len(axes) == 1 and given:
        if ord_ in (None, 2):
            out = elementwise(total(ac, square, axes, x.ty, node, "norm"),
                              lambda cx, v: sqrt(cx, np.sqrt, v))
        elif ord_ == 1:
            out = total(ac, elementwise(x, absolute), axes, x.ty, node, "norm")
        elif ord_ in (np.inf, -np.inf):
            out = minmax(ac, elementwise(x, absolute), axes, ord_ < 0, node)
        elif ord_ == 0:
            nz = elementwise(x, lambda cx, v: ops.cast_to(cx, Val(ops.truth(cx, v).node,
                                                                   T.np_ty(np.bool_)), x.ty))
            out = total(ac, nz, axes, x.ty, node, "norm")
        else:
            raise cx.err(node, f"np.linalg.norm with ord={ord_!r} is not supported",
                         hint="ord None, 1, 2, 0, np.inf or -np.inf")
        return finish(ac, out, axes, x.ndim, keepdims, node)
    if len(axes) == 2 and ord_ in (None, "fro"):
        out = elementwise(total(ac, square, axes, x.ty, node, "norm"),
                          lambda cx, v: sqrt(cx, np.sqrt, v))
        return finish(ac, out, axes, x.ndim, keepdims, node)
    raise cx.err(node, f"np.linalg.norm with ord={ord_!r} over {len(axes)} axes is not "
                       f"supported", hint="the default ord, or one axis")


def _norm_ord(b, got):
    v, where = got.get("ord", (None, None))
    if isinstance(where, ast.Constant) and where.value in ("fro", "nuc"):
        return where.value
    if v is None or (isinstance(v, Val) and v.is_const and v.const is None):
        return None
    if isinstance(v, Val) and v.is_const and isinstance(v.const, (int, float, str)) and \
            not isinstance(v.const, bool):
        return v.const
    raise b.cx.err(where, "ord= of np.linalg.norm must be a constant")


def _map_cast(cx, x, ty, node):
    """x.astype(ty): order 'K' keeps x's memory order."""
    return ArrayExpr(x.shape, ty, lambda i: ops.cast_to(cx, x.elem(i), ty), node,
                     order=result_order([x], x.ndim))


# np.nansum, np.nanmean -------------------------------------------------------------------------
@array_calls.function(np.nansum, np.nanmean)
def _nan_reduce(b, fn, node):
    """NumPy's nanfunctions: NaNs replaced by 0 (_replace_nan), then np.sum
    (NumPy's summation order); nanmean divides by the count of the other
    elements as _divide_by_count does (true_divide by the intp count, cast
    back to the sum's dtype; 0/0 is NaN). Integer and boolean arrays are
    np.sum / np.mean of themselves."""
    what = fn.__name__
    got = parse_args(b, what, None, node, ("axis", "dtype", "out", "keepdims"))
    cx, ac = b.cx, b.array_code
    a = operand_of(b, got["a"][0], got["a"][1])
    if a.ty.is_complex():
        raise cx.err(node, f"np.{what} of complex arrays is not supported yet")
    if not a.ty.is_float():
        return reduce_call(b, what[3:], a, _Call(node, what))
    axes = axes_of(b, got, a.ndim)
    keepdims = flag_of(b, got, "keepdims")
    dt = dtype_of(b, got)
    sample = np.zeros((1,), a.ty.dtype)
    rt = numpy_ty(b, lambda: np.sum(sample, dtype=dt).dtype, node)

    def replaced(i):
        cx.cur_node = node
        v = a.elem(i)
        n = ops.node_of(cx, v)
        return Val(ir.Select(ops.is_nan(n), ir.Const(n.type, 0), n), a.ty)
    # (_replace_nan's copy is in a's memory order, order='K': np.sum follows it)
    tot = total(ac, ArrayExpr(a.shape, a.ty, replaced, node, order=k_order(a)), axes, rt, node,
                what)
    if what == "nansum":
        return finish(ac, tot, axes, a.ndim, keepdims, node, operand=a)
    kept = ArrayExpr(a.shape, T.np_ty(np.bool_),
                     lambda i: Val(ir.Not(ops.is_nan(ops.node_of(cx, a.elem(i)))),
                                   T.np_ty(np.bool_)), node)
    cnt = fold(ac, kept, axes, INTP, "+", 0, node, "count")

    def avg(i):
        cx.cur_node = node
        return ops.cast_to(cx, ops.binary(cx, "/", tot.elem(i), cnt.elem(i)), rt)
    return finish(ac, ArrayExpr(tot.shape, rt, avg, node), axes, a.ndim, keepdims, node,
                  operand=a)
