"""np.histogram(a, bins=10, range=None) of NumPy-style array code, as
numpy/lib/_histograms_impl.py computes it (a is flattened; weights= and
density= are located errors).

- bins a constant int: the edges are np.linspace(first, last, bins + 1) in
  NumPy's linspace type of (first, last), cast to the bin type (a's float
  dtype, float64 for integers); first, last = range, or a.min(), a.max()
  (0, 1 for an empty a; ValueError at call time where they are not finite),
  moved apart by 0.5 where equal. An element x in [first, last] goes to bin
  int((x - first) / (last - first) * bins) (x in the bin type), the last bin
  for x == last, then one down where x < edges[i] and one up where
  x >= edges[i + 1] (not past the last bin): NumPy's fast path exactly.
  The counts are one update over the elements (a histogram: the bin is a
  data-dependent index).
- bins an array of edges (increasing; ValueError at call time otherwise):
  count[i] = #(x < e[i + 1]) - #(x < e[i]), the last bin closed (x <= e[-1]),
  which is NumPy's searchsorted on the sorted data (NaN counts nowhere); the
  edges are returned as given (a copy). Cost: (bins + 1) * a.size compares.
Counts are intp."""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from pyhalide.expr import Expr
from pyhalide.var import RDom

from . import array_calls, ops
from . import types as T
from .array_args import operand_of
from .array_reduce import INTP, extent, fold, reduction
from .array_scan import flattened
from .array_shape import call_args
from .arrayexpr import ArrayExpr
from .values import Arr, TupleVal, Val, const_val

F64 = T.np_ty(np.float64)


@array_calls.function(np.histogram)
def _histogram(b, fn, node):
    cx = b.cx
    a = call_args(b, node, "histogram", ["a", "bins", "range", "density", "weights"], 1)
    for k in ("density", "weights"):
        if k in a:
            v = b.ev(a[k])
            if not (v is None or (isinstance(v, Val) and v.is_const and v.const in (None, False))):
                raise cx.err(a[k], f"{k}= of np.histogram is not supported in compiled code",
                             hint="count with np.histogram, then weight or normalize the "
                                  "counts yourself")
    x = operand_of(b, b.ev(a["a"]), a["a"])
    if x.ty.is_complex() or x.ty.is_bool():
        raise cx.err(a["a"], f"np.histogram of {x.ty.describe()} arrays is not supported",
                     hint="convert first: a.astype(np.float64)")
    x = flattened(cx, x, node)
    bins = b.ev(a["bins"]) if "bins" in a else const_val(10)
    if isinstance(bins, Val):
        if not (bins.is_const and isinstance(bins.const, int) and not isinstance(bins.const,
                                                                                 bool)):
            raise cx.err(a["bins"], "bins must be a constant integer or an array of edges")
        if bins.const < 1:
            raise cx.err(a["bins"], "`bins` must be positive, when an integer")
        rng = b.ev(a["range"]) if "range" in a else None
        return _uniform(b, x, int(bins.const), rng, a.get("range"), node)
    if "range" in a and b.ev(a["range"]) is not None:
        raise cx.err(a["range"], "range= with an array of edges is not supported",
                     hint="the edges give the range")
    edges = b.array_code.as_array(bins, a["bins"])
    if edges is None or edges.ndim != 1:
        raise cx.err(a["bins"], "bins must be 1d, when an array")
    return _edges(b, x, edges, node)


def _int_bounds(t):
    info = np.iinfo(t.to_numpy())
    return int(info.min), int(info.max)


