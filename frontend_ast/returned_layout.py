"""Returned arrays in NumPy's memory layout: strides equal to NumPy's.

NumPy allocates the result of an element-wise operation, a reduction, a
copy with order='K' or a *_like array in its operands' memory order
(result_order.py; `a * 2.0` of a Fortran-ordered `a` is Fortran-ordered),
and a view of an array the function made (`z.T`, `z[1:, ::2]`) shares that
array's memory with its strides. Compiled outputs are C-contiguous buffers:
  - a new array whose NumPy order is not C is stored with its axes in that
    order (outermost in memory first: a C-contiguous buffer) and returned
    transposed back (`Transposed`): the transpose has NumPy's strides, and
    no element is copied twice (the array's own Func is computed in that
    order; an array the function wrote in place first is copied once);
  - a view of an array the function made, whose index map is affine with
    constant steps, is that array's output viewed at return with NumPy's
    strides (`LocalView`, arg_views.ArgView's map on the output buffer), so
    that two returned views of one array share its memory as in NumPy."""
from __future__ import annotations

from .arg_views import view_map
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr
from .values import Arr


class Transposed:
    """The array `base` (its axes in NumPy's memory order) returned as
    base.transpose(axes)."""

    def __init__(self, base, axes):
        self.base, self.axes = base, axes


class LocalView:
    """NumPy's view `view` (an ArgView's map) of the returned array `base`."""

    def __init__(self, base, view):
        self.base, self.view = base, view


def returned_layout(bld, value, name, node):
    """A Transposed or LocalView for a returned array value whose NumPy
    layout is not the C-contiguous one a plain output gives, else None."""
    if isinstance(value, ArrayExpr):
        if value.view is None:
            return _in_order(bld, value, value.order, name, node)
        arr = value.view[0]
        if not _own_plain(arr) or is_whole_view(value):
            return None
        m = view_map(bld, value)
        if m is None:
            return None
        return LocalView(returned_layout(bld, arr, name, node) or arr, m)
    if isinstance(value, Arr) and _own_plain(value):
        order = getattr(value, "memory_order", None)
        if order is None:
            return None
        # one copy per version of the array (`return z, z` is one object twice)
        cache = bld.__dict__.setdefault("_returned_in_order", {})
        key = (id(value), id(value.func))
        if key not in cache:
            cache[key] = (value, _in_order(bld, bld.array_code.view_of(value, node), order,
                                           name, node))
        return cache[key][1]
    return None


def _own_plain(arr) -> bool:
    """Whether arr is a real array the function made (not an argument, not
    one of several arrays chosen at run time, not a complex pair)."""
    return isinstance(arr, Arr) and arr.kind == "local" and arr.arg_name is None and \
        not getattr(arr, "part_of", None) and not getattr(arr, "alternatives", None) and \
        not arr.ty.is_complex() and type(arr) is Arr


def _in_order(bld, value: ArrayExpr, order, name, node):
    """value stored with its axes in `order` (outermost first), or None for
    C order or fewer than two axes."""
    nd = value.ndim
    if order is None or nd < 2 or tuple(order) == tuple(range(nd)) or value.ty.is_complex():
        return None
    order = tuple(order)

    def elem(j):
        return value.elem([j[order.index(k)] for k in range(nd)])
    stored = ArrayExpr([value.shape[k] for k in order], value.ty, elem, node,
                       readonly=value.readonly)
    base = bld.array_code.materialize(stored, name, node)
    return Transposed(base, tuple(order.index(k) for k in range(nd)))
