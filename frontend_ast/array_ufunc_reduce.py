"""ufunc.reduce of NumPy-style array code: np.add.reduce(a, axis=0, dtype,
keepdims) is np.sum with axis 0 by default (the same result dtype: small
integers accumulate in the default integer, as ufunc.reduce does for add
and multiply); multiply.reduce np.prod, maximum/minimum.reduce np.max/
np.min, fmax/fmin.reduce np.nanmax/np.nanmin (NumPy defines those so),
logical_and/logical_or.reduce np.all/np.any. axis=None reduces all axes."""
from __future__ import annotations

import ast

import numpy as np

from . import array_calls

_AS = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
       np.fmax: np.nanmax, np.fmin: np.nanmin, np.logical_and: np.all,
       np.logical_or: np.any}


@array_calls.function(*(u.reduce for u in _AS))
def _ufunc_reduce(b, fn, node):
    ufunc = fn.__self__
    target = _AS[ufunc]
    if len(node.args) > 2:
        raise b.cx.err(node.args[2], f"np.{ufunc.__name__}.reduce: pass the arguments after "
                                     f"axis by keyword (dtype=..., keepdims=...)")
    if not node.args:
        raise b.cx.err(node, f"np.{ufunc.__name__}.reduce() needs an array")
    keywords = list(node.keywords)
    if len(node.args) < 2 and not any(k.arg == "axis" for k in keywords):
        zero = ast.copy_location(ast.Constant(0), node)
        keywords.append(ast.copy_location(ast.keyword(arg="axis", value=zero), node))
    call = ast.copy_location(ast.Call(node.func, list(node.args), keywords), node)
    return array_calls.handler_of(target)(b, target, call)
