"""np.einsum of NumPy-style array code: a constant subscripts string without
'...' ('ij,jk->ik', 'i,i', 'i,j->ij', 'ii', 'ij->ji', 'ij->i', 'ii->i',
...) over any number of operands.

As NumPy's c_einsum, the operands are cast to their result_type (no
promotion of small integers: int32 stays int32) and each term is their
product in that order; labels missing from the output (implicit output:
the labels that occur once, sorted) are summed. Without summed labels
(transpositions, diagonals, element-wise and outer products) the result is
NumPy's exactly. A sum is one Func with an update over an RDom of the summed
labels (array_reduce.fold), sequential: integers equal NumPy's (wrapping as
its sums do); float sums differ from NumPy's unrolled sum-of-products
kernels by at most (n - 1)·eps·Σ|terms| (n the number of terms of one sum,
eps the dtype's machine epsilon), as np.dot here does. Sizes of one label
that differ raise ValueError at call time (also where one of them is 1,
which NumPy broadcasts)."""
from __future__ import annotations

import ast

import numpy as np

from . import array_calls, ops
from .array_args import numpy_ty, operand_of
from .array_reduce import fold
from .arrayexpr import ArrayExpr
from .values import Val

_LETTERS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _parse(cx, text, ndims, node):
    """([labels of each operand], output labels) of a subscripts string."""
    if "." in text:
        raise cx.err(node, "np.einsum with '...' is not supported",
                     hint="name every axis with a letter")
    text = text.replace(" ", "")
    ins, arrow, out = text.partition("->")
    terms = ins.split(",")
    if len(terms) != len(ndims):
        raise cx.err(node, f"np.einsum: {len(terms)} operand subscripts for {len(ndims)} "
                           f"operands (NumPy's ValueError)")
    for t, nd in zip(terms, ndims):
        if any(ch not in _LETTERS for ch in t):
            raise cx.err(node, f"np.einsum: invalid subscript in {t!r}")
        if len(t) != nd:
            raise cx.err(node, f"np.einsum: {t!r} names {len(t)} axes of an operand with "
                               f"{nd} (NumPy's ValueError)")
    seen = "".join(terms)
    if arrow:
        if any(ch not in _LETTERS for ch in out) or len(set(out)) != len(out) or \
                any(ch not in seen for ch in out):
            raise cx.err(node, f"np.einsum: invalid output subscripts {out!r}")
    else:
        out = "".join(sorted(ch for ch in set(seen) if seen.count(ch) == 1))
    return terms, out


@array_calls.function(np.einsum)
def _einsum(b, fn, node):
    cx, ac = b.cx, b.array_code
    for k in node.keywords:
        v = b.ev(k.value)
        if k.arg == "optimize" and isinstance(v, Val) and v.is_const and v.const is False:
            continue
        raise cx.err(k, f"keyword {k.arg}= of np.einsum is not supported",
                     hint="assign the result instead" if k.arg == "out" else "")
    if not node.args:
        raise cx.err(node, "np.einsum needs a subscripts string")
    first = node.args[0]
    text = first.value if isinstance(first, ast.Constant) else b.ev(first)
    if not isinstance(text, str):
        raise cx.err(node.args[0], "the subscripts of np.einsum must be a constant string",
                     hint="write them as a literal: np.einsum('ij,jk->ik', a, b)")
    ops_ = [operand_of(b, b.ev(x), x) for x in node.args[1:]]
    if not ops_:
        raise cx.err(node, "np.einsum needs at least one operand")
    if any(o.ty.is_complex() for o in ops_):
        raise cx.err(node, "np.einsum of complex arrays is not supported yet")
    terms, out = _parse(cx, text, [o.ndim for o in ops_], node)
    samples = [np.ones((1,) * o.ndim, o.ty.dtype) for o in ops_]
    rt = numpy_ty(b, lambda: np.einsum(text, *samples).dtype, node)
    sizes = {}
    for t, o in zip(terms, ops_):
        for ch, s in zip(t, o.shape):
            sizes.setdefault(ch, []).append(s)
    _check_sizes(cx, sizes, node)
    summed = [ch for ch in dict.fromkeys("".join(terms)) if ch not in out]
    axes = list(out) + summed

    def term(idx):
        at = dict(zip(axes, idx))
        cx.cur_node = node
        v = None
        for t, o in zip(terms, ops_):
            x = ops.cast_to(cx, o.elem([at[ch] for ch in t]), rt)
            v = x if v is None else ops.binary(cx, "*", v, x)
        return v
    whole = ArrayExpr([sizes[ch][0] for ch in axes], rt, term, node)
    if not summed:
        return whole.elem([]) if not out else whole
    r = fold(ac, whole, tuple(range(len(out), len(axes))), rt, "+", 0, node, "einsum")
    return r if out else r.elem([])


def _check_sizes(cx, sizes, node):
    """ValueError at call time where the sizes of one label differ."""
    pairs = [(ch, s[0], t) for ch, s in sizes.items() for t in s[1:]
             if not (s[0] is t or (s[0].is_const and t.is_const and s[0].const == t.const))]
    for ch, s, t in pairs:
        if s.is_const and t.is_const:
            raise cx.err(node, f"np.einsum: the sizes of axis {ch!r} differ ({s.const} and "
                               f"{t.const})")
    if not pairs:
        return
    loc = cx.smap.loc(node)

    def check(env):
        for ch, s, t in pairs:
            if s.static(env) != t.static(env):
                raise ValueError(f"einsum: the sizes of axis {ch!r} differ "
                                 f"({s.static(env)} and {t.static(env)})" +
                                 (f" ({loc.file}:{loc.line})" if loc is not None else ""))
    cx.static_checks.append(check)

