"""np.meshgrid: coordinate arrays from coordinate vectors, as NumPy makes
them (a tuple of new arrays, each of its input's dtype; inputs flattened;
indexing='xy' swaps the first two axes; sparse=True keeps size 1 along the
other axes)."""
from __future__ import annotations

import numpy as np

from . import array_calls
from .array_create import as_any_array, const_flag
from .array_shape import call_args, product, reshaped
from .arrayexpr import ArrayExpr
from .values import TupleVal, const_val


@array_calls.function(np.meshgrid)
def _meshgrid(b, fn, node):
    cx = b.cx
    a = call_args(b, node, "meshgrid", ["xi", "copy", "sparse", "indexing"], star="xi")
    indexing = b.ev(a["indexing"]) if "indexing" in a else "xy"
    if indexing not in ("xy", "ij"):
        raise cx.err(a.get("indexing", node), "Valid values for `indexing` are 'xy' and 'ij'.",
                     hint="write indexing='xy' or indexing='ij'")
    sparse, copy = (const_flag(b, a, name, d) for name, d in (("sparse", False), ("copy", True)))
    if not copy:
        raise cx.err(a["copy"], "np.meshgrid(..., copy=False) returns read-only views of its "
                                "inputs, which compiled code does not make",
                     hint="leave copy=True (the default): the arrays are new and writable")
    flat = []
    for x in a.get("xi", []):
        v = as_any_array(b, b.ev(x), x)
        flat.append(v if v.ndim == 1 else reshaped(cx, v, [product(cx, v.shape)], x, "copy"))
    n = len(flat)
    axes = list(range(n))
    if indexing == "xy" and n > 1:
        axes[0], axes[1] = 1, 0
    sizes = [None] * n
    for k, v in enumerate(flat):
        sizes[axes[k]] = v.shape[0]
    out = []
    for k, v in enumerate(flat):
        ax = axes[k]
        shape = [s if j == ax or not sparse else const_val(1) for j, s in enumerate(sizes)]
        out.append(ArrayExpr(shape, v.ty, _along(v, ax), node))
    return TupleVal(out)


def _along(v: ArrayExpr, ax: int):
    return lambda idx: v.elem([idx[ax]])
