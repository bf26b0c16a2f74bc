"""Index maps of array views as affine forms: the constant step along each
axis of the viewed array per step along each axis of the view (basic
slices, transposes, new axes, integer indices), and the rest, an
expression of call-time values. Used for the strides of returned views
(arg_views.py) and for the memory order of views (sum_order.py)."""
from __future__ import annotations

import re

from pyhalide import ir
from pyhalide.ir.ops import free_vars

PROBE = "%argview"


def probes(ndim: int) -> list:
    """The index variables a view's map is applied to."""
    return [ir.Variable(ir.INDEX, f"{PROBE}{k}") for k in range(ndim)]


def affine_rows(value):
    """rows[j][k]: the constant step along axis j of the viewed array per
    step along axis k of the view `value` (an ArrayExpr view), or None
    where its index map is not affine with constant coefficients. A
    window's view is taken without its clamps (array_index.Indexed.
    layout_view)."""
    _, to_base = getattr(value, "layout_view", None) or value.view
    rows = []
    for e in to_base(probes(value.ndim)):
        form = affine(e, value.ndim)
        if form is None:
            return None
        rows.append(form[0])
    return rows


def affine(e, ndim: int):
    """(coefficients of the probe variables, the rest as an Expr) when e is
    an affine function of them with constant coefficients (sums,
    differences and products by constants of them), else None."""
    names = free_vars(e)
    if not any(n.startswith(PROBE) for n in names):
        return [0] * ndim, e
    if isinstance(e, ir.Variable):
        m = re.fullmatch(re.escape(PROBE) + r"(\d+)", e.name)
        row = [0] * ndim
        row[int(m.group(1))] = 1
        return row, ir.Const(e.type, 0)
    if isinstance(e, (ir.Add, ir.Sub)):
        a, b = affine(e.a, ndim), affine(e.b, ndim)
        if a is None or b is None:
            return None
        sign = 1 if isinstance(e, ir.Add) else -1
        return [x + sign * y for x, y in zip(a[0], b[0])], type(e)(a[1], b[1])
    if isinstance(e, ir.Mul):
        for k, x in ((e.b, e.a), (e.a, e.b)):
            if isinstance(k, ir.Const):
                f = affine(x, ndim)
                if f is None:
                    return None
                return [c * int(k.value) for c in f[0]], ir.Mul(f[1], k)
    return None
