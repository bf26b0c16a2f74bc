"""np.polyval(p, x) in NumPy-style array code, as numpy/lib/_polynomial_impl.py
computes it: y = zeros_like(x), then `y = y * x + pv` for each coefficient
pv of p in order (Horner's rule, a multiply and an add each rounded, no
fused multiply-add).

One Func over x's shape: pure definition 0, one update over an RDom of p's
length, in order. Its type is NumPy's result type of x's and p's dtypes;
the first step computes `0 * x` in x's own dtype, as NumPy's zeros_like(x)
does (an integer x gives +0 there, where a float product could give -0).
An x that is a scalar is a 0-d array (the result is a NumPy scalar). When
that type is not x's dtype, an empty p (where NumPy returns zeros of x's
dtype) is refused at call time; a p of other than 1 dimension, bool and
complex operands are refused when compiling."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from . import types as T
from .array_args import operand_of
from .array_reduce import finish, reduction
from .array_shape import call_args, check_at_call
from .arrayexpr import ArrayExpr, k_order
from .result_order import each_order
from .values import Val


@array_calls.function(np.polyval)
def _polyval(b, fn, node):
    a = call_args(b, node, "polyval", ["p", "x"], 2)
    cx = b.cx
    p = operand_of(b, b.ev(a["p"]), a["p"])
    x = operand_of(b, b.ev(a["x"]), a["x"])
    if p.ndim != 1:
        raise cx.err(a["p"], f"np.polyval with {p.ndim}-d coefficients is not supported",
                     hint="pass the coefficients as a 1-D array")
    for v, where in ((p, a["p"]), (x, a["x"])):
        if v.ty.is_bool() or v.ty.is_complex():
            raise cx.err(where, f"np.polyval of {v.ty.describe()} values is not supported",
                         hint="convert first: .astype(np.float64)")
    rt = T.result_type(np.add, x.ty, p.ty) if x.ty != p.ty else x.ty
    if rt != x.ty:
        n = p.shape[0]

        def empty(env):
            if n.static(env) == 0:
                return ValueError, ("np.polyval with no coefficients returns zeros of x's "
                                    "dtype, not of the result type: not supported")
            return None
        check_at_call(cx, node, empty)
    at = {}

    def coefficient(idx):
        at["idx"] = idx
        return ops.cast_to(cx, p.elem([idx[-1]]), rt)

    def step(cx, s, pv, rvars):
        (k,) = rvars.values()
        xe = x.elem(at["idx"][:-1])
        first = ops.cast_to(cx, ops.binary(cx, "*", Val(ir.Const(x.ty.ir(), 0.0 if x.ty.is_float() else 0), x.ty), xe), rt)
        later = ops.binary(cx, "*", s[0], ops.cast_to(cx, xe, rt))
        y = ops.select(cx, Val(ir.EQ(k, ir.Const(k.type, 0)), T.np_ty(np.bool_)), first, later,
                       lazy=False)
        return [ops.binary(cx, "+", y, pv)]
    # NumPy's y (zeros_like(x), then y * x + pv) is laid out in x's memory
    # order (order='K'): the terms carry it, the coefficients' axis innermost
    order = each_order(k_order(x), lambda o: None if o is None else tuple(o) + (x.ndim,))
    terms = ArrayExpr(list(x.shape) + [p.shape[0]], rt, coefficient, node, order=order)
    zero = ir.Const(rt.ir(), 0.0 if rt.is_float() else 0)
    out = reduction(b.array_code, terms, (x.ndim,), [rt], [zero], step, "polyval", node)
    return finish(b.array_code, out, (x.ndim,), x.ndim + 1, False, node, operand=terms)

