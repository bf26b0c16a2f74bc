"""Evaluation of one Expr tree under a set of variable bindings.

Values are NumPy arrays (all bound arrays of one evaluation broadcast against
each other) or NumPy scalars, always in the node's exact dtype (ops.py). Reads
of Funcs, input images and parameters are delegated to the `Realizer`
(funcs.py), which owns them.
"""
from __future__ import annotations

import numpy as np

from ..ir import nodes as N
from ..ir.flat_index import is_flat_index
from . import ops


class Context:
    """Bindings for one evaluation.

    `vars` maps variable names (pure Vars, RVars, let-bound names) to values;
    names not bound here are scalar parameters. `pre` maps id(node) to an
    already computed value of that node (the update evaluator precomputes the
    parts of an update that do not read the Func being updated).
    `self_name`/`self_read` route calls of the Func being updated to its
    current state. Shared subtrees are evaluated once per Context.
    """

    __slots__ = ("realizer", "vars", "pre", "self_name", "self_read", "memo", "mask")

    def __init__(self, realizer, vars, pre=None, self_name=None, self_read=None, mask=None):
        self.realizer = realizer
        self.vars = vars
        self.pre = pre if pre is not None else {}
        self.self_name = self_name
        self.self_read = self_read
        self.memo = {}
        self.mask = mask        # lanes that are really evaluated (lazy if_then_else), or None

    def masked(self, mask) -> "Context":
        """The same bindings, evaluating only the lanes where `mask` holds."""
        if self.mask is not None:
            mask = np.logical_and(self.mask, mask)
        return Context(self.realizer, self.vars, self.pre, self.self_name, self.self_read, mask)

    def ev(self, e):
        key = id(e)
        v = self.memo.get(key)
        if v is None:
            v = self.pre.get(key)
            if v is None:
                handler = _HANDLERS.get(type(e))
                if handler is None:
                    raise TypeError(f"reference evaluator cannot evaluate {type(e).__name__}")
                v = handler(self, e)
            self.memo[key] = v
        return v


def _const(ctx, e):
    return e.type.to_numpy().type(e.value)


def _variable(ctx, e):
    v = ctx.vars.get(e.name)
    if v is None:
        return ctx.realizer.param(e)
    dt = e.type.to_numpy()
    return v if v.dtype == dt else v.astype(dt)


def _binary(ctx, e):
    return ops.BINARY[type(e)](e.a.type, ctx.ev(e.a), ctx.ev(e.b))


def _cast(ctx, e):
    v = ctx.ev(e.value)
    return v if e.type == e.value.type else ops.cast(e.type, e.value.type, v)


def _not(ctx, e):
    return np.logical_not(ctx.ev(e.a))


def _bitnot(ctx, e):
    return np.invert(ctx.ev(e.a))


def _select(ctx, e):
    # Eager: both branches are evaluated, as in Halide.
    return np.where(ctx.ev(e.condition), ctx.ev(e.true_value), ctx.ev(e.false_value))


def _let(ctx, e):
    inner = Context(ctx.realizer, {**ctx.vars, e.name: ctx.ev(e.value)},
                    ctx.pre, ctx.self_name, ctx.self_read, ctx.mask)
    return inner.ev(e.body)


def _if_then_else(ctx, e):
    """Lazy select: each branch is evaluated only on the lanes that take it
    (reads in the other lanes are never checked)."""
    cond, a, b = e.args
    c = ctx.ev(cond)
    t = e.type.to_numpy()
    if np.ndim(c) == 0:
        return np.asarray(ctx.ev(a if c else b)).astype(t)[()]
    taken = ctx.masked(c)
    other = ctx.masked(np.logical_not(c))
    va = taken.ev(a) if np.any(taken.mask) else t.type(0)
    vb = other.ev(b) if np.any(other.mask) else t.type(0)
    return np.where(c, va, vb).astype(t)


def _masked_image_args(ctx, e, args):
    """Coordinates of an image read with the lanes outside ctx.mask moved
    to the first element, so only evaluated lanes are checked."""
    if ctx.mask is None:
        return args
    return [np.where(ctx.mask, a, 0) for a in args]


def _call(ctx, e):
    if e.call_type == N.INTRINSIC:
        if e.name == "if_then_else":
            return _if_then_else(ctx, e)
        if is_flat_index(e):
            return ctx.ev(e.args[0])
        return ops.intrinsic(e, [ctx.ev(a) for a in e.args])
    if e.call_type == N.FUNC and e.name == ctx.self_name:
        return ctx.self_read(ctx, e)
    args = [ctx.ev(a) for a in e.args]
    if e.call_type == N.IMAGE:
        return ctx.realizer.image(e, _masked_image_args(ctx, e, args),
                                  flat=any(is_flat_index(a) for a in e.args))
    values = ctx.realizer.func_at(e.name, args)
    if e.value_index >= len(values):
        raise IndexError(f"{e.name} has {len(values)} values, call reads [{e.value_index}]")
    v = values[e.value_index]
    if v.dtype != e.type.to_numpy():
        raise TypeError(f"call {e.name}(...)[{e.value_index}] has type {e.type}, "
                        f"but the Func's value is {v.dtype}")
    return v


_HANDLERS = {
    N.Const: _const, N.Variable: _variable, N.Cast: _cast, N.Not: _not,
    N.BitNot: _bitnot, N.Select: _select, N.Let: _let, N.Call: _call,
}
_HANDLERS.update({cls: _binary for cls in ops.BINARY})
