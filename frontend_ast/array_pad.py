"""np.pad of NumPy-style array code with constant pad widths, as NumPy
computes it (numpy/lib/_arraypad_impl.py): a new array of the source's
dtype whose element i along each axis is, with j = i - before and n the
source's size:

- mode="constant": the source's element j where 0 <= j < n, else the
  constant (`constant_values`, default 0; one value, or (before, after)
  values per axis; cast to the dtype as NumPy's assignment casts);
- "edge": the element clamp(j, 0, n - 1);
- "wrap": the element j mod n;
- "symmetric": j mirrored with the edge repeated (period 2n);
- "reflect": j mirrored about the edge element (period 2n - 2; n = 1 gives
  the element itself).

The non-constant modes of an axis of size 0 with a nonzero width raise
NumPy's ValueError at call time. A corner takes the constant of the first
axis it lies outside in NumPy's order (the axes are padded one after the
other, each over the whole extent of the axes before it: the last axis
padded writes the corner last)."""
from __future__ import annotations

import ast

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from .array_args import operand_of
from .array_create import cond
from .array_shape import call_args, size_node
from .arrayexpr import ArrayExpr, size_is
from .result_order import chosen, over_choices
from .sum_order import memory_order
from .values import TupleVal, Val, const_val

_MODES = ("constant", "edge", "wrap", "symmetric", "reflect")


def _constant(b, node, what):
    """A constant (Python scalar) from the AST node, or a tuple of them."""
    v = b.ev(node)
    if isinstance(v, Val) and v.is_const and not v.ty.is_complex():
        return v.const
    if isinstance(v, TupleVal):
        return tuple(_const_item(b, x, node, what) for x in v.items)
    raise b.cx.err(node, f"{what} of np.pad must be a constant here",
                   hint="write the widths as integers, e.g. np.pad(a, ((1, 1), (2, 2)))")


def _const_item(b, x, node, what):
    if isinstance(x, Val) and x.is_const and not x.ty.is_complex():
        return x.const
    if isinstance(x, TupleVal):
        return tuple(_const_item(b, y, node, what) for y in x.items)
    raise b.cx.err(node, f"{what} of np.pad must be a constant here")


def _per_axis(b, value, ndim, node, what, is_width):
    """NumPy's broadcast of pad_width / constant_values to ((before, after),) * ndim."""
    try:
        arr = np.broadcast_to(np.asarray(value, dtype=object), (ndim, 2))
    except ValueError:
        raise b.cx.err(node, f"{what} of np.pad does not broadcast to ({ndim}, 2)") from None
    out = [tuple(arr[k]) for k in range(ndim)]
    if is_width:
        for pair in out:
            for w in pair:
                if not isinstance(w, (int, np.integer)) or isinstance(w, bool) or w < 0:
                    raise b.cx.err(node, "pad widths of np.pad must be integers >= 0 here",
                                   hint="index can't contain negative values (NumPy)")
        out = [(int(x), int(y)) for x, y in out]
    return out


class _NonEmpty:
    """Call-time check: a padded axis of a non-constant mode has elements."""

    def __init__(self, sizes, mode):
        self.sizes, self.mode = sizes, mode

    def __call__(self, env):
        for k, s in self.sizes:
            if s.static(env) == 0:
                raise ValueError(f"can't extend empty axis {k} using modes other than "
                                 f"'constant' or 'empty'")