def _uniform(b, x, bins, rng, rng_node, node):
    cx, ac = b.cx, b.array_code
    size = extent(cx, x.shape[0])
    if rng is not None:
        if not (isinstance(rng, TupleVal) and len(rng.items) == 2 and
                all(isinstance(v, Val) and not v.ty.is_complex() for v in rng.items)):
            raise cx.err(rng_node, "range must be a pair of numbers (lo, hi)")
        first, last = rng.items
        sample = [np.zeros(1, v.ty.dtype)[0] if not v.ty.weak else
                  (0.0 if v.ty.is_float() else 0) for v in (first, last)]
    else:
        xt = x.ty.ir()
        if xt.is_int() or xt.is_uint():
            lo, hi = _int_bounds(xt)
            ident = (ir.Const(xt, hi), ir.Const(xt, lo))
        else:
            ident = None
        first = _extreme(ac, x, True, node, ident)
        last = _extreme(ac, x, False, node, ident)
        sample = [np.zeros(1, x.ty.dtype)[0]] * 2
    bin_dt = np.result_type(*sample, np.zeros(1, x.ty.dtype))
    if np.issubdtype(bin_dt, np.integer):
        bin_dt = np.result_type(bin_dt, float)
    bty = T.np_ty(bin_dt)
    lin_ty = T.np_ty(np.linspace(sample[0], sample[1], 2).dtype)
    bt, lt = bty.ir(), lin_ty.ir()

    def as_t(v, ty):
        return ops.node_of(cx, ops.convert(cx, v, ty) if v.ty.weak else ops.cast_to(cx, v, ty))
    cx.cur_node = node
    f0, l0 = as_t(first, lin_ty), as_t(last, lin_ty)
    if rng is None:
        empty = ir.EQ(size, ir.index(0))
        f0 = ir.Select(empty, ir.Const(lt, 0.0), f0)
        l0 = ir.Select(empty, ir.Const(lt, 1.0), l0)
        ok = ir.And(ir.Call(ir.Bool(), "is_finite", (f0,), ir.INTRINSIC),
                    ir.Call(ir.Bool(), "is_finite", (l0,), ir.INTRINSIC))
        bad = "autodetected range of [{first}, {last}] is not finite"
    else:
        ok = ir.And(ir.LE(f0, l0), ir.And(ir.Call(ir.Bool(), "is_finite", (f0,), ir.INTRINSIC),
                                          ir.Call(ir.Bool(), "is_finite", (l0,),
                                                  ir.INTRINSIC)))
        bad = "max must be larger than min in range parameter (and both finite)"
    same = ir.EQ(f0, l0)
    half = ir.Const(lt, 0.5)
    f0 = ir.Select(same, ir.Sub(f0, half), f0)
    l0 = ir.Select(same, ir.Add(l0, half), l0)
    f0 = ops.node_of(cx, cx.guard(Val(f0, lin_ty), ok, "ValueError", bad))
    div = ir.Const(lt, float(bins))
    delta = ir.Sub(l0, f0)
    step = ir.Div(delta, div)

    def edge(i):             # np.linspace(first, last, bins + 1)[i] in the bin type
        xi = ir.Cast(lt, i)
        y = ir.Select(ir.EQ(step, ir.Const(lt, 0.0)), ir.Mul(ir.Div(xi, div), delta),
                      ir.Mul(xi, step))
        y = ir.Select(ir.EQ(i, ir.index(bins)), l0, ir.Add(y, f0))
        return ir.Cast(bt, y) if bt != lt else y
    first_b, last_b = edge(ir.index(0)), edge(ir.index(bins))
    denom = ir.Sub(last_b, first_b)

    def bin_of(v: Val):
        xv = ops.node_of(cx, ops.cast_to(cx, v, bty))
        keep = ir.And(ir.GE(xv, first_b), ir.LE(xv, last_b))
        fi = ir.Mul(ir.Div(ir.Sub(xv, first_b), denom), ir.Const(bt, float(bins)))
        k = ir.Cast(ir.INDEX, ir.Max(ir.Min(fi, ir.Const(bt, float(bins))), ir.Const(bt, 0.0)))
        k = ir.Select(ir.EQ(k, ir.index(bins)), ir.index(bins - 1), k)
        k = ir.Select(ir.LT(xv, edge(k)), ir.Sub(k, ir.index(1)), k)
        up = ir.And(ir.GE(xv, edge(ir.Add(k, ir.index(1)))), ir.NE(k, ir.index(bins - 1)))
        k = ir.Select(up, ir.Add(k, ir.index(1)), k)
        return keep, ir.Max(ir.Min(k, ir.index(bins - 1)), ir.index(0))
    counts = _counted(ac, x, bins, bin_of, node)
    edges = ArrayExpr([const_val(bins + 1)], bty, lambda i: Val(edge(i[0]), bty), node)
    return TupleVal([counts, edges])


