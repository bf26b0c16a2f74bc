"""np.sort / a.sort() of NumPy-style array code: a stable merge sort along
one axis, NumPy's order (NaN after every number).

The sort is one Func `sort` over (the array's axes, plane): the pure
definition copies the operand into both planes; one update over an RDom
(element, pass) merges runs of width 2**pass from plane pass % 2 into the
other plane (bottom-up merge sort: ceil(log2 n) passes). An element of the
left run of a pair goes to its offset in its run plus the number of
elements of the right run that sort strictly before it; an element of the
right run to its offset plus the number of the left run's elements that do
not sort after it (so equal elements keep their order: stable). The counts
are binary searches in the sorted runs (a fixed number of steps, each a
select). The sorted values are the plane passes % 2.

Equal values are in their original order (kind='stable'); NumPy's default
kind (introsort, or a SIMD sort) may order equal values differently, which
shows only as the order of -0.0 and 0.0 (equal values otherwise have the
same bits, NaNs apart: every NaN sorts last, in its original order)."""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.var import RDom

from . import array_calls, ops
from .array_args import operand_of, parse_args
from .array_shape import product, reshaped
from .array_store import builder_of, destination, fitted, write
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr, element_node
from .values import Arr, Val, const_val, fresh, with_type_range

_KINDS = (None, "quicksort", "mergesort", "heapsort", "stable")


def sort_args(b, what, obj, node):
    """(the operand as an array value, the axis or None) of np.sort(a, axis,
    kind, order, stable) or a.sort(axis, kind, order, stable)."""
    got = parse_args(b, what, obj, node, ("axis", "kind", "order", "stable"))
    cx = b.cx
    a = operand_of(b, got["a"][0], got["a"][1])
    if "order" in got and got["order"][0] is not None and not (
            isinstance(got["order"][0], Val) and got["order"][0].const is None):
        raise cx.err(got["order"][1], f"order= of {what}() (fields of structured arrays) is "
                                      f"not supported")
    if "kind" in got:
        k = got["kind"][0]
        k = k.const if isinstance(k, Val) and k.is_const else k
        if k not in _KINDS:
            raise cx.err(got["kind"][1], f"kind= of {what}() must be a constant: one of "
                                         f"'quicksort', 'mergesort', 'heapsort', 'stable'")
    if a.ty.is_complex():
        raise cx.err(node, f"{what}() of complex arrays is not supported yet",
                     hint="sort the real parts (np.sort(z.real)) if that is the order meant")
    v, where = got["axis"] if "axis" in got else (const_val(-1), node)
    if v is None or (isinstance(v, Val) and v.is_const and v.const is None):
        if obj is not None:
            raise cx.err(where, "a.sort(axis=None) is not allowed (NumPy's TypeError)",
                         hint="np.sort(a, axis=None) returns the sorted flattened array")
        return a, None
    if not (isinstance(v, Val) and v.is_const and isinstance(v.const, int) and
            not isinstance(v.const, bool)):
        raise cx.err(where, "axis must be a constant integer",
                     hint="write the axis as a literal, e.g. axis=0")
    k = int(v.const)
    if a.ndim == 0:
        raise cx.err(where, f"{what}() of a 0-d array is not supported (NumPy raises "
                            f"AxisError)", hint="sort an array of at least one dimension")
    if not -a.ndim <= k < a.ndim:
        raise cx.err(where, f"axis {k} is out of bounds for array of dimension {a.ndim}")
    return a, k % a.ndim


def sort_value(b, a: ArrayExpr, axis, node) -> ArrayExpr:
    """a sorted along axis (None: the flattened array), as a new array value."""
    ac = b.array_code
    ac.outside_loops(node, "np.sort and the functions that sort")
    if ac.phase_run is not None:
        raise b.cx.err(node, "np.sort inside a loop over whole arrays is not supported",
                       hint="sort before or after the loop")
    key = _cache_key(a, axis)
    done = ac.sorted.get(key) if key is not None else None
    if done is not None:
        return done
    flat = a
    if axis is None:
        flat = reshaped(b.cx, a, [product(b.cx, a.shape)], node, "copy")
    out = sorted_along(ac, flat, 0 if axis is None else axis, node)
    if key is not None:
        ac.sorted[key] = out
    return out


def _cache_key(a: ArrayExpr, axis):
    """The key under which the sort of a whole named array (its current
    version) along axis is shared by the statements that sort it; None for
    other values."""
    if a.view is None or not is_whole_view(a):
        return None
    arr = a.view[0]
    return (id(arr), arr, arr.func, len(arr.versions), axis)


