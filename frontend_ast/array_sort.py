"""np.sort / a.sort() / np.argsort of NumPy-style array code: a stable
bottom-up merge sort along one axis, NumPy's order (NaN after every number).

The sort is one tuple Func `sort` over (the array's axes, plane): values
(the element, [its original position: argsort], the merge cursor). The pure
definition copies the operand into both planes; one update over an RDom
(position k, pass p) merges the runs of width 2**p of plane p % 2 into the
other plane, one output position after the other, as a serial merge does:
the cursor stored at position k - 1 of this pass is the next unmerged
element of the left run (the run's start at its first position), the right
run's next one follows from it (k - start - (cursor - start) elements came
from the left run), and position k takes the left element unless the right
one sorts strictly before it (so equal elements keep their order: stable).
That is n reads and writes per pass, ceil(log2 n) passes (the passes'
count is a run-time value), no search; the sorted values are the plane
passes % 2.

Equal values are in their original order (kind='stable'); NumPy's default
kind (introsort, or a SIMD sort) may order equal values differently, which
shows only as the order of -0.0 and 0.0 (equal values otherwise have the
same bits, NaNs apart: every NaN sorts last, in its original order), and in
np.argsort as the order of the positions of equal values."""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.var import RDom

from . import array_calls, ops
from . import types as T
from .array_args import operand_of, parse_args
from .array_shape import product, reshaped
from .array_store import builder_of, destination, fitted, write
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr, element_node, k_order
from .values import Arr, Val, const_val, fresh, with_type_range

INTP = T.np_ty(np.intp)
INDEX_TY = T.np_ty(np.int32)
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
        if obj is not None and what == "sort":
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


def sort_value(b, a: ArrayExpr, axis, node, positions=False) -> ArrayExpr:
    """a sorted along axis (None: the flattened array), as a new array value;
    positions: the original positions of the sorted elements instead
    (np.argsort: along the axis, or in the flattened array)."""
    ac = b.array_code
    ac.outside_loops(node, "np.sort and the functions that sort")
    if ac.phase_run is not None:
        raise b.cx.err(node, "np.sort inside a loop over whole arrays is not supported",
                       hint="sort before or after the loop")
    key = _cache_key(a, axis)
    done = ac.sorted.get(key + (positions,)) if key is not None else None
    if done is not None:
        return done
    flat = a
    if axis is None:
        flat = reshaped(b.cx, a, [product(b.cx, a.shape)], node, "copy")
    out = sorted_along(ac, flat, 0 if axis is None else axis, node, with_index=positions)
    if positions:
        out = out[1]
    elif axis is not None:
        out.order = k_order(a)      # np.sort sorts a.copy(order='K'): a's memory order
    if key is not None:
        ac.sorted[key + (positions,)] = out
    return out


def _cache_key(a: ArrayExpr, axis):
    """The key under which the sort of a whole named array (its current
    version) along axis is shared by the statements that sort it; None for
    other values."""
    if a.view is None or not is_whole_view(a):
        return None
    arr = a.view[0]
    return (id(arr), arr, arr.func, len(arr.versions), axis)


