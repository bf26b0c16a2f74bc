"""np.interp(x, xp, fp, left=None, right=None) and np.searchsorted of
NumPy-style array code. np.interp as
NumPy's arr_interp (numpy/_core/src/multiarray/compiled_base.c) computes
it, in float64 (x, xp and fp converted; the result has x's shape, a NumPy
float64 for a scalar x):

- one sample point: left where x < xp[0], right where x > xp[0], else
  fp[0] (also for a NaN x);
- else a NaN x gives itself; j is the last index with xp[j] <= x (a binary
  search, array_sort.count_prefix: NumPy's binary_search_with_guess on an
  increasing xp); x > xp[-1] gives right, j == -1 left, j == n - 1 or
  xp[j] == x fp[j]; else slope = (fp[j+1] - fp[j]) / (xp[j+1] - xp[j]),
  slope * (x - xp[j]) + fp[j], and where that is NaN slope * (x - xp[j+1])
  + fp[j+1], and where that is NaN too and fp[j] == fp[j+1], fp[j].

left and right default to fp[0] and fp[-1]. An empty xp, or fp of another
length, raise NumPy's ValueError at call time. As in NumPy, xp must be
increasing (for another xp the results differ from NumPy's, which are
meaningless too); period= and complex fp are refused."""
from __future__ import annotations

import ast

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from . import types as T
from .array_args import operand_of, parse_args
from .array_create import literal_array
from .array_reduce import INTP
from .array_sort import count_prefix, less, opaque, search_steps
from .arrayexpr import ArrayExpr
from .values import Val, fresh

F64 = T.np_ty(np.float64)


@array_calls.function(np.interp)
def _interp(b, fn, node):
    cx = b.cx
    got = parse_args(b, "interp", None, node, ("xp", "fp", "left", "right", "period"),
                     lists=("xp", "fp"), literal_array=literal_array)
    for name in ("xp", "fp"):
        if name not in got:
            raise cx.err(node, f"np.interp() needs {name}")
    if "period" in got and not _is_none(got["period"][0]):
        raise cx.err(got["period"][1], "period= of np.interp is not supported",
                     hint="wrap x into one period yourself (x % period) and extend xp and fp")
    x = operand_of(b, got["a"][0], got["a"][1])
    xp = operand_of(b, *got["xp"])
    fp = operand_of(b, *got["fp"])
    for v, name in ((x, "x"), (xp, "xp"), (fp, "fp")):
        if v.ty.is_complex():
            raise cx.err(node, f"np.interp of a complex {name} is not supported yet")
    for v, name in ((xp, "xp"), (fp, "fp")):
        if v.ndim != 1:
            raise cx.err(got[name][1], f"{name} of np.interp must be 1-D (NumPy's ValueError)")
    _check_lengths(cx, xp.shape[0], fp.shape[0], node)
    n = ops.cast(ir.INDEX, ops.node_of(cx, xp.shape[0]))
    steps = search_steps(xp.shape[0])

    def f64(v: Val):
        return ops.node_of(cx, ops.cast_to(cx, v, F64))

    def at(arr, j):
        if not isinstance(j, ir.Const):
            j = opaque(j)
        return f64(arr.elem([ir.Max(ir.Min(j, ir.Sub(n, ir.index(1))), ir.index(0))]))
    ends = {}
    for name, k in (("left", ir.index(0)), ("right", ir.Sub(n, ir.index(1)))):
        v = got.get(name, (None, None))[0]
        if _is_none(v):
            ends[name] = lambda k=k: at(fp, k)
        elif isinstance(v, Val):
            ends[name] = lambda v=v: f64(v)
        else:
            raise cx.err(got[name][1], f"{name}= of np.interp must be a number")

    def one(xv):
        cx.cur_node = node
        name = fresh("interp_x")
        xn = ir.Variable(ir.Float(64), name)
        left, right = ends["left"](), ends["right"]()
        x0, y0 = at(xp, ir.index(0)), at(fp, ir.index(0))
        single = ir.Select(ir.LT(xn, x0), left, ir.Select(ir.GT(xn, x0), right, y0))
        j = ir.Sub(count_prefix(ir.index(0), n, lambda i: ir.LE(at(xp, i), xn), steps),
                   ir.index(1))
        jn = fresh("interp_j")
        jv = ir.Variable(ir.INDEX, jn)
        xj, xk = at(xp, jv), at(xp, ir.Add(jv, ir.index(1)))
        yj, yk = at(fp, jv), at(fp, ir.Add(jv, ir.index(1)))
        slope = ir.Div(ir.Sub(yk, yj), ir.Sub(xk, xj))
        r1 = ir.Add(ir.Mul(slope, ir.Sub(xn, xj)), yj)
        r2 = ir.Add(ir.Mul(slope, ir.Sub(xn, xk)), yk)
        inner = ir.Select(ops.is_nan(r1), ir.Select(ir.And(ops.is_nan(r2), ir.EQ(yj, yk)), yj, r2),
                          r1)
        last = ir.Sub(n, ir.index(1))
        many = ir.Select(
            ops.is_nan(xn), xn, ir.Select(
                ir.GT(xn, at(xp, last)), right, ir.Select(
                    ir.LT(jv, ir.index(0)), left, ir.Select(
                        ir.Or(ir.EQ(jv, last), ir.EQ(xj, xn)), yj, inner))))
        body = ir.Select(ir.EQ(n, ir.index(1)), single, ir.Let(jn, j, many))
        return Val(ir.Let(name, f64(xv), body), F64)
    if x.ndim == 0:
        return one(x.elem([]))
    return ArrayExpr(x.shape, F64, lambda i: one(x.elem(i)), node)


