"""A returned view of an argument array is NumPy's view of the caller's array.

`return a[1:, ::2]`, `return a.T`, `return a[:, None]` give in Python a view
that shares the argument's memory (writing into the result writes into the
argument). `arg_view` recognizes an array value whose index map into an
argument is affine in the indices with constant coefficients (basic slices,
transposes, new axes): the strides are those coefficients, the first
element's index is an expression of call-time values (shapes, scalar
arguments), and `ArgView.build` makes the view of the caller's array after
each call (after a written argument was copied back). The same map views an
array the function returns (`view_map`; returned_layout.py: views of local
arrays and of reshapes). Any other array value (a clamp, a gather) is a new
array."""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from pyhalide.ir.ops import find_calls, free_vars

from . import check_order
from .affine_maps import affine, probes
from .array_shape import size_fn
from .arrayexpr import ArrayExpr


class ArgView:
    """A view of argument `name`: element i is base[offsets + coefs @ i].

    shape    [fn(env) -> int] the view's sizes
    offsets  [Expr] the first element's index per axis of the argument
    coefs    [[int]] coefs[j][k]: the step along the argument's axis j per
             step along the view's axis k
    var_fns  {variable name -> (fn(env), NumPy dtype)} the call-time values
             the offsets read, in their IR types
    """

    def __init__(self, name, shape, offsets, coefs, var_fns, checks=None):
        self.name, self.shape, self.offsets = name, shape, offsets
        self.coefs, self.var_fns = coefs, var_fns
        self.checks = checks or {}      # check image name -> CheckImage the offsets read
        self._starts = {}         # the values of var_fns -> the first element's index

    def build(self, base: np.ndarray, env) -> np.ndarray:
        shape = tuple([int(f(env)) for f in self.shape])
        strides = tuple([sum([row[k] * st for row, st in zip(self.coefs, base.strides)])
                         for k in range(len(shape))])
        start = [0] * base.ndim if 0 in shape else self._start(env)
        if base.flags.c_contiguous or base.flags.f_contiguous:
            # (a view of base's own buffer: it checks the view stays inside it)
            offset = sum([s * st for s, st in zip(start, base.strides)])
            return np.ndarray(shape, base.dtype, base, offset, strides)
        first = base[tuple(slice(s, None) for s in start)]
        return np.lib.stride_tricks.as_strided(first, shape, strides, subok=False,
                                               writeable=base.flags.writeable)

    def _start(self, env) -> list:
        """The first element's index along each of the array's axes."""
        values = {n: dt.type(f(env)) for n, (f, dt) in self.var_fns.items()}
        key = tuple(values.values())
        start = self._starts.get(key)
        if start is None:
            # (the reference evaluator, imported when a view is first built)
            from pyhalide.reference.exprs import Context
            ctx = Context(_CheckReads(self.checks, env), values)
            start = [int(ctx.ev(e)) for e in self.offsets]
            if len(self._starts) < 64:
                self._starts[key] = start
        return start


class _CheckReads:
    """The reads of run-time check images in a view's offsets (a call-time value
    that may raise, context.deferred_static): 0 where the check passes; where it
    fails, what computing the value raises, as Specialization.translate does."""

    def __init__(self, checks: dict, env):
        self.checks, self.env = checks, env

    def image(self, call, args, flat=False):
        index = np.asarray(args[0])
        if not index.any():
            return np.zeros(index.shape, np.uint8)
        c = self.checks.get(call.name)
        if c is not None and callable(c.message):
            try:
                c.message(self.env)
            except Exception as failure:
                raise check_order.tag(failure, c.loc) from None
        raise ir.CompileError(f"the view's start reads the run-time check {call.name}, "
                              f"which failed without its exception")


def _call_time_values(cx) -> dict:
    """Variable name -> fn(env) for every IR variable whose value is known
    when the function is called (argument shapes, scalar arguments)."""
    out = {}
    for sym, node in cx.sym_nodes.items():
        fn = cx.sym_static.get(sym)
        if fn is not None and isinstance(node, ir.Variable):
            out[node.name] = fn
    for sp in cx.static_params:
        out[sp.param.node.name] = sp.fn
    return out


def arg_view(bld, value) -> ArgView | None:
    """The argument view `value` is, or None when it is not one."""
    if not isinstance(value, ArrayExpr) or value.view is None or value.ndim == 0 \
            or value.readonly:
        return None
    arr = value.view[0]
    name = arr.arg_name
    if name is None or getattr(arr, "part_of", None) or getattr(arr, "alternatives", None) \
            or name not in bld.inputs:
        return None
    return view_map(bld, value, name)


def view_map(bld, value, name=None) -> ArgView | None:
    """The view `value` is of its array (`name`: the argument's name; None
    for an array the function makes) as an ArgView, or None when its index
    map is not affine with constant steps or its offsets are not known at
    call time."""
    arr, to_base = value.view
    if value.ndim == 0 or value.readonly or \
            arr.ty.dtype != value.ty.dtype:
        return None
    shape = [size_fn(s) for s in value.shape]
    if any(f is None for f in shape):
        return None
    known = _call_time_values(bld.cx)
    offsets, coefs = [], []
    for e in to_base(probes(value.ndim)):
        form = affine(e, value.ndim)
        if form is None:
            return None              # not affine in the view's indices
        row, off = form
        if any(n not in known for n in free_vars(off)):
            return None
        offsets.append(off)
        coefs.append(row)
    used = {n: v for off in offsets for n, v in free_vars(off).items()}
    checks = {c.name: bld.cx.check_named[c.name] for c in find_calls(offsets)
              if c.call_type == ir.IMAGE and c.name in bld.cx.check_named}
    return ArgView(name, shape, offsets, coefs,
                   {n: (known[n], v.type.to_numpy()) for n, v in used.items()}, checks)
