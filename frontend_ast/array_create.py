"""Array creation and assembly in NumPy-style code: np.arange, np.linspace,
np.array/np.asarray of (nested) literals and of arrays, copies (.copy(),
np.copy), np.tile, np.concatenate/stack/hstack/vstack, and np.full with an
array fill.

Results are new array values (ArrayExprs: elements as a function of the
index, read from their sources when used), stored by the caller when named;
their sizes are Python ints known at call time. Values are NumPy's exactly:
arange's elements are computed as NumPy's fill loop computes them, linspace's
as numpy/_core/function_base.py does. Errors NumPy raises when the call runs
are raised at call time with NumPy's exception type and message."""
from __future__ import annotations

import ast
import math

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node

from . import array_calls, ops
from . import complex_values as C
from . import types as T
from .array_args import dtype_value
from .array_shape import (
    as_source,
    call_args,
    check_at_call,
    clamp_index,
    const_int,
    expand_dims,
    fail_at_call,
    norm_axis,
    product,
    reshaped,
    size_node,
    size_val,
    static_int,
)
from .array_store import Dest, builder_of, write
from .arraycode import is_whole_view
from .arrayexpr import (
    RESULT_ORDER,
    ArrayExpr,
    broadcast_index,
    clamped_into,
    k_order,
    same_size,
    size_is,
    under_condition,
)
from .call_time_reach import IfEmpty, add_loop_gated, add_shape_check, run_time_gated
from .types import UnsupportedType
from .values import Arr, TupleVal, Val, const_val

_BOOL = T.np_ty(np.bool_)

# helpers ------------------------------------------------------------------------------------


def dtype_arg(b, node):
    """The dtype an argument names (None for None)."""
    return dtype_value(b.cx, b.ev(node), node)


def ty_of(b, dt, node):
    try:
        return T.np_ty(dt)
    except UnsupportedType as e:
        raise b.cx.err(node, str(e)) from None


def zero(ty, cx=None) -> Val:
    """A placeholder element (of an array whose call raises before it is
    read, or whose elements are all written before they are read); of a
    complex type (cx given) a complex zero."""
    if ty.is_complex() and cx is not None:
        return C.constant(cx, ty.dtype.type(0))
    return const_val(ty.dtype.type(0))


def cond(node) -> Val:
    return Val(node, _BOOL)


def index_eq(i, k) -> Val:
    return cond(ir.EQ(i, ir.index(k)))


def _sample(v: Val):
    """A Python/NumPy value of v's type (v's own value when it is constant)."""
    return v.const if v.is_const else v.ty.sample(1)


def _scalar_dtype(v: Val):
    """The dtype np.asarray gives the scalar v."""
    return np.asarray(_sample(v)).dtype


def _raises(fn):
    """fn() -> None, or (exception type, message) of what it raises."""
    try:
        fn()
    except Exception as e:      # NumPy's own error, re-raised at call time
        return type(e), str(e)
    return None


def _deferred_errors(cx, node, fn, parts):
    """Raise at call time what fn(*values of parts) raises."""
    if all(p.is_const for p in parts) and _raises(lambda: fn(*[p.const for p in parts])) is None:
        return
    check_at_call(cx, node, lambda env: _raises(lambda: fn(*[p.static(env) for p in parts])))


def converted(cx, v: Val, ty) -> Val:
    """An element of an array value as type ty (NumPy's cast of array data)."""
    return v if v.ty == ty else ops.cast_to(cx, v, ty)


def as_any_array(b, v, where) -> ArrayExpr:
    """An array value, or a scalar as a 0-d array (np.asarray)."""
    a = b.array_code.as_array(v, where)
    if a is not None:
        return a
    if isinstance(v, Val):
        ty = ty_of(b, _scalar_dtype(v), where)
        x = b.arrays.store_convert(v, ty)
        return ArrayExpr([], ty, lambda idx: x, where)
    raise b.cx.err(where, f"expected an array, got {b.describe_obj(v)}")