def sorted_along(ac, a: ArrayExpr, axis: int, node, name="sort", with_index=False):
    """The stable merge sort of a along axis (see the module docstring):
    the sorted values, and with_index also the original positions along the
    axis of the sorted elements (intp: argsort), as array values."""
    cx = ac.cx
    cx.cur_node = node
    nd = a.ndim
    t = a.ty.ir()
    tys = [a.ty] + ([INTP] if with_index else []) + [INDEX_TY]
    arr = Arr(name, a.ty, [const_val(2)] + list(a.shape), "local", cx.smap.loc(node))
    f = ac.new_func(name, arr)
    vars_ = [ac.defs.axis_var(arr, j) for j in range(nd + 1)]
    pure = [v.node for v in vars_]
    x = a.elem(pure[1:])
    cx.cur_node = node
    init = [element_node(cx, x, a.ty)]
    if with_index:
        init.append(ops.cast(INTP.ir(), pure[1 + axis]))
    init.append(ir.index(0))
    ac.emitter.define(f, tuple(reversed(vars_)), tuple(init), [], None, arr.loc, pure=True,
                      label=name)
    ac.defs.mark_emitted(init, f)
    n = index_extent(ops.node_of(cx, a.shape[axis]))
    passes = _bit_length(ir.Max(ir.Sub(n, ir.index(1)), ir.index(0)))
    rdom = RDom([(Expr.wrap(ir.index(0)), Expr.wrap(n)),
                 (Expr.wrap(ir.index(0)), Expr.wrap(passes))], "r_" + f.name())
    rk, rp = rdom[0].node, rdom[1].node
    last = len(tys) - 1

    def at(plane, j, value):
        idx = [plane] + [j if k == axis else pure[k + 1] for k in range(nd)]
        return f[tuple(Expr.wrap(e) for e in reversed(idx))][value].node

    def clamp(j):
        return ir.Max(ir.Min(j, ir.Sub(n, ir.index(1))), ir.index(0))

    one = ir.index(1)
    # the pair of runs of width 2**pass that output position rk belongs to
    src = ir.BitAnd(rp, one)
    dst = ir.Sub(one, src)
    start = ir.Shl(ir.Shr(rk, ir.Add(rp, one)), ir.Add(rp, one))
    mid = ir.Min(ir.Add(start, ir.Shl(one, rp)), n)
    end = ir.Min(ir.Add(start, ir.Shl(ir.index(2), rp)), n)
    # the next unmerged element of the left run: what the previous output
    # position of this pass left, or the run's start; the right run gave the
    # rest of the outputs before rk. (Indices stay free of Lets: the checks
    # and bounds of an access read its index alone.)
    il = ir.Select(ir.EQ(rk, start), start, at(dst, clamp(ir.Sub(rk, one)), last))
    ir_ = ir.Sub(ir.Add(mid, rk), il)
    take_name = fresh("sort_take")
    take = ir.Variable(ir.Bool(), take_name)
    # the left element unless the right run has one that sorts strictly before it
    cond = ir.And(ir.LT(il, mid), ir.Or(ir.GE(ir_, end), ir.Not(
        less(at(src, clamp(ir_), 0), at(src, clamp(il), 0), t))))
    values = [ir.Let(take_name, cond, ir.Select(take, at(src, clamp(il), j),
                                                at(src, clamp(ir_), j)))
              for j in range(last)]
    values.append(ir.Let(take_name, cond, ir.Add(il, ir.Select(take, one, ir.index(0)))))
    lhs = [Expr.wrap(dst)] + \
        [Expr.wrap(rk) if k == axis else vars_[k + 1] for k in range(nd)]
    ac.defs.mark_emitted(values, f)
    ac.emitter.define(f, tuple(reversed(lhs)), tuple(values), [], rdom,
                      arr.loc, label=name, loops=[])
    arr.func = f
    arr.defined = True
    arr.versions.append(f)
    final = ir.BitAnd(passes, one)

    def result(j, ty):
        def elem(idx):
            args = [final] + list(idx)
            return with_type_range(Val(f[tuple(Expr.wrap(e) for e in reversed(args))][j].node,
                                       ty))
        return ArrayExpr(list(a.shape), ty, elem, node)
    out = result(0, a.ty)
    return (out, result(1, INTP)) if with_index else out


def index_extent(e):
    """An array size node e as an int32 index node; a product of widened
    int32 sizes (a flattened array's) is multiplied in int32 (a narrowing
    cast would leave bounds inference no bound of it; an index beyond int32
    fails the kernel's index-overflow check)."""
    if isinstance(e, ir.Cast) and e.value.type == ir.INDEX:
        return e.value
    if isinstance(e, ir.Const) and -2**31 <= e.value < 2**31:
        return ir.index(int(e.value))
    if isinstance(e, ir.Mul):
        a, b = index_extent(e.a), index_extent(e.b)
        if a.type == ir.INDEX and b.type == ir.INDEX and not isinstance(a, ir.Cast) and \
                not isinstance(b, ir.Cast):
            return ir.Mul(a, b)
    return ops.cast(ir.INDEX, e)


def less(y, x, t):
    """y < x in NumPy's sort order (NaN last) of IR type t."""
    if t.is_bool():
        y, x = ops.cast(ir.UInt(8), y), ops.cast(ir.UInt(8), x)
    lt = ir.LT(y, x)
    if t.is_float():
        return ir.Or(lt, ir.And(ops.is_nan(x), ir.Not(ops.is_nan(y))))
    return lt


def _bit_length(m):
    """The number of bits of a non-negative int32 node m (0 for 0): a
    branch-free binary search over the shifts 16, 8, 4, 2, 1."""
    steps = []
    cur = m
    for shift in (16, 8, 4, 2, 1):
        t, rest = fresh("sort_bits"), fresh("sort_rest")
        tv = ir.Variable(ir.INDEX, t)
        steps.append((t, ir.Select(ir.GE(cur, ir.index(1 << shift)), ir.index(shift),
                                   ir.index(0))))
        steps.append((rest, ir.Shr(cur, tv)))
        cur = ir.Variable(ir.INDEX, rest)
    body = ir.Select(ir.GE(cur, ir.index(1)), ir.index(1), ir.index(0))
    for name, _ in steps[::2]:
        body = ir.Add(ir.Variable(ir.INDEX, name), body)
    for name, e in reversed(steps):
        body = ir.Let(name, e, body)
    return body


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


@array_calls.function(np.argsort)
def _np_argsort(b, fn, node):
    a, axis = sort_args(b, "argsort", None, node)
    return sort_value(b, a, axis, node, positions=True)


@array_calls.method("argsort")
def _argsort_method(b, obj, name, node):
    a, axis = sort_args(b, "argsort", b.array_code.as_array(obj, node), node)
    return sort_value(b, a, axis, node, positions=True)


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
