"""Reductions of a boolean-mask read, `x[x > 0].sum()`, `np.max(a[m])`,
`a[m].any()`: the selection's size depends on the data (array_index.MaskRead
refuses its shape), but a reduction of all of it whose result does not
depend on the order of its elements is the same reduction over the whole
array with the unselected elements replaced by the operation's identity.

That holds for integer and bool dtypes: sums and products wrap (modular
arithmetic is associative and commutative), min/max/any/all are exact; and
for any/all of floats (0.0 and 1.0 fill). A
min/max of an empty selection raises NumPy's ValueError at run time. Float
sums are left refused: NumPy adds the selected elements pairwise in their
compacted positions (docs/numpy_sum_order.md), an order that depends on how
many precede each one; float min/max are left refused too (which of two
equal zeros NumPy returns depends on positions)."""
from __future__ import annotations

import numpy as np

from . import ops
from .array_index import MaskRead
from .array_masks import mask_fits
from .arrayexpr import ArrayExpr
from .values import const_val

_NAMES = {"min": "minimum", "max": "maximum"}
_FLOAT_FILL = {"sum": "0.0", "prod": "1.0", "min": "np.inf", "max": "-np.inf"}


def padded(b, a, fn, kind, node):
    """(operand, axes) standing for the mask read `a` (a MaskRead) in the
    reduction `fn` of kind `kind` (array_reduce's kinds): the source array
    with the identity of `fn` where the mask does not select; None where
    this is not such a case (the caller then refuses the read)."""
    if not isinstance(a, MaskRead) or kind not in ("sum", "min", "any") or \
            fn not in ("sum", "prod", "min", "max", "any", "all"):
        return None
    if a.ty.dtype.kind in "fc" and kind != "any":
        raise b.cx.err(node, f"np.{fn} of a boolean-mask read of {a.ty.describe()}: the "
                             f"selection's size depends on the data, and NumPy's result "
                             f"depends on the selected elements' compacted positions (the "
                             f"order of a float sum, which of two equal zeros is kept); only "
                             f"integer and bool selections are reduced",
                       hint=f"np.where(mask, x, {_FLOAT_FILL[fn]}).{fn}() reduces all "
                            f"elements (equal up to float rounding), or reduce in a loop "
                            f"over the elements in your own order")
    if a.ty.dtype.kind not in ("iubf" if kind == "any" else "iub"):
        return None
    src, mask = a.src, a.mask
    if not isinstance(mask, ArrayExpr) or mask.ndim != src.ndim or src.ndim == 0:
        return None
    mask_fits(b, mask.shape, src.shape, a.node)
    cx, ty = b.cx, src.ty
    fill = _identity(fn, ty)

    def elem(idx):
        return ops.select(cx, ops.truth(cx, mask.elem(idx)), src.elem(idx),
                          ops.convert(cx, const_val(fill), ty))
    return ArrayExpr(list(src.shape), ty, elem, a.node), tuple(range(src.ndim))


def _identity(fn, ty):
    dt = ty.dtype
    if fn in ("sum", "any"):
        return False if dt.kind == "b" else 0
    if fn in ("prod", "all"):
        return True if dt.kind == "b" else 1
    if dt.kind == "b":
        return fn == "min"
    info = np.iinfo(dt)
    return int(info.max if fn == "min" else info.min)


def selection_mask(a) -> ArrayExpr:
    """The mask of the mask read `a`, over the source's shape."""
    return ArrayExpr(list(a.src.shape), a.mask.ty, a.mask.elem, a.node)


def nonempty(cx, value, some, fn):
    """value (the min/max of the padded operand), raising NumPy's ValueError
    at run time where `some` (whether the mask selects anything) is false."""
    return cx.guard(value, ops.node_of(cx, ops.truth(cx, some)), "ValueError",
                    f"zero-size array to reduction operation {_NAMES[fn]} which has no "
                    f"identity")