def _is_none(v) -> bool:
    return v is None or (isinstance(v, Val) and v.is_const and v.const is None)


def _check_lengths(cx, nx: Val, nf: Val, node):
    loc = cx.smap.loc(node)
    where = f" ({loc.file}:{loc.line})" if loc is not None else ""

    def check(env):
        a = nx.static(env)
        if a == 0:
            raise ValueError("array of sample points is empty" + where)
        if a != nf.static(env):
            raise ValueError("fp and xp are not of the same length." + where)
    cx.static_checks.append(check)


@array_calls.function(np.searchsorted)
def _searchsorted(b, fn, node):
    """np.searchsorted(a, v, side='left', sorter=None): for each v, the
    number of elements of the 1-D a that sort before it (side='left': a[i]
    < v; 'right': a[i] <= v) in NumPy's sort order (NaN last), an intp (a
    NumPy intp scalar for a scalar v). a must be sorted, as NumPy requires;
    v is compared in the dtype NumPy's searchsorted casts both to."""
    cx = b.cx
    got = parse_args(b, "searchsorted", None, node, ("v", "side", "sorter"))
    if "v" not in got:
        raise cx.err(node, "np.searchsorted() needs v")
    if "sorter" in got and not _is_none(got["sorter"][0]):
        raise cx.err(got["sorter"][1], "sorter= of np.searchsorted is not supported",
                     hint="search the sorted array: np.searchsorted(a[sorter], v)")
    side = "left"
    if "side" in got:
        where = got["side"][1]
        side = where.value if isinstance(where, ast.Constant) else None
        if side not in ("left", "right"):
            raise cx.err(where, "side= of np.searchsorted must be 'left' or 'right'")
    a = operand_of(b, got["a"][0], got["a"][1])
    v = operand_of(b, *got["v"])
    if a.ndim != 1:
        raise cx.err(got["a"][1], "the array of np.searchsorted must be 1-D (NumPy's "
                                  "ValueError)")
    if a.ty.is_complex() or v.ty.is_complex():
        raise cx.err(node, "np.searchsorted of complex values is not supported yet")
    _refuse_empty(cx, a.shape[0], node)
    common = T.np_ty(np.result_type(a.ty.dtype, v.ty.dtype))
    n = ops.cast(ir.INDEX, ops.node_of(cx, a.shape[0]))
    steps = search_steps(a.shape[0])
    t = common.ir()

    def one(x):
        cx.cur_node = node
        name = fresh("search_v")
        xn = ir.Variable(t, name)

        def before(i):
            y = ops.node_of(cx, ops.cast_to(cx, a.elem([ir.Max(ir.Min(opaque(i), ir.Sub(
                n, ir.index(1))), ir.index(0))]), common))
            return less(y, xn, t) if side == "left" else ir.Not(less(xn, y, t))
        count = count_prefix(ir.index(0), n, before, steps)
        value = ops.node_of(cx, ops.cast_to(cx, x, common))
        return Val(ops.cast(ir.Int(64), ir.Let(name, value, count)), INTP)
    if v.ndim == 0:
        return one(v.elem([]))
    return ArrayExpr(v.shape, INTP, lambda i: one(v.elem(i)), node)


def _refuse_empty(cx, size: Val, node):
    loc = cx.smap.loc(node)

    def check(env):
        if size.static(env) == 0:
            raise ValueError("np.searchsorted of an empty array is not supported in compiled "
                             "code" + (f" ({loc.file}:{loc.line})" if loc is not None else ""))
    cx.static_checks.append(check)
