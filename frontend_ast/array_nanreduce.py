"""np.nanmin, np.nanmax, np.nanargmin, np.nanargmax of NumPy-style array
code, as numpy/lib/_nanfunctions_impl.py computes them for ndarrays:

- nanmin/nanmax are np.fmin.reduce / np.fmax.reduce: NaNs are skipped, an
  all-NaN slice gives NaN (NumPy only warns); an empty reduced axis raises
  ValueError. Integer and boolean arrays: np.min / np.max.
- nanargmin/nanargmax replace NaN by +inf (-inf) and take argmin (argmax):
  the first occurrence; a slice of NaNs only raises ValueError ("All-NaN
  slice encountered") where its result is computed, as NumPy raises it.

Where -0.0 and 0.0 tie, a reduction of every axis or of the last axis (read
contiguously) returns NumPy's element (numpy_zero_ties.py); others the
serial loop's (the first)."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from .array_args import axes_of, flag_of, operand_of, parse_args
from .array_reduce import BOOL, INTP, arg_extreme, finish, minmax, reduction, require_nonempty
from .arrayexpr import ArrayExpr
from .carried_zero_ties import phase_choice
from .numpy_zero_ties import numpy_choice
from .values import Val

_SIG = {"nanmin": ("axis", "out", "keepdims", "initial", "where"),
        "nanarg": ("axis", "out", "keepdims")}


def _parsed(b, what, node):
    got = parse_args(b, what, None, node, _SIG["nanarg" if "arg" in what else "nanmin"])
    a = operand_of(b, got["a"][0], got["a"][1])
    if a.ty.is_complex():
        raise b.cx.err(node, f"np.{what} of complex arrays is not supported yet")
    axes = axes_of(b, got, a.ndim, single="arg" in what)
    return a, axes, flag_of(b, got, "keepdims")


@array_calls.function(np.nanmin, np.nanmax)
def _nanminmax(b, fn, node):
    what = fn.__name__
    a, axes, keepdims = _parsed(b, what, node)
    ac, is_min = b.array_code, what == "nanmin"
    if not a.ty.is_float() or not axes:
        out = minmax(ac, a, axes, is_min, node)
        return finish(ac, out, axes, a.ndim, keepdims, node, operand=a)
    require_nonempty(ac.cx, a, axes, f"zero-size array to reduction operation "
                                     f"{'fmin' if is_min else 'fmax'} which has no identity",
                     node)
    t = a.ty.ir()

    def step(cx, s, x, r):       # fmin/fmax: a NaN operand gives the other
        acc, v = s[0].node, ops.node_of(cx, x)
        better = ir.LT(v, acc) if is_min else ir.GT(v, acc)
        take = ir.Or(ops.is_nan(acc), ir.And(ir.Not(ops.is_nan(v)), better))
        return [Val(ir.Select(take, v, acc), a.ty)]
    out = reduction(ac, a, axes, [a.ty], [ir.Const(t, float("nan"))], step, what, node)
    if ac.phase_run is None and out.view is not None:
        # NumPy's element among ±0 ties (numpy_zero_ties.py)
        out = numpy_choice(ac, a, out, axes, True, what, node, join_out=True)
    elif ac.phase_run is not None:      # (in phase mode: carried_zero_ties.py)
        out = phase_choice(ac.phase_run, ac, a, out, axes, True, what, node)
    # (a new array in a's memory order, as NumPy's fmin.reduce allocates it)
    return finish(ac, out, axes, a.ndim, keepdims, node, operand=a)


@array_calls.function(np.nanargmin, np.nanargmax)
def _nanarg(b, fn, node):
    what = fn.__name__
    a, axes, keepdims = _parsed(b, what, node)
    ac, cx, is_min = b.array_code, b.cx, what == "nanargmin"
    if not a.ty.is_float():
        return finish(ac, arg_extreme(ac, a, axes, is_min, node), axes, a.ndim, keepdims, node)
    t = a.ty.ir()
    fill = ir.Const(t, float("inf") if is_min else float("-inf"))

    def replaced(i):
        n = ops.node_of(cx, a.elem(i))
        return Val(ir.Select(ops.is_nan(n), fill, n), a.ty)
    r = ArrayExpr(a.shape, a.ty, replaced, node)
    if a.ndim == 0:
        pos = ArrayExpr([], INTP, lambda i: Val(ir.Const(ir.Int(64), 0), INTP), node)
        some = ArrayExpr([], BOOL, lambda i: Val(ir.Not(ops.is_nan(
            ops.node_of(cx, a.elem([])))), BOOL), node)
    else:
        pos = arg_extreme(ac, r, axes, is_min, node)

        def step(cx, s, x, r_):
            return [Val(ir.Or(s[0].node, ir.Not(ops.is_nan(ops.node_of(cx, x)))), BOOL)]
        some = reduction(ac, a, axes, [BOOL], [ir.Const(ir.Bool(), False)], step,
                         what + "_seen", node)

    def checked(i):
        cx.cur_node = node
        return cx.guard(pos.elem(i), ops.node_of(cx, some.elem(i)), "ValueError",
                        "All-NaN slice encountered")
    out = ArrayExpr(pos.shape, INTP, checked, node)
    return finish(ac, out, axes, a.ndim, keepdims, node)

