"""ufunc.outer, np.divmod and np.diagonal / a.diagonal() of NumPy-style
array code.

- `np.subtract.outer(a, b)` (any two-argument ufunc that compiles element by
  element): the ufunc of a, given b.ndim new trailing axes, and b, so the
  result's shape is a.shape + b.shape, as NumPy's.
- `np.divmod(x, y)`: the tuple (x // y, x % y) by NumPy's floor_divide and
  remainder (the same values and dtypes).
- `np.diagonal(a, offset, axis1, axis2)` and `a.diagonal(...)`: the diagonal
  as a new array value (other axes first, the diagonal last). NumPy returns a
  read-only view: assigning into it is refused when compiling (NumPy raises
  ValueError when it runs)."""
from __future__ import annotations

import ast

import numpy as np

from . import array_calls, calls
from .array_args import operand_of, parse_args
from .array_trace import constant_int, diagonal, diagonal_axes
from .arrayexpr import ArrayExpr, lift
from .values import TupleVal, const_val

_BINARY = [f for f, (nargs, _) in calls.ELEMENTWISE.items()
           if nargs == 2 and isinstance(f, np.ufunc) and f.nin == 2]


@array_calls.function(*(f.outer for f in _BINARY))
def _outer(b, fn, node):
    ufunc = fn.__self__
    name = f"np.{ufunc.__name__}.outer"
    if len(node.args) != 2 or node.keywords or \
            any(isinstance(a, ast.Starred) for a in node.args):
        raise b.cx.err(node, f"{name} takes two positional arguments here (no keywords)")
    x, y = (_array(b, a, name) for a in node.args)
    wide = ArrayExpr(list(x.shape) + [const_val(1)] * y.ndim, x.ty,
                     lambda idx: x.elem(idx[:x.ndim]), node.args[0])
    _, impl = calls.ELEMENTWISE[ufunc]
    b.cx.cur_node = node
    return lift(b.cx, lambda cx, *v: impl(cx, ufunc, *v), [wide, y], node, ufunc=True)


def _array(b, arg, name) -> ArrayExpr:
    v = operand_of(b, b.ev(arg), arg)
    if not isinstance(v, ArrayExpr):
        raise b.cx.err(arg, f"{name} of a scalar is not supported here", hint="pass arrays")
    return v


@array_calls.function(np.divmod)
def _divmod(b, fn, node):
    if len(node.args) != 2 or node.keywords:
        raise b.cx.err(node, "np.divmod takes two positional arguments here (no keywords)")
    return TupleVal([array_calls.handler_of(f)(b, f, node)
                     for f in (np.floor_divide, np.remainder)])


def _diagonal(b, obj, node):
    got = parse_args(b, "diagonal", obj, node, ("offset", "axis1", "axis2"))
    a = operand_of(b, got["a"][0], got["a"][1])
    if not isinstance(a, ArrayExpr) or a.ndim < 2:
        raise b.cx.err(node, "diag requires an array of at least two dimensions (NumPy's "
                             "ValueError)")
    axes = diagonal_axes(b, got, a, node, "diagonal")
    d = diagonal(b, a, constant_int(b, got, "offset", 0, "diagonal"), axes[0], axes[1], node)
    d.readonly = "the diagonal of an array is a read-only view"
    return d


@array_calls.function(np.diagonal)
def _diagonal_function(b, fn, node):
    return _diagonal(b, None, node)


@array_calls.method("diagonal")
def _diagonal_method(b, obj, name, node):
    return _diagonal(b, obj, node)