@array_calls.function(np.pad)
def pad(b, fn, node):
    cx = b.cx
    got = call_args(b, node, "pad", ["array", "pad_width", "mode", "constant_values"], 2)
    a = operand_of(b, b.ev(got["array"]), got["array"])
    mode = "constant"
    if "mode" in got:
        m = got["mode"]
        if not (isinstance(m, ast.Constant) and m.value in _MODES):
            raise cx.err(m, f"mode of np.pad must be one of {', '.join(map(repr, _MODES))} "
                            f"here")
        mode = m.value
    if a.ty.is_complex() or a.ndim == 0:
        raise cx.err(node, "np.pad of a complex or 0-d array is not supported")
    widths = _per_axis(b, _constant(b, got["pad_width"], "pad_width"), a.ndim,
                       got["pad_width"], "pad_width", True)
    if "constant_values" in got:
        if mode != "constant":
            raise cx.err(got["constant_values"], f"constant_values of np.pad is for "
                                                 f"mode='constant' (NumPy: unsupported "
                                                 f"keyword for mode {mode!r})")
        values = _per_axis(b, _constant(b, got["constant_values"], "constant_values"),
                           a.ndim, got["constant_values"], "constant_values", False)
    else:
        values = [(0, 0)] * a.ndim
    cx.cur_node = node
    if mode != "constant":
        padded = [(k, a.shape[k]) for k in range(a.ndim) if widths[k] != (0, 0)]
        if not all(s.is_const and s.const > 0 for _, s in padded):
            cx.static_checks.append(_NonEmpty(padded, mode))
    shape = [ops.binary(cx, "+", a.shape[k], const_val(sum(widths[k])))
             for k in range(a.ndim)]
    fill = [tuple(_cast_fill(cx, v, a.ty) for v in pair) for pair in values]

    def elem(idx):
        cx.cur_node = node
        src = []
        for k in range(a.ndim):
            n = size_node(cx, a.shape[k])
            j = ir.Sub(idx[k], ir.index(widths[k][0]))
            src.append(_source_index(mode, j, n))
        value = a.elem(src)
        if mode != "constant":
            return value
        # the source is read only where it has elements (an empty source is all
        # constants; a read of it would be outside its buffer)
        some = [ir.GT(size_node(cx, s), ir.index(0)) for s in a.shape
                if not (s.is_const and s.const > 0)]
        if some:
            zero = fill[0][0]
            value = ops.select(cx, cond(ir.conjunction(some)), value, zero, lazy=True)
        # the last axis padded writes last: test the axes from the first on,
        # the later ones overriding
        for k in range(a.ndim):
            if widths[k] == (0, 0):
                continue
            n = size_node(cx, a.shape[k])
            j = ir.Sub(idx[k], ir.index(widths[k][0]))
            before, after = fill[k]
            value = ops.select(cx, cond(ir.LT(j, ir.index(0))), before,
                               ops.select(cx, cond(ir.GE(j, n)), after, value, lazy=False),
                               lazy=False)
        return value
    return ArrayExpr(shape, a.ty, elem, node, order=_pad_order(a))


def _pad_order(a: ArrayExpr):
    """NumPy's memory order of np.pad's result: Fortran order where the
    source is Fortran- and not C-contiguous (_pad_simple's `order`), else C
    (None); chosen as the source's where that is chosen at run time."""
    def fortran():
        order, merges = memory_order(a)
        flags = dict(zip(order, merges + (True,)))
        big = [k for k in order if not size_is(a.shape[k], 1)]
        if len(big) < 2 or big != sorted(big, reverse=True) or \
                not all(flags[k] for k in order[order.index(big[0]):order.index(big[-1])]):
            return None
        return tuple(reversed(range(a.ndim)))
    return over_choices(fortran, lambda c, yes, no: chosen(c.cond, yes, no, c.why, c.loc))


def _cast_fill(cx, v, ty) -> Val:
    """A constant fill value as NumPy's assignment into the padded array casts it."""
    try:
        with np.errstate(all="ignore"):
            c = np.array(v).astype(ty.dtype, casting="unsafe")[()]
    except (TypeError, ValueError) as e:
        raise cx.error(f"constant_values {v!r} of np.pad: {e}") from None
    return ops.cast_to(cx, const_val(c.item()), ty)


def _source_index(mode, j, n):
    """The source index of padded position j (relative to the source's
    start), clamped into [0, n - 1] so that every read is inside the source
    (the constant mode selects the fill outside)."""
    zero, one = ir.index(0), ir.index(1)
    last = ir.Sub(n, one)
    if mode in ("constant", "edge"):
        return ir.Max(ir.Min(j, last), zero)
    if mode == "wrap":
        return ir.Mod(j, ir.Max(n, one))            # IR Mod is Euclidean
    if mode == "symmetric":
        p = ir.Mod(j, ir.Max(ir.Mul(n, ir.index(2)), one))
        return ir.Max(ir.Min(ir.Select(ir.LT(p, n), p, ir.Sub(ir.Sub(ir.Mul(n, ir.index(2)),
                                                                       one), p)), last), zero)
    period = ir.Max(ir.Mul(last, ir.index(2)), one)          # reflect
    p = ir.Mod(j, period)
    return ir.Max(ir.Min(ir.Select(ir.LT(p, n), p, ir.Sub(period, p)), last), zero)