def sequence(b, node, what):
    """The items of a list/tuple argument (a literal, or a tuple value); an
    item that is a list display is the array np.asarray makes of it."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_list_item(b, e) if isinstance(e, ast.List) else b.ev(e)
                for e in node.elts], list(node.elts)
    v = b.ev(node)
    if isinstance(v, TupleVal):
        return list(v.items), [node] * len(v.items)
    raise b.cx.err(node, f"{what} needs a list or tuple of arrays",
                   hint="write the arrays in a list: np.concatenate([a, b])")


def literal_array(b, e):
    """The array np.asarray makes of a list or tuple literal `e`."""
    return _list_item(b, e)


def _list_item(b, e):
    tree = _tree(b, e)
    return tree if isinstance(tree, (Arr, ArrayExpr)) else _literal_array(b, tree, None, e, e)


# np.arange ----------------------------------------------------------------------------------


def arange_length(start, stop, step) -> int:
    """NumPy's _calc_length for real arguments (Python-object arithmetic)."""
    with np.errstate(all="ignore"):
        nxt = stop - start
        val = nxt / step
        value = float(val)
    if val == 0 and nxt != 0:
        n = 0 if math.copysign(1.0, value) < 0 else 1
    else:
        if math.isnan(value):
            raise ValueError("arange: cannot compute length")
        if math.isinf(value) or not -2.0 ** 63 <= math.ceil(value) <= 2.0 ** 63:
            raise ValueError("Maximum allowed size exceeded")
        n = math.ceil(value)
    return max(n, 0)


@array_calls.function(np.arange)
def _arange(b, fn, node):
    cx = b.cx
    a = call_args(b, node, "arange", ["start", "stop", "step", "dtype"], 1)
    vals = {k: b.ev(a[k]) for k in ("start", "stop", "step") if k in a}
    vals = {k: v for k, v in vals.items() if v is not None}
    if "stop" not in vals:
        vals = {"start": const_val(0), "stop": vals["start"], "step": vals.get("step")}
    start, stop = vals["start"], vals["stop"]
    step = vals.get("step") or const_val(1)
    for v in (start, stop, step):
        if not isinstance(v, Val) or not (v.ty.is_int() or v.ty.is_float() or v.ty.is_bool()):
            raise cx.err(node, "np.arange needs real scalar start, stop and step")
        if not v.is_static:
            raise cx.err(node, "np.arange's arguments must not depend on array contents or "
                               "loop variables (they decide its length)",
                         hint="compute them from .shape, len() and scalar arguments")
    dt = dtype_arg(b, a["dtype"]) if "dtype" in a else None
    if dt is None:
        dt = np.arange(_sample(start), _sample(stop), _sample(step)).dtype
    ty = ty_of(b, dt, node)
    if ty.is_bool():
        raise cx.err(node, "np.arange with a bool dtype is not supported",
                     hint="compare an integer arange instead: np.arange(n) > 0")
    cx.cur_node = node
    n = static_int(cx, arange_length, [start, stop, step])
    if start.is_const and start.const == 0 and step.is_const and step.const == 1 and \
            stop.ty.is_int() and not stop.ty.is_bool() and stop.node is not None and \
            stop.lo is not None and stop.hi is not None and 0 <= stop.lo and stop.hi < 2 ** 31:
        n = stop      # (np.arange(a.shape[0]): its length is that node, not a new parameter)
    _deferred_errors(cx, node, arange_length, [start, stop, step])
    first = b.arrays.store_convert(start, ty)
    second = b.arrays.store_convert(ops.binary(cx, "+", start, step), ty)
    f0, f1 = ops.node_of(cx, first), ops.node_of(cx, second)
    t = ty.ir()

    def rest(i):            # NumPy's fill: start + i*delta, delta = buffer[1] - buffer[0]
        if t.is_float():
            return ir.Add(f0, ir.Mul(cast_node(t, i), ir.Sub(f1, f0)))
        w = ir.Int(64)
        s = cast_node(w, f0)
        return cast_node(t, ir.Add(s, ir.Mul(cast_node(w, i), ir.Sub(cast_node(w, f1), s))))

    def elem(idx):
        i = idx[0]
        cx.cur_node = node
        return ops.select(cx, index_eq(i, 0), first,
                          ops.select(cx, index_eq(i, 1), second, Val(rest(i), ty)))
    return ArrayExpr([n], ty, elem, node)


# np.linspace --------------------------------------------------------------------------------


