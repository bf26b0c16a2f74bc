"""np.convolve and np.correlate of 1-D arrays in NumPy-style array code, as
numpy/_core/numeric.py and multiarray's _pyarray_correlate compute them.

The full correlation of a (n1 elements) and v (n2) is
    f[k] = sum over j of a[k + j - (n2 - 1)] * v[j], k in [0, n1 + n2 - 1),
the terms with a's index outside [0, n1) left out. mode 'full' (2) is f;
'valid' (0) is f[lo - 1 :][: hi - lo + 1] and 'same' (1) f[s:][: hi] with lo,
hi the smaller and larger length and s = (lo - 1) - lo // 2, except that
np.correlate with n1 < n2 computes correlate(v, a) and reverses it, which
for 'same' is s = lo // 2. np.convolve(a, v) is the correlation with v
reversed (NumPy swaps a and v when v is longer, which gives the same
values). The result dtype is the two arrays' common dtype (products and
sums wrap in it for integers); bool and complex arrays are refused.

Each output element is one sum over j in order (an update over an RDom).
NumPy's dot loop uses BLAS for float32/float64, which adds in its own order:
float results are within (n2 - 1) * eps * sum |terms| of NumPy's (integers
are exact)."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from . import types as T
from .array_reduce import fold
from .array_shape import call_args, check_at_call
from .arrayexpr import ArrayExpr
from .call_time_reach import run_time_gated
from .values import Val, const_val

_MODES = {"valid": 0, "same": 1, "full": 2, 0: 0, 1: 1, 2: 2}


def _mode(b, a, default):
    if "mode" not in a:
        return default
    v = b.ev(a["mode"])
    key = v.const if isinstance(v, Val) and v.is_const else v
    if key not in _MODES:
        raise b.cx.err(a["mode"], "mode must be a constant: 'valid', 'same' or 'full'")
    return _MODES[key]


def _vector(b, node, what):
    v = b.array_code.as_array(b.ev(node), node)
    if v is None:
        raise b.cx.err(node, f"np.{what} needs arrays")
    if v.ndim != 1:
        raise b.cx.err(node, f"np.{what} of a {v.ndim}-d array is not supported "
                             f"(NumPy: object too deep / ValueError)",
                       hint="pass 1-D arrays")
    if v.ty.is_bool() or v.ty.is_complex():
        raise b.cx.err(node, f"np.{what} of {v.ty.describe()} arrays is not supported",
                       hint="convert first: a.astype(np.float64)")
    return v


def _correlation(b, x, v, mode, reverse_v, inverted_same, node, name, lazy=False):
    """`lazy`: an operand may be empty where the result is computed (its
    check made at run time, _nonempty): a's elements are read only where a
    has one, and the length is at least 0."""
    cx, ac = b.cx, b.array_code
    rt = T.result_type(np.add, x.ty, v.ty) if x.ty != v.ty else x.ty
    n1v, n2v = x.shape[0], v.shape[0]
    n1 = ops.cast(ir.INDEX, ops.node_of(cx, n1v))
    n2 = ops.cast(ir.INDEX, ops.node_of(cx, n2v))
    one = ir.index(1)
    lo = ir.Min(n1, n2)
    shorter = ops.compare(cx, "<", n1v, n2v)
    lo_v = ops.select(cx, shorter, n1v, n2v)
    hi_v = ops.select(cx, shorter, n2v, n1v)
    if mode == 2:
        length = ops.binary(cx, "-", ops.binary(cx, "+", n1v, n2v), const_val(1))
        s = ir.index(0)
    elif mode == 0:
        length = ops.binary(cx, "+", ops.binary(cx, "-", hi_v, lo_v), const_val(1))
        s = ir.Sub(lo, one)
    else:
        length = hi_v
        s = ir.Sub(ir.Sub(lo, one), ir.Div(lo, ir.index(2)))
        if inverted_same:
            s = ir.Select(ir.LT(n1, n2), ir.Div(lo, ir.index(2)), s)
    if lazy:
        length = ops.select(cx, ops.compare(cx, "<", length, const_val(0)), const_val(0), length)

    def term(i):
        k, j = i
        cx.cur_node = node
        idx = ir.Sub(ir.Add(ir.Add(k, s), j), ir.Sub(n2, one))
        ok = ir.And(ir.LE(ir.index(0), idx), ir.LT(idx, n1))
        xa = ops.cast_to(cx, x.elem([ir.Max(ir.Min(idx, ir.Sub(n1, one)), ir.index(0))]), rt)
        if lazy:
            xn = ops.node_of(cx, xa)
            xa = Val(ir.lazy_select(ir.LT(ir.index(0), n1), xn, ir.Const(xn.type, 0)), rt)
        vj = ir.Sub(ir.Sub(n2, one), j) if reverse_v else j
        p = ops.binary(cx, "*", xa, ops.cast_to(cx, v.elem([vj]), rt))
        pn = ops.node_of(cx, p)
        return Val(ir.Select(ok, pn, ir.Const(pn.type, 0)), rt)
    terms = ArrayExpr([length, n2v], rt, term, node)
    return fold(ac, terms, (1,), rt, "+", 0, node, name)


def _nonempty(b, node, sizes, messages) -> bool:
    """NumPy's ValueError where an operand is empty, the first operand's
    first; True where it is checked at run time where the statement runs
    (call_time_reach.run_time_gated: under an `if` of data), so that the
    operands are read only where they have elements (_correlation's lazy)."""
    cx = b.cx
    if run_time_gated(cx):
        zero = const_val(0)
        first = cx.compare("<", zero, sizes[0])
        cx.run_check(node, first, "ValueError", messages[0], 0)
        cx.run_check(node, cx.logical_or(cx.compare("==", zero, sizes[0]),
                                         cx.compare("<", zero, sizes[1])), "ValueError",
                     messages[1], 1)
        return True

    def bad(env):
        for s, msg in zip(sizes, messages):
            if s.static(env) == 0:
                return ValueError, msg
        return None
    check_at_call(cx, node, bad)
    return False


@array_calls.function(np.convolve)
def _convolve(b, fn, node):
    a = call_args(b, node, "convolve", ["a", "v", "mode"], 2)
    x, v = _vector(b, a["a"], "convolve"), _vector(b, a["v"], "convolve")
    mode = _mode(b, a, 2)
    lazy = _nonempty(b, node, [x.shape[0], v.shape[0]], ["a cannot be empty",
                                                         "v cannot be empty"])
    return _correlation(b, x, v, mode, True, False, node, "convolve", lazy)


@array_calls.function(np.correlate)
def _correlate(b, fn, node):
    a = call_args(b, node, "correlate", ["a", "v", "mode"], 2)
    x, v = _vector(b, a["a"], "correlate"), _vector(b, a["v"], "correlate")
    mode = _mode(b, a, 0)
    lazy = _nonempty(b, node, [x.shape[0], v.shape[0]], ["first array argument cannot be empty",
                                                         "second array argument cannot be empty"])
    return _correlation(b, x, v, mode, False, True, node, "correlate", lazy)