def sorted_along(ac, a: ArrayExpr, axis: int, node, name="sort") -> ArrayExpr:
    """The stable merge sort of a along axis (see the module docstring)."""
    cx = ac.cx
    cx.cur_node = node
    nd = a.ndim
    arr = Arr(name, a.ty, [const_val(2)] + list(a.shape), "local", cx.smap.loc(node))
    f = ac.new_func(name, arr)
    vars_ = [ac.defs.axis_var(arr, j) for j in range(nd + 1)]
    pure = [v.node for v in vars_]
    x = a.elem(pure[1:])
    cx.cur_node = node
    init = element_node(cx, x, a.ty)
    ac.emitter.define(f, tuple(reversed(vars_)), (init,), [], None, arr.loc, pure=True,
                      label=name)
    ac.defs.mark_emitted([init], f)
    size = a.shape[axis]
    n = ops.cast(ir.INDEX, ops.node_of(cx, size))
    passes = _bit_length(ir.Max(ir.Sub(n, ir.index(1)), ir.index(0)))
    rdom = RDom([(Expr.wrap(ir.index(0)), Expr.wrap(n)),
                 (Expr.wrap(ir.index(0)), Expr.wrap(passes))], "r_" + f.name())
    ri, rp = rdom[0].node, rdom[1].node
    t = a.ty.ir()

    def at(plane, j):
        idx = [plane] + [j if k == axis else pure[k + 1] for k in range(nd)]
        return f[tuple(Expr.wrap(e) for e in reversed(idx))].node

    def clamp(j):
        return ir.Max(ir.Min(j, ir.Sub(n, ir.index(1))), ir.index(0))

    src = ir.Mod(rp, ir.index(2))
    dst = ir.Mod(ir.Add(rp, ir.index(1)), ir.index(2))
    w = ir.Shl(ir.index(1), rp)
    w2 = ir.Shl(ir.index(2), rp)
    start = ir.Mul(ir.Div(ri, w2), w2)
    mid = ir.Min(ir.Add(start, w), n)
    end = ir.Min(ir.Add(start, w2), n)
    names = {k: fresh(f"sort_{k}") for k in ("x", "left", "lo", "hi")}
    xv, leftv, lov, hiv = (ir.Variable(t if k == "x" else (ir.Bool() if k == "left" else
                                                            ir.INDEX), names[k])
                           for k in ("x", "left", "lo", "hi"))

    def before(y):       # y sorts before x (left run), or not after x (right run)
        return ir.Select(leftv, less(y, xv, t), ir.Not(less(xv, y, t)))
    steps = search_steps(size)
    count = count_prefix(lov, hiv, lambda j: before(at(src, clamp(j))), steps)
    pos = ir.Add(ir.Add(start, ir.Sub(ri, ir.Select(leftv, start, mid))), count)
    pos = ir.Let(names["x"], at(src, ri), ir.Let(
        names["left"], ir.LT(ri, mid), ir.Let(
            names["lo"], ir.Select(leftv, mid, start), ir.Let(
                names["hi"], ir.Select(leftv, end, mid), pos))))
    lhs = [Expr.wrap(dst)] + [Expr.wrap(clamp(pos)) if k == axis else vars_[k + 1]
                              for k in range(nd)]
    value = at(src, ri)
    ac.defs.mark_emitted([value], f)
    loops = []
    ac.emitter.define(f, tuple(reversed(lhs)), (value,), [], rdom,
                      arr.loc, label=name, loops=loops)
    arr.func = f
    arr.defined = True
    arr.versions.append(f)
    final = ir.Mod(passes, ir.index(2))

    def elem(idx):
        return with_type_range(Val(at_final(idx), a.ty))

    def at_final(idx):
        args = [final] + list(idx)
        return f[tuple(Expr.wrap(e) for e in reversed(args))].node
    return ArrayExpr(list(a.shape), a.ty, elem, node)


def less(y, x, t):
    """y < x in NumPy's sort order (NaN last) of IR type t."""
    if t.is_bool():
        y, x = ops.cast(ir.UInt(8), y), ops.cast(ir.UInt(8), x)
    lt = ir.LT(y, x)
    if t.is_float():
        return ir.Or(lt, ir.And(ops.is_nan(x), ir.Not(ops.is_nan(y))))
    return lt


def _bit_length(m):
    """The number of bits of a non-negative int32 node m (0 for 0)."""
    out = ir.index(0)
    for k in range(31):
        bit = ir.Select(ir.NE(ir.Shr(m, ir.index(k)), ir.index(0)), ir.index(1), ir.index(0))
        out = bit if k == 0 else ir.Add(out, bit)
    return out


def opaque(j):
    """Index node j marked so that bounds inference takes it as unknown (an
    index that depends on let-bound names, whose scope bounds inference does
    not see: it analyses each call's arguments alone); clamp it after. The
    mark (the `likely` intrinsic) is the identity in compiled code."""
    return ir.Call(ir.INDEX, "likely", (j,), ir.INTRINSIC)


def search_steps(size: Val) -> int:
    """The binary search steps that cover a run of at most `size` elements."""
    if size.is_const:
        return max(1, int(size.const).bit_length())
    return 31


def count_prefix(lo, hi, pred, steps):
    """The number of positions j in [lo, hi) where pred(j) holds, for a
    pred that holds on a prefix of the range (a branch-free binary search)."""
    names = [fresh("sort_at") for _ in range(steps + 1)]
    exprs = [lo]
    for k, s in enumerate(reversed(range(steps))):
        cur = ir.Variable(ir.INDEX, names[k])
        cand = ir.Add(cur, ir.index(1 << s))
        # beyond the run, the read is of its last element (the same cache line)
        last = ir.Sub(ir.Min(cand, hi), ir.index(1))
        take = ir.And(ir.LE(cand, hi), pred(last))
        exprs.append(ir.Select(take, cand, cur))
    body = ir.Sub(ir.Variable(ir.INDEX, names[-1]), lo)
    for name, e in reversed(list(zip(names, exprs))):
        body = ir.Let(name, e, body)
    return body


@array_calls.function(np.sort)
def _np_sort(b, fn, node):
    a, axis = sort_args(b, "sort", None, node)
    return sort_value(b, a, axis, node)


@array_calls.method("sort")
def _sort_method(b, obj, name, node):
    """a.sort(axis=-1): a (a named array or a view of one) written with its
    sorted values, in place; the call's value is None."""
    a, axis = sort_args(b, "sort", b.array_code.as_array(obj, node), node)
    value = sort_value(b, a, axis, node)
    bld = builder_of(b)
    b.cx.epoch += 1         # the sort reads the values before the write
    dest = destination(bld, obj, [], node)
    write(bld, dest, fitted(bld, value, dest.shape, node, False), node)
    return None