@array_calls.function(np.linspace)
def _linspace(b, fn, node):
    cx = b.cx
    a = call_args(b, node, "linspace", ["start", "stop", "num", "endpoint", "retstep", "dtype",
                                        "axis"], 2)
    start, stop = b.ev(a["start"]), b.ev(a["stop"])
    for v, w in ((start, a["start"]), (stop, a["stop"])):
        if not isinstance(v, Val) or not (v.ty.is_int() or v.ty.is_float() or v.ty.is_bool()):
            raise cx.err(w, "np.linspace is supported for real scalar start and stop")
    num = b.ev(a["num"]) if "num" in a else const_val(50)
    if not isinstance(num, Val) or not (num.ty.is_int() or num.ty.is_bool()):
        raise cx.err(a.get("num", node), "num must be an integer")
    num = size_val(cx, num, a.get("num", node))
    endpoint = const_flag(b, a, "endpoint", True)
    retstep = const_flag(b, a, "retstep", False)
    if "axis" in a and const_int(b, b.ev(a["axis"]), a["axis"]) not in (0, -1):
        fail_at_call(cx, node, np.exceptions.AxisError,
                     "axis is out of bounds for array of dimension 1")
    dt = np.linspace(_sample(start), _sample(stop), 2).dtype
    ty = ty_of(b, dt, node)
    out_dt = dtype_arg(b, a["dtype"]) if "dtype" in a else None
    out_ty = ty_of(b, out_dt, node) if out_dt is not None else ty
    _deferred_errors(cx, node, _num_check, [num])
    cx.cur_node = node
    s = ops.convert(cx, start, ty) if start.ty.weak else ops.cast_to(cx, start, ty)
    e = ops.convert(cx, stop, ty) if stop.ty.weak else ops.cast_to(cx, stop, ty)
    t = ty.ir()
    sn, en = ops.node_of(cx, s), ops.node_of(cx, e)
    delta = ir.Sub(en, sn)
    div_v = ops.binary(cx, "-", num, const_val(1)) if endpoint else num
    div = cast_node(t, ops.node_of(cx, div_v))
    step = ir.Div(delta, div)
    nn = cast_node(ir.INDEX, ops.node_of(cx, num))

    def value(i):
        x = cast_node(t, i)
        by_step = ir.Select(ir.EQ(step, ir.Const(t, 0.0)), ir.Mul(ir.Div(x, div), delta),
                            ir.Mul(x, step))
        y = ir.Select(ir.GT(ops.node_of(cx, div_v), ir.Const(ops.node_of(cx, div_v).type, 0)),
                      by_step, ir.Mul(x, delta))
        y = ir.Add(y, sn)
        if endpoint:
            y = ir.Select(ir.And(ir.GT(nn, ir.index(1)), ir.EQ(i, ir.Sub(nn, ir.index(1)))),
                          en, y)
        v = Val(y, ty, risky=s.risky or e.risky)
        if out_ty.is_int():
            v = Val(ir.Call(t, "floor", (y,), ir.INTRINSIC), ty, risky=v.risky)
        return converted(cx, v, out_ty)

    out = ArrayExpr([num], out_ty, lambda idx: value(idx[0]), node)
    if not retstep:
        return out
    if not num.is_const:
        raise cx.err(node, "retstep=True needs a constant num")
    if div_v.const <= 0:
        return TupleVal([out, const_val(float("nan"))])
    return TupleVal([out, Val(step, ty, risky=s.risky or e.risky)])


def _num_check(num):
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")


def const_flag(b, a, name, default) -> bool:
    """A keyword argument that must be a constant True or False (a: the
    arguments by name, call_args)."""
    if name not in a:
        return default
    v = b.ev(a[name])
    if isinstance(v, Val) and v.is_const:
        return bool(v.const)
    raise b.cx.err(a[name], f"{name} must be a constant (True or False)")


# np.array / np.asarray --------------------------------------------------------------------


