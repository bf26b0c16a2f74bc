"""Reductions of NumPy-style array code: np.sum, prod, min/amin, max/amax,
mean, var, std, argmin, argmax, any, all and the same array methods.

Each reduction is a Func over the kept axes with a pure definition (the
operation's identity) and an update over an RDom of the reduced axes (the
last NumPy axis innermost), so `rfactor` applies to it as to a loop; the
update's RVars are `p.vars[func, "axis<k>"]` (k the NumPy axis). Result
dtypes are NumPy's (asked of NumPy on a sample array). mean, var and std
follow numpy/_core/_methods.py (_mean, _var): a sum, then a division by
the count in float64, cast back to the sum's type. Float sums follow
NumPy's summation order (sum_order.float_sum); min/max propagate NaN, argmin/argmax
return the first occurrence (the first NaN); min/max/argmin/argmax of an
empty axis raise ValueError at call time as NumPy does. Float
min/max/argmin/argmax of every axis run in contiguous blocks with the
serial result (reduce_blocks.py: Funcs `<name>_lanes` and `<name>`;
serially in a loop in phase mode, carried_phases.py)."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.var import RDom

from . import array_calls, mask_reduce, ops
from . import types as T
from .array_args import axes_of, dtype_of, flag_of, numpy_ty, operand_of, parse_args
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr, element_node, k_order, placeholder
from .call_time_reach import call_time_reach
from .carried_zero_ties import phase_choice
from .complex_sums import complex_prod, complex_sum
from .numpy_zero_ties import numpy_choice
from .reduce_blocks import blocked
from .result_order import each_order
from .sum_order import float_sum
from .ufunc_order import result_order
from .values import Arr, Val, const_val, with_type_range

INTP = T.np_ty(np.intp)
BOOL = T.np_ty(np.bool_)


# the reduction Func --------------------------------------------------------------------------
def reduction(ac, operand: ArrayExpr, axes, tys, init, step, name, node, view=True,
              result=None, hint=None):
    """A Func over the kept axes of `operand`: pure definition `init` (IR
    constants, one per value of types `tys`), then one update over an RDom
    of `axes` (sorted NumPy axes, not empty): state = step(cx, state Vals,
    element Val, {axis: its RVar node}). The result is an ArrayExpr of the
    operand's shape without `axes` whose elements are the Func's first value
    (a view of the Func's array when `view`), or, given `result` = (type,
    fn), fn(cx, [the Func's values as Vals]). `hint`: the Func's default
    schedule (specialize.default_schedule calls hint(f))."""
    run = ac.phase_run
    if run is not None:         # in a loop in phase mode (carried_phases.py)
        return run.reduction(ac, operand, axes, tys, init, step, name, node, view, result)
    cx = ac.cx
    cx.cur_node = node
    kept = [k for k in range(operand.ndim) if k not in axes]
    arr = Arr(name, tys[0], [operand.shape[k] for k in kept], "local", cx.smap.loc(node))
    f = ac.new_func(name, arr)
    vars_ = [ac.defs.axis_var(arr, j) for j in range(len(kept))]
    key = tuple(reversed(vars_))
    ac.emitter.define(f, key, tuple(init), [], None, arr.loc, pure=True, label=name)
    bounds = [(Expr.wrap(ir.index(0)), Expr.wrap(extent(cx, operand.shape[k])))
              for k in reversed(axes)]
    rdom = RDom(bounds, "r_" + f.name())
    rvars = {k: rdom[j] for j, k in enumerate(reversed(axes))}
    idx = []
    for k in range(operand.ndim):
        idx.append(rvars[k].node if k in rvars else vars_[kept.index(k)].node)
    ref = f[key]
    state = []
    for j, t in enumerate(tys):
        state.append(element_val(ref[j].node if len(tys) > 1 else ref.node, t))
    x = operand.elem(idx)
    cx.cur_node = node
    new = step(cx, state, x, {k: v.node for k, v in rvars.items()})
    vals = [element_node(cx, v, t) for v, t in zip(new, tys)]
    ac.defs.mark_emitted(vals, f)
    loops = [(SimpleNamespace(name=f"axis{k}"), rv) for k, rv in rvars.items()]
    ac.emitter.define(f, key, vals, [], rdom, arr.loc, label=name, loops=loops)
    arr.func = f
    arr.defined = True
    arr.versions.append(f)
    if hint is not None:
        getattr(f, "base", f).default_hint = hint     # the Func itself, also when lifted
    if result is not None:
        rty, fn = result

        def elem(i):
            args = tuple(Expr.wrap(n) for n in reversed(i))
            r = f[args] if args else f[()]
            return fn(cx, [element_val(r[j].node, t) for j, t in enumerate(tys)])
        return ArrayExpr(arr.shape, rty, elem, node)
    if view:
        return ac.view_of(arr, node)
    return ArrayExpr(arr.shape, arr.ty, lambda i: ac.read_element(arr, i), node)


def extent(cx, size: Val):
    return ops.cast(ir.INDEX, ops.node_of(cx, size))


def element_val(node, ty) -> Val:
    """A value of type ty read from a Func (the whole range of its type)."""
    return with_type_range(Val(node, ty))


def total(ac, operand, axes, acc_ty, node, name="sum"):
    """The sum over axes in acc_ty (NumPy's add.reduce with dtype=acc_ty):
    an ArrayExpr of the operand's shape without axes."""
    if not axes:
        return _cast_all(ac, operand, acc_ty, node)
    if acc_ty.is_complex():
        return complex_sum(ac, operand, axes, acc_ty, node, name)
    if acc_ty.is_float():
        return float_sum(ac, operand, tuple(axes), acc_ty, node, name=name)
    return fold(ac, operand, axes, acc_ty, "+", 0, node, name)


def fold(ac, operand, axes, acc_ty, op, identity, node, name):
    """A reduction by the NumPy operator op of elements cast to acc_ty."""
    def step(cx, s, x, r):
        return [ops.binary(cx, op, s[0], ops.cast_to(cx, x, acc_ty))]
    return reduction(ac, operand, axes, [acc_ty], [_const(acc_ty, identity)], step, name, node)


def _const(ty, v):
    t = ty.ir()
    if t.is_bool():
        return ir.Const(t, bool(v))
    return ir.Const(t, float(v) if t.is_float() else int(v))


def _cast_all(ac, operand, ty, node):
    """operand element-wise cast to ty (a reduction over no axes)."""
    cx = ac.cx
    return ArrayExpr(operand.shape, ty, lambda i: ops.cast_to(cx, operand.elem(i), ty), node)


# parameters after the array, and the kind of each reduction
_SIGS = {
    "sum": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "min": ("axis", "out", "keepdims", "initial", "where"),
    "mean": ("axis", "dtype", "out", "keepdims", "where"),
    "var": ("axis", "dtype", "out", "ddof", "keepdims", "where", "mean", "correction"),
    "arg": ("axis", "out", "keepdims"),
    "any": ("axis", "out", "keepdims", "where"),
}
_KIND = {"sum": "sum", "prod": "sum", "min": "min", "max": "min", "amin": "min",
         "amax": "min", "mean": "mean", "var": "var", "std": "var", "argmin": "arg",
         "argmax": "arg", "any": "any", "all": "any"}


def finish(ac, value: ArrayExpr, axes, ndim, keepdims, node, operand=None):
    """A reduction's result: size-1 axes put back (keepdims), a NumPy
    scalar for a 0-d result. Given the reduced `operand`, a new result has
    NumPy's memory order: the operand's (order='K'), the reduced axes kept
    in place as size-1 axes or dropped."""
    order = k_order(operand) if operand is not None else None
    if keepdims:
        inner = value
        shape = []
        j = 0
        for k in range(ndim):
            if k in axes:
                shape.append(const_val(1))
            else:
                shape.append(inner.shape[j])
                j += 1
        kept = [k for k in range(ndim) if k not in axes]
        value = ArrayExpr(shape, inner.ty, lambda i: inner.elem([i[k] for k in kept]), node)
    if order is not None:
        def dropped(order):
            if order is not None and not keepdims:
                order = tuple(sorted(range(value.ndim),
                                     key=lambda j: order.index([k for k in range(ndim)
                                                                if k not in axes][j])))
            return order if order != tuple(range(value.ndim)) else None
        order = each_order(order, dropped)      # (for each order one chosen at run time stands for)
        if value.view is None:
            value.order = order
        elif is_whole_view(value) and value.view[0].kind == "local" and \
                getattr(value.view[0], "memory_order", None) is None:
            value.view[0].memory_order = order      # the reduction's own array
    if value.ndim == 0:
        ac.cx.cur_node = node
        return value.elem([])
    return value


def require_nonempty(cx, operand, axes, message, node):
    """ValueError at call time (NumPy's message) where a reduced axis is
    empty and the reduction runs (`m.max(axis=0) if m.shape[0] else 0` of an
    empty m raises nothing; a condition known only at run time: the check
    holds wherever the reduction is evaluated; a loop of no iteration,
    phase mode's included, evaluates nothing: call_time_reach)."""
    sizes = [operand.shape[k] for k in axes]
    if all(s.is_const and s.const > 0 for s in sizes):
        return
    loc = cx.smap.loc(node)
    reached = call_time_reach(cx)

    def check(env):
        if (reached is None or reached(env)) and any(s.static(env) == 0 for s in sizes):
            raise ValueError(message + (f" ({loc.file}:{loc.line})" if loc is not None else ""))
    cx.static_checks.append(check)


def count(cx, operand, axes) -> Val:
    """The number of elements reduced, as NumPy's intp."""
    n = const_val(1)
    for k in axes:
        n = ops.binary(cx, "*", n, operand.shape[k])
    return ops.convert(cx, n, INTP)


def divide(cx, s: Val, n: Val) -> Val:
    """s / n as _mean and _var divide: true_divide in NumPy's promotion of
    the two types, cast back to s's type."""
    return ops.cast_to(cx, ops.binary(cx, "/", s, n), s.ty)


def _map(ac, value, fn, node):
    cx = ac.cx

    def elem(i):
        cx.cur_node = node
        return fn(cx, value.elem(i))
    probe = fn(cx, placeholder(value.ty, cx))
    return ArrayExpr(value.shape, probe.ty, elem, node)


# the reductions -------------------------------------------------------------------------------
def reduce_call(b, what, obj, node):
    kind = _KIND[what]
    fn = {"amin": "min", "amax": "max"}.get(what, what)
    got = parse_args(b, what, obj, node, _SIGS[kind])
    a = operand_of(b, got["a"][0], got["a"][1])
    ac = b.array_code
    cx = b.cx
    keepdims = flag_of(b, got, "keepdims")
    sel = None if keepdims or dtype_of(b, got) is not None else \
        mask_reduce.padded(b, a, fn, kind, node)
    if sel is not None:
        # a reduction of a boolean-mask read (mask_reduce.py)
        axes_of(b, got, 1, single=kind == "arg")
        masked, (a, axes) = a, sel
    else:
        masked = None
        axes = axes_of(b, got, a.ndim, single=kind == "arg")
    dt = dtype_of(b, got)
    sample = np.zeros((1,), a.ty.dtype)
    cx.cur_node = node
    if kind == "sum":
        op = np.sum if fn == "sum" else np.prod
        rt = numpy_ty(b, lambda: op(sample, dtype=dt).dtype, node)
        if fn == "sum":
            out = total(ac, a, axes, rt, node)
        elif not axes:
            out = _cast_all(ac, a, rt, node)
        elif rt.is_complex():
            out = complex_prod(ac, a, axes, rt, node, reduction)
        else:
            out = fold(ac, a, axes, rt, "*", 1, node, "prod")
    elif kind == "min":
        out = minmax(ac, a, axes, fn == "min", node)
    elif kind == "any":
        out = anyall(ac, a, axes, fn == "any", node)
    elif kind == "arg":
        out = _argminmax(ac, a, axes, what == "argmin", node)
    elif kind == "mean":
        out = mean_of(b, ac, a, axes, dt, node)
    else:
        out = _var(b, ac, a, axes, dt, got, fn == "std", node)
    # (argmin/argmax allocate their results in C order)
    out = finish(ac, out, axes, a.ndim, keepdims, node, operand=None if kind == "arg" else a)
    if masked is not None and kind == "min":
        m = mask_reduce.selection_mask(masked)
        some = finish(ac, anyall(ac, m, axes, True, node), axes, m.ndim, False, node, operand=m)
        out = mask_reduce.nonempty(cx, out, some, fn)
    return out


def minmax(ac, a, axes, is_min, node):
    name = "min" if is_min else "max"
    if not axes:
        return a
    require_nonempty(ac.cx, a, axes, f"zero-size array to reduction operation "
                                      f"{'minimum' if is_min else 'maximum'} which has no "
                                      f"identity", node)
    t = a.ty.ir()
    ident = _extreme(t, is_min)

    def step(cx, s, x, r):
        acc, v = s[0].node, ops.node_of(cx, x)
        if t.is_bool():
            n = (ir.And if is_min else ir.Or)(acc, v)
        elif t.is_float():       # NaN propagates; ties give the later element, as NumPy
            better = ir.LT(acc, v) if is_min else ir.GT(acc, v)
            n = ir.Select(ir.Or(better, ops.is_nan(acc)), acc, v)
        else:
            n = (ir.Min if is_min else ir.Max)(acc, v)
        return [Val(n, a.ty)]
    whole = list(axes) == list(range(a.ndim))
    if t.is_float() and whole and ac.phase_run is None and not ac.state.loops:
        return blocked(ac, a, ident, is_min, False, name, node)
    # (an integer min/max stays one update over the array: LLVM vectorizes it)
    hint = _across_iterations if whole and ac.state.loops and t.is_float() else None
    out = reduction(ac, a, axes, [a.ty], [ident], step, name, node, hint=hint)
    if t.is_float() and ac.phase_run is None and out.view is not None:
        # NumPy's element among ±0 ties (numpy_zero_ties.py: the last axis)
        out = numpy_choice(ac, a, out, axes, False, name, node, join_out=True)
    elif t.is_float():      # (the same in phase mode: carried_zero_ties.py)
        out = phase_choice(ac.phase_run, ac, a, out, axes, False, name, node)
    return out


def _extreme(t, is_min):
    """The identity of min (is_min) or max in IR type t: its largest or
    smallest value (inf for floats, True/False for bools)."""
    if t.is_bool():
        return ir.Const(t, is_min)
    if t.is_float():
        return ir.Const(t, float("inf") if is_min else float("-inf"))
    return ir.Const(t, t.max_value() if is_min else t.min_value())


def anyall(ac, a, axes, is_any, node):
    if not axes:
        return _map(ac, a, lambda cx, x: _bool(cx, x), node)

    def step(cx, s, x, r):
        return [Val((ir.Or if is_any else ir.And)(s[0].node, _bool(cx, x).node), BOOL)]
    return reduction(ac, a, axes, [BOOL], [ir.Const(ir.Bool(), not is_any)], step,
                     "any" if is_any else "all", node)


def _bool(cx, x):
    return Val(ops.truth(cx, x).node, BOOL, risky=x.risky)


def arg_extreme(ac, a, axes, is_min, node):
    """argmin (is_min) or argmax over axes: the first occurrence (the first
    NaN); ValueError at call time where a reduced axis is empty."""
    return _argminmax(ac, a, axes, is_min, node)


def _argminmax(ac, a, axes, is_min, node):
    name = "argmin" if is_min else "argmax"
    if a.ndim == 0:
        return ArrayExpr([], INTP, lambda i: const_val(np.intp(0)), node)
    require_nonempty(ac.cx, a, axes, f"attempt to get {name} of an empty sequence", node)
    t = a.ty.ir()
    ident = _extreme(t, is_min)
    shape = a.shape

    def step(cx, s, x, r):
        pos = None
        for k in axes:          # the flat C-order index over the reduced axes
            rk = ops.cast(ir.Int(64), r[k])
            if pos is None:
                pos = rk
            else:
                pos = ir.Add(ir.Mul(pos, ops.cast(ir.Int(64), extent(cx, shape[k]))), rk)
        return pick(cx, s, pos, x)

    def pick(cx, s, pos, x):
        best, v = s[1].node, ops.node_of(cx, x)
        if t.is_bool():
            bv, vv = ops.cast(ir.UInt(8), best), ops.cast(ir.UInt(8), v)
            better = ir.LT(vv, bv) if is_min else ir.GT(vv, bv)
        else:
            better = ir.LT(v, best) if is_min else ir.GT(v, best)
        if t.is_float():        # the first NaN wins
            better = ir.Or(better, ir.And(ops.is_nan(v), ir.Not(ops.is_nan(best))))
        return [Val(ir.Select(better, pos, s[0].node), INTP), Val(ir.Select(better, v, best),
                                                                  a.ty)]
    init = [ir.Const(ir.Int(64), 0), ident]
    whole = list(axes) == list(range(a.ndim))
    if t.is_float() and whole and ac.phase_run is None and not ac.state.loops:
        return blocked(ac, a, ident, is_min, True, name, node)
    hint = _across_iterations if whole and ac.state.loops else None
    return reduction(ac, a, axes, [INTP, a.ty], init, step, name, node, view=False, hint=hint)


def _across_iterations(f):
    """The default schedule of a min/max/argmin/argmax of a whole array inside a
    loop over elements (a Func over the loops' lifted Vars only, one update
    over the array): the innermost loop's Var innermost and vectorized, so
    a vector of iterations each runs its own serial reduction (the serial
    result per iteration, exactly), when no schedule touched the update.
    Returns False: still placed by the default schedule."""
    u = f.update(0)
    d = u.definition().schedule
    if d.splits or any(x.kind != "serial" for x in d.dims):
        return False
    pure = f.args()[0].name()
    width = 8 if any(t.bits == 64 for t in f.types()) else 16
    rest = [x.var for x in d.dims if x.var != pure]
    outer, inner = pure + "_vo", pure + "_vi"
    u.split(pure, outer, inner, width).reorder(inner, *rest, outer) \
        .vectorize(inner)
    return False


def _mean_ty(b, a, dt, node, complex_ok=False):
    """The accumulation type of _mean and _var: float64 for integers and
    bools unless dtype= says otherwise (`complex_ok`: a mean's may be complex)."""
    if dt is None and (a.ty.is_int() or a.ty.is_bool()):
        dt = np.dtype(np.float64)
    sample = np.zeros((1,), a.ty.dtype)
    ty = numpy_ty(b, lambda: np.add.reduce(sample, dtype=dt).dtype, node)
    if not ty.is_float() and not (complex_ok and ty.is_complex()):
        raise b.cx.err(node, f"dtype={ty.dtype} for a mean or variance is not supported",
                       hint="use a float dtype (np.float64, np.float32)")
    return ty


def mean_of(b, ac, a, axes, dt, node):
    """The mean over axes as _mean computes it (dt the dtype= argument)."""
    acc = _mean_ty(b, a, dt, node, complex_ok=True)
    s = total(ac, a, axes, acc, node, "mean")
    n = count(ac.cx, a, axes)
    return _map(ac, s, lambda cx, x: divide(cx, x, n), node)


def _var(b, ac, a, axes, dt, got, is_std, node):
    cx = ac.cx
    acc = _mean_ty(b, a, dt, node, complex_ok=dt is None)
    n = count(cx, a, axes)
    ddof, where = got.get("ddof", (const_val(0), node))
    if not isinstance(ddof, Val):
        raise b.cx.err(where, "ddof must be a number")
    # the mean, keepdims (the sum's type)
    m = _map(ac, total(ac, a, axes, acc, node, "var_mean"), lambda cx, x: divide(cx, x, n),
             node)
    kept = [k for k in range(a.ndim) if k not in axes]

    def dev(i):
        cx.cur_node = node
        x = a.elem(i)
        return _squared(cx, ops.binary(cx, "-", x, m.elem([i[k] for k in kept])))
    probe = _squared(cx, ops.binary(cx, "-", placeholder(a.ty, cx), placeholder(m.ty, cx)))
    # NumPy's arr - mean is a new array in arr's memory order (result_order.py)
    sq = ArrayExpr(a.shape, probe.ty, dev, node, order=result_order([a], a.ndim))
    sq_acc = acc if dt is not None else sq.ty
    ret = total(ac, sq, axes, sq_acc, node, "var")
    cx.cur_node = node
    rcount = _np_max0(cx, ops.binary(cx, "-", n, ddof))

    def fin(cx, x):
        v = divide(cx, x, rcount)
        if is_std:
            v = Val(ir.Call(v.ty.ir(), "sqrt", (ops.node_of(cx, v),), ir.INTRINSIC), v.ty,
                    risky=v.risky)
        return v
    return _map(ac, ret, fin, node)


def _squared(cx, d: Val) -> Val:
    """d * d; of a complex d as NumPy's _var squares it: re*re + im*im."""
    if d.ty.is_complex():
        return ops.binary(cx, "+", ops.binary(cx, "*", d.re, d.re),
                          ops.binary(cx, "*", d.im, d.im))
    return ops.binary(cx, "*", d, d)


def _np_max0(cx, v: Val) -> Val:
    """np.maximum(v, 0) of an integer or float count."""
    n = ops.node_of(cx, v)
    zero = ir.Const(n.type, 0)
    return Val(ir.Select(ir.LT(n, zero), zero, n), v.ty)


@array_calls.function(np.sum, np.prod, np.min, np.max, np.amin, np.amax, np.mean, np.var,
                      np.std, np.argmin, np.argmax, np.any, np.all)
def _function(b, fn, node):
    return reduce_call(b, fn.__name__, None, node)


@array_calls.method("sum", "prod", "min", "max", "mean", "var", "std", "argmin", "argmax",
                    "any", "all")
def _method(b, obj, name, node):
    return reduce_call(b, name, obj, node)
