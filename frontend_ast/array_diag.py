"""np.eye, np.identity, np.diag, np.triu and np.tril of NumPy-style array
code, as NumPy defines them (numpy/lib/_twodim_base_impl.py):

- np.eye(N, M=None, k=0, dtype=float) is 1 where j - i == k, else 0;
  np.identity(n, dtype=float) is np.eye(n);
- np.diag(v, k=0) of a 1-D v is the (n + |k|)-square array with v on its
  k-th diagonal (v's dtype), of a 2-D v its k-th diagonal;
- np.triu(m, k=0) / np.tril(m, k=0) are m with the elements below / above
  the k-th diagonal of its last two axes zero (m's dtype)."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from .array_args import operand_of
from .array_create import cond, dtype_arg, ty_of, zero
from .array_shape import call_args, size_val
from .array_trace import diagonal
from .arrayexpr import ArrayExpr
from .values import Val, const_val


def _offset(b, a, name="k") -> int:
    if name not in a:
        return 0
    v = b.ev(a[name])
    if isinstance(v, Val) and v.is_const and isinstance(v.const, (int, np.integer)) and \
            not isinstance(v.const, (bool, np.bool_)):
        return int(v.const)
    raise b.cx.err(a[name], f"{name} must be a constant integer here")


def _on(i, j, k, op):
    """The test `j - i op k` of index nodes (op "==", ">=" or "<=")."""
    d = ir.Sub(j, i)
    kk = ir.index(k)
    return {"==": ir.EQ, ">=": ir.GE, "<=": ir.LE}[op](d, kk)


@array_calls.function(np.eye, np.identity)
def _eye(b, fn, node):
    cx = b.cx
    if fn is np.eye:
        a = call_args(b, node, "eye", ["N", "M", "k", "dtype", "order"], 1)
    else:
        a = call_args(b, node, "identity", ["n", "dtype"], 1)
        a["N"] = a.pop("n")
    if "order" in a and b.ev(a["order"]) != "C":
        raise cx.err(a["order"], "only order='C' is supported")
    n = size_val(cx, b.ev(a["N"]), a["N"])
    m = n
    if "M" in a:
        mv = b.ev(a["M"])
        if not (isinstance(mv, Val) and mv.is_const and mv.const is None):
            m = size_val(cx, mv, a["M"])
    k = _offset(b, a)
    dt = dtype_arg(b, a["dtype"]) if "dtype" in a else np.dtype(np.float64)
    ty = ty_of(b, dt if dt is not None else np.dtype(np.float64), node)
    one, nil = ops.cast_to(cx, const_val(1), ty), zero(ty)

    def elem(idx):
        cx.cur_node = node
        return ops.select(cx, cond(_on(idx[0], idx[1], k, "==")), one, nil, lazy=False)
    for s, where in ((n, a["N"]), (m, a.get("M"))):
        if s.is_const and s.const < 0:
            raise cx.err(where, "negative dimensions are not allowed (NumPy's ValueError)")
    return ArrayExpr([n, m], ty, elem, node)


@array_calls.function(np.diag)
def _diag(b, fn, node):
    cx = b.cx
    a = call_args(b, node, "diag", ["v", "k"], 1)
    v = operand_of(b, b.ev(a["v"]), a["v"])
    k = _offset(b, a)
    if v.ndim == 2:
        d = diagonal(b, v, k, 0, 1, node)
        d.readonly = "np.diag of a 2-D array is a read-only view of its diagonal"
        return d
    if v.ndim != 1:
        raise cx.err(node, "Input must be 1- or 2-d. (NumPy's ValueError)")
    size = ops.binary(cx, "+", v.shape[0], const_val(abs(k)))
    last = ir.Max(ir.Sub(ops.cast(ir.INDEX, ops.node_of(cx, v.shape[0])), ir.index(1)),
                  ir.index(0))
    nil = zero(v.ty)

    def elem(idx):
        i, j = idx
        cx.cur_node = node
        at = ir.Max(ir.Min(i if k >= 0 else j, last), ir.index(0))
        return ops.select(cx, cond(_on(i, j, k, "==")), v.elem([at]), nil, lazy=False)
    return ArrayExpr([size, size], v.ty, elem, node)


@array_calls.function(np.triu, np.tril)
def _tri(b, fn, node):
    cx = b.cx
    name = fn.__name__
    a = call_args(b, node, name, ["m", "k"], 1)
    m = operand_of(b, b.ev(a["m"]), a["m"])
    if m.ndim < 2:
        raise cx.err(node, f"np.{name} of an array of fewer than 2 dimensions is not "
                           f"supported", hint="pass a 2-D array")
    k = _offset(b, a)
    nil = zero(m.ty)
    op = ">=" if name == "triu" else "<="

    def elem(idx):
        cx.cur_node = node
        keep = cond(_on(idx[-2], idx[-1], k, op))
        return ops.select(cx, keep, m.elem(idx), nil, lazy=False)
    return ArrayExpr(list(m.shape), m.ty, elem, node)
