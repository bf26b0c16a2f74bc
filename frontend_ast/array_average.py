"""np.average(a, axis=None, weights=None, returned=False, keepdims=...) as
numpy/lib/_function_base_impl.py computes it: without weights the mean;
with weights the sum of a * w (cast to the result dtype) over the axes
divided by the sum of the weights, ZeroDivisionError at run time where a
sum of weights is 0. Weights have a's shape, or (with axis) the reduced
axes' sizes in the order of `axis`; shapes that differ at call time raise
NumPy's TypeError / ValueError."""
from __future__ import annotations

import numpy as np

from . import array_calls, ops
from .array_args import axis_order, flag_of, numpy_ty, operand_of
from .array_reduce import count, finish, mean_of, total
from .arrayexpr import RESULT_ORDER, ArrayExpr, lift
from .values import TupleVal, Val, const_val


@array_calls.function(np.average)
def _average(b, fn, node):
    cx = b.cx
    names = ("a", "axis", "weights", "returned", "keepdims")
    if len(node.args) > 4:
        raise b.cx.err(node, "average() takes at most 4 positional arguments")
    got = {}
    for name, vnode in list(zip(names, node.args)) + [(k.arg, k.value) for k in node.keywords]:
        if name not in names or name in got:
            raise b.cx.err(vnode, f"average() got an unexpected argument {name!r}")
        got[name] = (b.ev(vnode), vnode)
    if "a" not in got:
        raise b.cx.err(node, "average() needs an array argument")
    a = operand_of(b, *got["a"])
    ac = b.array_code
    order = axis_order(b, got, a.ndim)
    axes = tuple(sorted(order)) if order is not None else tuple(range(a.ndim))
    keepdims = flag_of(b, got, "keepdims")
    returned = flag_of(b, got, "returned")
    w = got.get("weights", (None, None))[0]
    if w is None:
        avg = finish(ac, mean_of(b, ac, a, axes, None, node), axes, a.ndim, keepdims, node)
        if not returned:
            return avg
        ty = avg.ty
        n = ops.cast_to(cx, ops.binary(cx, "/", count(cx, a, axes), const_val(1)), ty)
        scl = n if isinstance(avg, Val) else lift(cx, lambda cx, v: n, [avg], node)
        return TupleVal([avg, scl])
    W = _weights(b, a, operand_of(b, w, got["weights"][1]), order, got["weights"][1])
    rt = numpy_ty(b, lambda: np.result_type(a.ty.dtype, W.ty.dtype, *(
        ["f8"] if a.ty.is_int() or a.ty.is_bool() else [])), node)
    scl = total(ac, W, axes, rt, node, "average_weights")
    # np.multiply(a, wgt): laid out in its operands' memory order (order='K')
    terms = ArrayExpr(a.shape, rt, lambda i: ops.binary(
        cx, "*", ops.cast_to(cx, a.elem(i), rt), ops.cast_to(cx, W.elem(i), rt)), node,
        order=RESULT_ORDER["fn"]([a, W], a.ndim))
    num = total(ac, terms, axes, rt, node, "average")
    num = finish(ac, num, axes, a.ndim, keepdims, node)
    scl = finish(ac, scl, axes, a.ndim, keepdims, node)

    def div(cx, s, q):
        ok = ops.node_of(cx, cx.compare("!=", q, const_val(0.0)))
        return cx.guard(ops.binary(cx, "/", s, q), ok, "ZeroDivisionError",
                        "Weights sum to zero, can't be normalized")
    avg = lift(cx, div, [num, scl], node)
    if not returned:
        return avg
    if isinstance(avg, ArrayExpr) and isinstance(scl, ArrayExpr):
        scl = lift(cx, lambda cx, v, q: q, [avg, scl], node)
    elif isinstance(avg, ArrayExpr):
        scl = lift(cx, lambda cx, v, q=scl: q, [avg], node)
    return TupleVal([avg, scl])


def _weights(b, a, W, order, where):
    """The weights as an array of a's shape (broadcast along the kept axes
    when they have only the reduced axes), with NumPy's call-time shape
    checks."""
    cx = b.cx
    if W.ndim == a.ndim:
        pairs = list(zip(W.shape, a.shape))
        exc = TypeError if order is None else ValueError
        msg = "Axis must be specified when shapes of a and weights differ." if order is None \
            else "Shape of weights must be consistent with shape of a along specified axis."
        _require_equal(cx, pairs, exc, msg, where)
        return W
    if order is None:
        raise cx.err(where, "Axis must be specified when shapes of a and weights differ.")
    if W.ndim != len(order):
        raise cx.err(where, "Shape of weights must be consistent with shape of a along "
                            "specified axis.")
    _require_equal(cx, [(W.shape[j], a.shape[k]) for j, k in enumerate(order)], ValueError,
                   "Shape of weights must be consistent with shape of a along specified axis.",
                   where)
    shape = [a.shape[k] if k in order else const_val(1) for k in range(a.ndim)]
    return ArrayExpr(shape, W.ty, lambda i: W.elem([i[k] for k in order]), where)


def _require_equal(cx, pairs, exc, msg, node):
    pairs = [(x, y) for x, y in pairs if not (x is y or (x.is_const and y.is_const and
                                                         x.const == y.const))]
    if not pairs:
        return
    loc = cx.smap.loc(node)

    def check(env):
        if any(x.static(env) != y.static(env) for x, y in pairs):
            raise exc(msg + (f" ({loc.file}:{loc.line})" if loc is not None else ""))
    cx.static_checks.append(check)