def _extreme(ac, x, is_min, node, ident):
    """a.min() / a.max() without the empty check (empty: 0 / 1 replace it)."""
    t = x.ty.ir()
    start = ident[0 if is_min else 1] if ident is not None else \
        ir.Const(t, float("inf") if is_min else float("-inf"))

    def step(cx, s, v, r):
        n, cur = ops.node_of(cx, v), s[0].node
        better = ir.LT(n, cur) if is_min else ir.GT(n, cur)
        if t.is_float():       # NaN propagates (np.min)
            better = ir.And(ir.Or(better, ops.is_nan(n)), ir.Not(ops.is_nan(cur)))
        return [Val(ir.Select(better, n, cur), x.ty)]
    name = "hist_first" if is_min else "hist_last"
    return reduction(ac, x, (0,), [x.ty], [start], step, name, node).elem([])


def _counted(ac, x, bins, bin_of, node) -> ArrayExpr:
    """counts[k] = the number of elements v of x with bin_of(v) = (True, k)."""
    cx = ac.cx
    cx.cur_node = node
    arr = Arr("hist", INTP, [const_val(bins)], "local", cx.smap.loc(node))
    f = ac.new_func("hist", arr)
    var = ac.defs.axis_var(arr, 0)
    zero = ir.Const(ir.Int(64), 0)
    ac.emitter.define(f, (var,), (zero,), [], None, arr.loc, pure=True, label="hist")
    rdom = RDom([(Expr.wrap(ir.index(0)), Expr.wrap(extent(cx, x.shape[0])))], "r_" + f.name())
    r = rdom[0].node
    keep, k = bin_of(x.elem([r]))
    cur = f[(Expr.wrap(k),)].node
    value = ir.Add(cur, ir.Select(keep, ir.Const(ir.Int(64), 1), zero))
    ac.defs.mark_emitted([value], f)
    ac.emitter.define(f, (Expr.wrap(k),), (value,), [], rdom, arr.loc, label="hist", loops=[])
    arr.func = f
    arr.defined = True
    arr.versions.append(f)
    return ac.view_of(arr, node)


def _edges(b, x, edges, node):
    cx, ac = b.cx, b.array_code
    ne = edges.shape[0]
    n_e = extent(cx, ne)
    last = ir.Sub(n_e, ir.index(1))

    def below(i):             # x[j] < e[i] (x[j] <= e[i] for the last edge)
        k, j = i
        cx.cur_node = node
        v, e = x.elem([j]), edges.elem([k])
        lt = ops.node_of(cx, ops.compare(cx, "<", v, e))
        le = ops.node_of(cx, ops.compare(cx, "<=", v, e))
        return Val(ir.Cast(ir.Int(64), ir.Select(ir.EQ(k, last), le, lt)), INTP)
    cum = fold(ac, ArrayExpr([ne, x.shape[0]], INTP, below, node), (1,), INTP, "+", 0, node,
               "hist_cum")
    nbins = ops.binary(cx, "-", ne, const_val(1))

    def count(i):
        cx.cur_node = node
        nxt = ir.Min(ir.Add(i[0], ir.index(1)), last)
        c1, c0 = cum.elem([nxt]), cum.elem([i[0]])
        rising = ops.compare(cx, "<=", edges.elem([i[0]]), edges.elem([nxt]))
        d = ops.binary(cx, "-", c1, c0)
        return cx.guard(d, ops.node_of(cx, rising), "ValueError",
                        "`bins` must increase monotonically, when an array")
    counts = ArrayExpr([nbins], INTP, count, node)
    copy = ArrayExpr([ne], edges.ty, edges.elem, node)
    return TupleVal([counts, copy])
