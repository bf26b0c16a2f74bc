"""np.outer: the product of every element of one array with every element
of another (both flattened; 1-D here), an element-wise product over a
2-D index space."""
from __future__ import annotations

import ast

import numpy as np

from . import array_calls, ops
from .arrayexpr import ArrayExpr, placeholder


@array_calls.function(np.outer)
def outer(b, fn, node):
    if len(node.args) != 2 or node.keywords or \
            any(isinstance(a, ast.Starred) for a in node.args):
        raise b.cx.err(node, "np.outer takes two arrays here (no keywords)")
    xs = [b.array_code.as_array(b.ev(a), a) for a in node.args]
    for x, a in zip(xs, node.args):
        if x is None or x.ndim != 1:
            raise b.cx.err(a, "np.outer of arrays that are not 1-D is not supported",
                           hint="pass 1-D arrays (a.ravel())")
    x, y = xs
    cx = b.cx
    cx.cur_node = node
    ty = ops.binary(cx, "*", placeholder(x.ty), placeholder(y.ty)).ty

    def elem(idx):
        cx.cur_node = node
        return ops.binary(cx, "*", x.elem([idx[0]]), y.elem([idx[1]]))

    return ArrayExpr([x.shape[0], y.shape[0]], ty, elem, node)