def _tree(b, node):
    """A (nested) list literal or tuple as nested lists of values."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_tree(b, e) for e in node.elts]
    return _tree_of(b.ev(node))


def _tree_of(v):
    if isinstance(v, TupleVal):
        return [_tree_of(x) for x in v.items]
    return v


class _Ragged(Exception):
    def __init__(self, depth, detected):
        super().__init__()
        self.depth, self.detected = depth, detected


def _assemble(b, tree, node, ty):
    """(shape, elem) of a nested list of scalars and arrays as one array of ty."""
    cx = b.cx
    if isinstance(tree, Val):
        v = b.arrays.store_convert(tree, ty)
        return [], lambda idx: v
    if not isinstance(tree, list):
        x = as_source(b, tree, node)
        return list(x.shape), lambda idx: converted(cx, x.elem(idx), ty)
    parts = [_assemble(b, t, node, ty) for t in tree]
    if not parts:
        return [const_val(0)], lambda idx: zero(ty)
    inner = parts[0][0]
    for shp, _ in parts[1:]:
        if len(shp) != len(inner) or not all(
                (x.is_const and y.is_const and x.const == y.const) or same_size(cx, x, y)
                for x, y in zip(shp, inner)):
            if len(shp) == len(inner) and not all(x.is_const and y.is_const
                                                  for x, y in zip(shp, inner)):
                for x, y in zip(shp, inner):
                    if not same_size(cx, x, y):
                        check_at_call(cx, node, lambda env, x=x, y=y: None if x.static(env) ==
                                      y.static(env) else (ValueError, "setting an array element "
                                                          "with a sequence: the nested "
                                                          "arrays have different shapes"))
                continue
            raise _Ragged(1, len(tree))
    elems = [e for _, e in parts]

    def elem(idx):
        i, rest = idx[0], idx[1:]
        out = elems[-1](rest)
        for k in reversed(range(len(elems) - 1)):
            out = ops.select(cx, index_eq(i, k), elems[k](rest), out)
        return out
    return [const_val(len(tree))] + list(inner), elem


def _leaf_dtypes(tree, out):
    if isinstance(tree, list):
        for t in tree:
            _leaf_dtypes(t, out)
    elif isinstance(tree, Val):
        out.append(_scalar_dtype(tree))
    elif isinstance(tree, (Arr, ArrayExpr)):
        out.append(tree.ty.dtype)
    return out


@array_calls.function(np.array, np.asarray)
def _array(b, fn, node):
    cx = b.cx
    name = fn.__name__
    a = call_args(b, node, name, ["object", "dtype"], 1)
    dt = dtype_arg(b, a["dtype"]) if "dtype" in a else None
    obj = a["object"]
    tree = _tree(b, obj)
    if isinstance(tree, (Arr, ArrayExpr)):
        src = as_source(b, tree, obj)
        if fn is np.asarray and (dt is None or np.dtype(dt) == src.ty.dtype):
            return tree                          # np.asarray(a) is a
        ty = ty_of(b, dt, node) if dt is not None else src.ty
        return ArrayExpr(src.shape, ty, lambda idx: converted(cx, src.elem(idx), ty), node,
                         order=k_order(src))
    if not isinstance(tree, (list, Val)):
        raise cx.err(obj, f"{name}() of {b.describe_obj(tree)} is not supported")
    return _literal_array(b, tree, dt, obj, node)


def _literal_array(b, tree, dt, obj, node) -> ArrayExpr:
    """The array np.array makes of nested lists of scalars and arrays (dtype
    dt, or NumPy's for the leaves); a ragged one raises NumPy's ValueError
    at call time."""
    cx = b.cx
    leaves = _leaf_dtypes(tree, [])
    for v in leaves:
        if v.kind == "c":
            raise cx.err(obj, "complex arrays are not supported here")
    if dt is None:
        dt = np.result_type(*leaves) if leaves else np.dtype(np.float64)
    ty = ty_of(b, dt, node)
    try:
        shape, elem = _assemble(b, tree, obj, ty)
    except _Ragged:
        fail_at_call(cx, node, ValueError, "setting an array element with a sequence. The "
                                           "requested array has an inhomogeneous shape")
        return ArrayExpr([const_val(0)], ty, lambda idx: zero(ty), node)
    return ArrayExpr(shape, ty, elem, node)


def tuple_array(b, v: TupleVal, node) -> ArrayExpr:
    """A tuple used as an array operand (`mask == np.bitwise_and(mask, x)`
    with `mask = (1, 0, 1)`): the array np.asarray makes of it, NumPy's
    dtype of its elements (a Python int int64, a Python float float64)."""
    return _literal_array(b, _tree_of(v), None, node, node)


# copies -------------------------------------------------------------------------------------


def copied(b, v, node, order="C") -> ArrayExpr:
    """A new array with v's elements (read now: the caller stores it, so
    later writes to v's array do not show), in NumPy's memory order for
    `order` ("C", "F"; "K": v's; "A": Fortran order if v's is, else C)."""
    src = as_source(b, v, node)
    if order == "F":
        fortran = tuple(reversed(range(src.ndim)))
        return ArrayExpr(src.shape, src.ty, src.elem, node, order=fortran if src.ndim > 1 else None)
    mem = None if order == "C" else k_order(src)
    if order == "A" and not _fortran_contiguous(src, mem):
        mem = None
    return ArrayExpr(src.shape, src.ty, src.elem, node, order=mem)


def _fortran_contiguous(src: ArrayExpr, order) -> bool:
    """Whether the array value src (its memory order `order`) is
    Fortran-contiguous: a new array, an array the function made or an
    argument of layout "F", whole."""
    if order != tuple(reversed(range(src.ndim))):
        return False
    if src.view is None:
        return True
    arr = src.view[0]
    return is_whole_view(src) and (getattr(arr, "layout", None) == "F" or
                                   (arr.kind != "input" and arr.arg_name is None))


@array_calls.method("copy")
def _m_copy(b, obj, name, node):
    a = call_args(b, node, "copy", ["order"])
    order = b.ev(a["order"]) if "order" in a else "C"
    if order not in ("C", "F", "K", "A"):
        raise b.cx.err(a["order"], "order must be one of 'C', 'F', 'A' or 'K'")
    return copied(b, obj, node, order)


@array_calls.function(np.copy)
def _f_copy(b, fn, node):
    a = call_args(b, node, "copy", ["a"], 1)
    v = b.ev(a["a"])
    if isinstance(v, Val):
        return as_any_array(b, v, node)
    return copied(b, v, node, "K")


# np.tile ------------------------------------------------------------------------------------


@array_calls.function(np.tile)
def _tile(b, fn, node):
    cx = b.cx
    a = call_args(b, node, "tile", ["A", "reps"], 2)
    src = as_any_array(b, b.ev(a["A"]), a["A"])
    rv = b.ev(a["reps"])
    reps = [size_val(cx, r, a["reps"]) for r in (rv.items if isinstance(rv, TupleVal) else [rv])]
    d = max(len(reps), src.ndim)
    reps = [const_val(1)] * (d - len(reps)) + reps
    shape0 = [const_val(1)] * (d - src.ndim) + list(src.shape)
    for r in reps:
        _deferred_errors(cx, node, _nonneg, [r])
    shape = [s if size_is(r, 1) else ops.binary(cx, "*", s, r) for s, r in zip(shape0, reps)]
    lead = d - src.ndim

    def elem(idx):
        out = []
        for k in range(lead, d):
            s, r, i = shape0[k], reps[k], idx[k]
            if size_is(s, 1):
                out.append(ir.index(0))
            elif size_is(r, 1):
                out.append(i)
            else:
                n = size_node(cx, s)
                out.append(clamp_index(ir.Mod(i, n), n, idx))
        return src.elem(out)
    return ArrayExpr(shape, src.ty, elem, node)


def _nonneg(n):
    if n < 0:
        raise ValueError("negative dimensions are not allowed")


# concatenate / stack ------------------------------------------------------------------------


def result_ty(b, arrays, a, node):
    if "dtype" in a:
        dt = dtype_arg(b, a["dtype"])
        if dt is not None:
            for x in arrays:
                if not np.can_cast(x.ty.dtype, dt, "same_kind"):
                    fail_at_call(b.cx, node, TypeError, f"Cannot cast array data from "
                                 f"{x.ty.dtype!r} to {np.dtype(dt)!r} according to the rule "
                                 f"'same_kind'")
            return ty_of(b, dt, node)
    return ty_of(b, np.result_type(*[x.ty.dtype for x in arrays]), node)


def concatenate(b, arrays, axis, ty, node) -> ArrayExpr:
    """The arrays joined along axis (None: flattened first)."""
    cx = b.cx
    if any(x.ndim == 0 for x in arrays):
        fail_at_call(cx, node, ValueError, "zero-dimensional arrays cannot be concatenated")
        return arrays[0]
    if axis is None:
        arrays = [reshaped(cx, x, [product(cx, x.shape)], node, "copy") for x in arrays]
        axis = 0
    nd = arrays[0].ndim
    for j, x in enumerate(arrays[1:], 1):
        if x.ndim != nd:
            fail_at_call(cx, node, ValueError, f"all the input arrays must have same number of "
                         f"dimensions, but the array at index 0 has {nd} dimension(s) and the "
                         f"array at index {j} has {x.ndim} dimension(s)")
            return arrays[0]
    ax = norm_axis(cx, node, axis, nd)
    # under an `if`, a part whose other sizes are checked at call time is
    # read at clamped indices, so that the check can be gated by the `if`
    # (as np.stack); where the parts are written one by one (_written), it
    # is written over the sizes it shares with the result only (an empty
    # part is then not read at all)
    kept = [x for x in arrays if not size_is(x.shape[ax], 0)] or arrays[:1]
    written = any(_read_when_empty(cx, x, kept, ax) for x in kept)
    gated = under_condition(cx)
    clamps = {}             # id(part) -> the axes it is read clamped along
    for k in range(nd):
        if k != ax:
            for j in _same_sizes(cx, node, [x.shape[k] for x in arrays], k, gated, not written):
                clamps.setdefault(id(arrays[j]), []).append(k)
    arrays = kept
    ends, total = [], const_val(0)
    for x in arrays:
        total = ops.binary(cx, "+", total, x.shape[ax])
        ends.append(total)
    shape = list(arrays[0].shape)
    shape[ax] = total
    order = joined_order(arrays, nd, ty)
    if written:
        return _written(b, arrays, ax, ends, shape, ty, order, node, clamps)

    def part(j, idx):
        x = arrays[j]
        i = idx[ax]
        if j:
            i = ir.Sub(i, size_node(cx, ends[j - 1]))
        i = clamp_index(i, size_node(cx, x.shape[ax]), idx)   # read where not selected too
        out = list(idx)
        out[ax] = i
        for k in clamps.get(id(x), ()):
            out[k] = clamped_into(cx, out[k], x.shape[k])
        return converted(cx, x.elem(out), ty)

    def elem(idx):
        cx.cur_node = node
        out = part(len(arrays) - 1, idx)
        for j in reversed(range(len(arrays) - 1)):
            c = cond(ir.LT(idx[ax], size_node(cx, ends[j])))
            out = ops.select(cx, c, part(j, idx), out)
        return out
    return ArrayExpr(shape, ty, elem, node, order=order)


def joined_order(arrays, nd, ty):
    """NumPy's memory order of np.concatenate's result of `arrays` (nd axes
    each): PyArray_ConcatenateArrays lays it out in the order of its inputs'
    strides (PyArray_CreateMultiSortedStridePerm, size-1 axes not counted);
    None for C order (also for a complex result: complex_sum reads the order
    of the joined value as the layout of both parts)."""
    if nd < 2:
        return None
    return RESULT_ORDER["concatenate"](arrays, nd)      # (ufunc_order.concatenated_order)


def _read_when_empty(cx, x: ArrayExpr, arrays, ax) -> bool:
    """Whether the part x may be empty when the function is called while
    the result is not, and reads arrays: read anyway (the joined value reads
    every part, at a clamped index), an empty input would be read out of its
    bounds."""
    n = x.shape[ax]
    if n.is_const or (n.lo is not None and n.lo >= 1) or \
            all(same_size(cx, n, y.shape[ax]) for y in arrays):
        return False
    probe = [ir.Variable(ir.INDEX, f"%probe{k}") for k in range(x.ndim)]
    v = x.elem(probe)
    parts = (v.re, v.im) if C.is_complex(v) else (v,)     # (a complex value has no node)
    return any(ir.find_calls(ops.node_of(cx, p)) for p in parts)


def _written(b, arrays, ax, ends, shape, ty, order, node, clamps) -> ArrayExpr:
    """The concatenation as a new array written part by part (each an
    update over its own elements, so that a part empty when the function is
    called is not read at all). Slower than the joined value (an update is
    a loop of its own, and its writes go through a temporary buffer).
    Along the axes of `clamps` (id(part) -> axes whose size check is gated
    by an `if`) a part is written over the smaller of its size and the
    result's: the same where the check holds, and inside both arrays where
    it is not made (the branch not taken)."""
    cx = b.cx
    arr = b.array_code.materialize(ArrayExpr(shape, ty, lambda idx: zero(ty, cx), node,
                                             order=order), "concatenate", node)
    bld = builder_of(b)
    for j, x in enumerate(arrays):
        start = size_node(cx, ends[j - 1]) if j else ir.index(0)

        def place(p, start=start):
            at = list(p)
            at[ax] = ir.Add(p[ax], start)
            return at, []
        over = list(x.shape)
        for k in clamps.get(id(x), ()):
            over[k] = static_int(cx, min, [x.shape[k], shape[k]])
        write(bld, Dest(arr, over, place, True),
              lambda p, x=x: converted(cx, x.elem(list(p)), ty), node)
    return b.array_code.as_array(arr, node)


def _same_sizes(cx, node, sizes, axis, gated=False, empty_read=True) -> list:
    """np.concatenate's checks that `sizes` (of one axis other than the
    concatenation axis) are equal; the indices of the parts whose check is
    gated by the enclosing `if`s (`gated`: read clamped along that axis,
    call_time_reach.add_shape_check). `empty_read`: a part of size 0 is
    read anyway (the joined value), so the check is made at call time
    where a size is 0 (not for parts written one by one)."""
    first = sizes[0]
    out = []
    msg = ("all the input array dimensions except for the concatenation axis must match "
           "exactly, but along dimension {}, the array at index 0 has size {} and the array "
           "at index {} has size {}")
    for j, s in enumerate(sizes[1:], 1):
        if same_size(cx, first, s):
            continue
        if first.is_const and s.is_const:
            fail_at_call(cx, node, ValueError, msg.format(axis, first.const, j, s.const))
        elif gated:
            def check(env, s=s, j=j):
                if first.static(env) != s.static(env):
                    raise ValueError(msg.format(axis, first.static(env), j, s.static(env)))
            add_shape_check(cx, check, lambda s=s: cx.compare("==", first, s), node,
                            "all the input array dimensions except for the concatenation "
                            "axis must match exactly", (s,) if empty_read else ())
            if empty_read and not run_time_gated(cx):
                # (a part of size 0 is read outside it even clamped: checked then)
                add_loop_gated(cx, IfEmpty(check, (s,)))
            out.append(j)
        else:
            check_at_call(cx, node, lambda env, s=s, j=j: None if first.static(env) ==
                          s.static(env) else (ValueError, msg.format(axis, first.static(env), j,
                                                                     s.static(env))))
    return out


@array_calls.function(np.concatenate)
def _concatenate(b, fn, node):
    a = call_args(b, node, "concatenate", ["arrays", "axis", "out", "dtype"], 1)
    if "out" in a:
        raise b.cx.err(a["out"], "out= is not supported", hint="assign the result instead")
    items, where = sequence(b, a["arrays"], "np.concatenate")
    if not items:
        fail_at_call(b.cx, node, ValueError, "need at least one array to concatenate")
        return as_any_array(b, const_val(0.0), node)
    arrays = [as_any_array(b, v, w) for v, w in zip(items, where)]
    axis = 0
    if "axis" in a:
        av = b.ev(a["axis"])
        axis = None if av is None else const_int(b, av, a["axis"], "an axis (an integer constant)")
    return concatenate(b, arrays, axis, result_ty(b, arrays, a, node), node)


@array_calls.function(np.stack)
def _stack(b, fn, node):
    cx = b.cx
    a = call_args(b, node, "stack", ["arrays", "axis", "out", "dtype"], 1)
    if "out" in a:
        raise cx.err(a["out"], "out= is not supported", hint="assign the result instead")
    items, where = sequence(b, a["arrays"], "np.stack")
    if not items:
        fail_at_call(cx, node, ValueError, "need at least one array to stack")
        return as_any_array(b, const_val(0.0), node)
    arrays = [as_any_array(b, v, w) for v, w in zip(items, where)]
    ty = result_ty(b, arrays, a, node)
    nd = arrays[0].ndim
    if any(x.ndim != nd for x in arrays):
        fail_at_call(cx, node, ValueError, "all input arrays must have the same shape")
        return arrays[0]
    # under an `if`, an array whose size is checked at call time is read at
    # clamped indices, so that the check can be gated by the `if` (a branch
    # not taken computes the stack whole, reading each array inside it)
    gated = under_condition(cx)
    clamps = [[False] * nd for _ in arrays]
    for k in range(nd):
        for j, x in enumerate(arrays[1:], 1):
            s, f = x.shape[k], arrays[0].shape[k]
            if same_size(cx, f, s):
                continue
            if f.is_const and s.is_const:
                fail_at_call(cx, node, ValueError, "all input arrays must have the same shape")
            else:
                clamps[j][k] = gated
                _same_shape_check(cx, node, f, s, gated)
    axis = const_int(b, b.ev(a["axis"]), a["axis"], "an axis") if "axis" in a else 0
    ax = norm_axis(cx, node, axis, nd + 1)
    shape = list(arrays[0].shape)
    shape.insert(ax, const_val(len(arrays)))

    def at(j, rest):
        return [clamped_into(cx, r, arrays[j].shape[k]) if clamps[j][k] else r
                for k, r in enumerate(rest)]

    def elem(idx):
        cx.cur_node = node
        i, rest = idx[ax], idx[:ax] + idx[ax + 1:]
        out = converted(cx, arrays[-1].elem(at(-1, rest)), ty)
        for j in reversed(range(len(arrays) - 1)):
            out = ops.select(cx, index_eq(i, j), converted(cx, arrays[j].elem(at(j, rest)), ty),
                             out)
        return out
    # NumPy concatenates the arrays with the new axis added (arr[sl]): their order
    order = joined_order([expand_dims(b, x, (ax,), node) for x in arrays], nd + 1, ty)
    return ArrayExpr(shape, ty, elem, node, order=order)


def _same_shape_check(cx, node, f, s, gated):
    """np.stack's check that sizes f and s are equal; `gated`: s is read
    clamped, the check made only where the enclosing `if`s hold
    (call_time_reach.add_shape_check)."""
    message = "all input arrays must have the same shape"
    if not gated:
        check_at_call(cx, node, lambda env: None if f.static(env) == s.static(env) else
                      (ValueError, message))
        return
    loc = cx.smap.loc(node)
    where = f" ({loc.file}:{loc.line})" if loc is not None else ""

    def check(env):
        if f.static(env) != s.static(env):
            raise ValueError(message + where)
    add_shape_check(cx, check, lambda: cx.compare("==", f, s), node, message, (s,))


def _at_least(b, x: ArrayExpr, nd, node) -> ArrayExpr:
    """np.atleast_1d / atleast_2d: size-1 axes in front (a 1-D array as a row)."""
    if x.ndim >= nd:
        return x
    return reshaped(b.cx, x, [const_val(1)] * (nd - x.ndim) + list(x.shape), node)


@array_calls.function(np.hstack, np.vstack)
def _hvstack(b, fn, node):
    name = fn.__name__
    a = call_args(b, node, name, ["tup", "dtype"], 1)
    items, where = sequence(b, a["tup"], f"np.{name}")
    if not items:
        fail_at_call(b.cx, node, ValueError, "need at least one array to concatenate")
        return as_any_array(b, const_val(0.0), node)
    arrays = [as_any_array(b, v, w) for v, w in zip(items, where)]
    if fn is np.vstack:
        arrays = [_at_least(b, x, 2, node) for x in arrays]
        axis = 0
    else:
        arrays = [_at_least(b, x, 1, node) for x in arrays]
        axis = 0 if arrays[0].ndim == 1 else 1
    return concatenate(b, arrays, axis, result_ty(b, arrays, a, node), node)


# np.full with an array fill ----------------------------------------------------------------


@array_calls.function(np.full)
def _full(b, fn, node):
    a = call_args(b, node, "full", ["shape", "fill_value", "dtype", "order"], 2)
    if "order" in a and b.ev(a["order"]) != "C":
        raise b.cx.err(a["order"], "only order='C' is supported")
    fill = b.ev(a["fill_value"])
    cx = b.cx
    sv = b.ev(a["shape"])
    shape = [size_val(cx, s, a["shape"]) for s in (sv.items if isinstance(sv, TupleVal) else [sv])]
    dt = dtype_arg(b, a["dtype"]) if "dtype" in a else None
    if isinstance(fill, Val):
        return _full_scalar(b, shape, fill, dt, node)
    src = as_source(b, fill, a["fill_value"])
    ty = ty_of(b, dt, node) if dt is not None else src.ty
    msg = "could not broadcast input array from shape {} into shape {}"
    if src.ndim > len(shape):
        fail_at_call(cx, node, ValueError, msg.format(_shp(src.shape), _shp(shape)))
        return ArrayExpr(shape, ty, lambda idx: zero(ty), node)
    for s, t in zip(reversed(src.shape), reversed(shape)):
        if size_is(s, 1) or same_size(cx, s, t):
            continue
        if s.is_const and t.is_const:
            fail_at_call(cx, node, ValueError, msg.format(_shp(src.shape), _shp(shape)))
        else:
            check_at_call(cx, node, lambda env, s=s, t=t: None if s.static(env) == t.static(env)
                          else (ValueError, msg.format(_shp(src.shape, env), _shp(shape, env))))
    return ArrayExpr(shape, ty, lambda idx: converted(cx, src.elem(broadcast_index(src.shape,
                                                                                     idx)), ty),
                     node)


def _full_scalar(b, shape, fill: Val, dt, node) -> Arr:
    """np.full with a scalar fill: an array whose pure definition is the fill
    value (as np.zeros/np.ones create theirs)."""
    if dt is None:
        dt = np.full((), fill.ty.sample(1)).dtype if fill.ty.weak else fill.ty.dtype
    ty = ty_of(b, dt, node)
    value = b.arrays.store_convert(fill, ty) if fill.ty.weak else ops.cast_to(b.cx, fill, ty)
    b.cx.cur_node = node
    return b.arrays.create_array(ty, shape, value, node)


def _shp(shape, env=None) -> str:
    """A shape as NumPy prints it in errors: (2,4), (3,)."""
    items = [str(v.static(env)) if env is not None else str(v.const) if v.is_const else "n"
             for v in shape]
    return "(" + ",".join(items) + ("," if len(items) == 1 else "") + ")"


array_calls.HOOKS["tuple_array"] = tuple_array
