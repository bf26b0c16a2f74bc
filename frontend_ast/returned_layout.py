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
    that two returned views of one array share its memory as in NumPy;
  - an array whose NumPy order is chosen when the function runs
    (result_order.OrderChoice) is computed in C order and returned as one of
    several alternatives by the choice's conditions (a union, as
    Arr.alternatives): itself, or a copy in the chosen order (`Relayout`)."""
from __future__ import annotations

import threading
import weakref

import numpy as np

from pyhalide import ir

from .arg_views import view_map
from .array_complex import ComplexArr
from .array_index import Indexed
from .array_shape import returned_reshape
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr
from .result_order import OrderChoice, Unresolved
from .types import PY_BOOL
from .values import Arr, Val


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
        got = _view_of_made(bld, value, name, node)
        if got is not None:
            return got
        if value.view is None:
            return _in_order(bld, value, value.order, name, node)
        arr = value.view[0]
        if not (_own_plain(arr) or _chosen_local(arr)) or is_whole_view(value):
            return None
        m = view_map(bld, value)
        if m is None:
            return None
        return LocalView(returned_layout(bld, arr, name, node) or arr, m)
    if isinstance(value, ComplexArr) and value.kind == "local" and value.arg_name is None:
        order = getattr(value, "memory_order", None)
        if isinstance(order, tuple) and value.ndim >= 2 and order != tuple(range(value.ndim)):
            return LocalView(value, Relayout(order))    # (its parts assembled, then copied)
        return None
    if isinstance(value, Arr) and type(value) is Arr and getattr(value, "alternatives", None):
        return _each_alternative(bld, value, name, node)
    if isinstance(value, Arr) and _own_plain(value):
        order = getattr(value, "memory_order", None)
        if order is None:
            return None
        if isinstance(order, OrderChoice):
            return _chosen_layout(bld, value, order)
        # one copy per version of the array (`return z, z` is one object twice)
        cache = bld.__dict__.setdefault("_returned_in_order", {})
        key = (id(value), id(value.func))
        if key not in cache:
            cache[key] = (value, _in_order(bld, bld.array_code.view_of(value, node), order,
                                           name, node))
        return cache[key][1]
    return None


def reshaped_once(bld, value: ArrayExpr):
    """returned_reshape(value), one object per reshape value (a reshape and
    views of it returned together are views of one array, as in NumPy,
    where its reshape copies too)."""
    cache = bld.__dict__.setdefault("_returned_reshapes", {})
    if id(value) not in cache:
        cache[id(value)] = (value, returned_reshape(value))
    return cache[id(value)][1]


def _view_of_made(bld, value: ArrayExpr, name, node):
    """A LocalView when value is a view (slices, integer indices, new axes,
    transposes) of a reshape view of a whole array (`a.reshape(3, 4)[1:]`:
    of array_shape.Reshaped, NumPy's own reshape at return, a view or a copy
    as NumPy's) or of a new array (`(a * 2.0)[::2]`, `(a + b).T`: of that
    array, stored whole in NumPy's order), else None."""
    maps, x = [], value
    while getattr(x, "reshape_of", None) is None:
        if isinstance(x, Indexed) and x.injective:
            maps.append(lambda idx, x=x: x.pick(idx)[0])
            x = x.src
        elif getattr(x, "derived_from", None) is not None:
            x, m = x.derived_from
            maps.append(m)
        elif x.view is None and type(x) is ArrayExpr and maps and not x.ty.is_complex():
            break                               # a new array
        else:
            return None
    if not maps:
        return None

    def to_made(idx):
        for m in maps:
            idx = m(idx)
        return idx
    m = view_map(bld, ArrayExpr(value.shape, value.ty, None, value.node, view=(x, to_made)))
    if m is None:
        return None
    if getattr(x, "reshape_of", None) is not None:
        base = reshaped_once(bld, x)
    else:
        base = _in_order(bld, x, x.order, name, node) or \
            bld.array_code.materialize(x, name, node)
    return LocalView(base, m) if base is not None else None


def _chosen_local(arr) -> bool:
    """Whether arr is one of several real arrays chosen when the function
    runs (Arr.alternatives: a view of it is a view of the chosen one)."""
    return type(arr) is Arr and arr.kind == "local" and arr.arg_name is None and \
        bool(getattr(arr, "alternatives", None)) and not arr.ty.is_complex()


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
    if isinstance(order, OrderChoice):
        return returned_layout(bld, bld.array_code.materialize(value, name, node), name, node)
    if order is None or nd < 2 or tuple(order) == tuple(range(nd)) or value.ty.is_complex():
        return None
    order = tuple(order)

    def elem(j):
        return value.elem([j[order.index(k)] for k in range(nd)])
    stored = ArrayExpr([value.shape[k] for k in order], value.ty, elem, node,
                       readonly=value.readonly)
    base = bld.array_code.materialize(stored, name, node)
    return Transposed(base, tuple(order.index(k) for k in range(nd)))


def _each_alternative(bld, arr, name, node):
    """An array standing for arr (one of several arrays chosen when the
    function runs: Arr.alternatives) whose alternatives are returned in
    their NumPy layouts; None where each already is."""
    cache = bld.__dict__.setdefault("_returned_alternatives", {})
    key = (id(arr), id(arr.func))
    if key in cache:
        return cache[key][1]
    alts, changed = [], False
    for c, a in arr.alternatives:
        if a is None:               # arr itself (carried_rotation.py): its own layout
            arr.alternatives, saved = None, arr.alternatives
            try:
                got = returned_layout(bld, arr, name, node)
            finally:
                arr.alternatives = saved
        else:
            got = returned_layout(bld, a, name, node)
        changed |= got is not None
        alts.append((c, got if got is not None else a))
    out = None
    if changed:
        out = _standing_for(arr, alts)
    cache[key] = (arr, out)
    return out


def _standing_for(arr, alts):
    """A new Arr with arr's values (its Func) and `alts` as its
    alternatives (None: that array)."""
    out = Arr(arr.name, arr.ty, arr.shape, "local", arr.loc)
    out.func, out.defined, out.versions = arr.func, True, [arr.func]
    out.writes_refused = arr.writes_refused
    out.alternatives = alts
    return out


def _chosen_layout(bld, arr, choice):
    """An array standing for arr whose alternatives (Arr.alternatives,
    specialize.py's union) are arr in each order `choice` stands for, under
    its condition (arr's own C-ordered output, or a Relayout copy of it)."""
    cache = bld.__dict__.setdefault("_returned_chosen", {})
    key = (id(arr), id(arr.func))
    if key in cache:
        return cache[key][1]
    nd = arr.ndim
    alts = []
    for cond, order in _leaves(choice, None):
        if order is None or nd < 2 or tuple(order) == tuple(range(nd)):
            alts.append((cond, None))
        else:
            alts.append((cond, LocalView(arr, Relayout(tuple(order)))))
    alts[-1] = (None, alts[-1][1])
    out = _standing_for(arr, [(c, arr if a is None else a) for c, a in alts])
    cache[key] = (arr, out)
    return out


def _leaves(order, cond):
    """[(condition Val or None, order)] of each order `order` stands for."""
    if not isinstance(order, OrderChoice):
        return [(cond, order)]
    if order.cond is None:
        raise Unresolved(order)
    c = order.cond.node
    yes = c if cond is None else ir.And(cond.node, c)
    no = ir.Not(c) if cond is None else ir.And(cond.node, ir.Not(c))
    return _leaves(order.yes, Val(yes, PY_BOOL)) + _leaves(order.no, Val(no, PY_BOOL))


class Relayout:
    """A copy of a returned C-ordered array with its axes `order`
    (outermost first) in memory: NumPy's strides for that order; the same
    copy for the same array (one object when returned twice)."""

    def __init__(self, order):
        self.order = order
        self.back = tuple(order.index(k) for k in range(len(order)))
        self.last = None

    def build(self, arr, env):
        if self.last is not None:
            src, out = self.last[0](), self.last[1]()
            if src is arr and out is not None:
                return out
        src = arr.transpose(self.order)
        out = np.empty(src.shape, arr.dtype)    # (its own strides, also for size-1 axes)
        np.copyto(out, src)
        out = out.transpose(self.back)
        self.last = (weakref.ref(arr), weakref.ref(out))
        return out


# one object per call for a result used twice -------------------------------------------------
def shared_outs(out) -> set:
    """ids of the Outs (specialize.Out) reached more than once in the tree of
    `out` (`return z, z.T`: z's output, transposed or reshaped, is one object
    in both)."""
    seen, shared = set(), set()

    def walk(o):
        if id(o) in seen:
            shared.add(id(o))
            return
        seen.add(id(o))
        for name in ("items", "alts"):
            for x in getattr(o, name, None) or ():
                for y in (x if isinstance(x, tuple) else (x,)):
                    if y is not None:
                        walk(y)
        for name in ("inner", "re", "im", "item"):
            x = getattr(o, name, None)
            if x is not None and hasattr(x, "kind"):
                walk(x)
    walk(out)
    return shared


_memo = threading.local()


def once_per_call(out, fn):
    """fn(outs, args, env) computed once per call (a call's `outs` list is
    its own object) and kept for the other uses of `out` in the result."""
    def once(outs, args, env):
        m = getattr(_memo, "m", None)
        if m is None or m[0] is not outs:
            m = _memo.m = (outs, {})
        if id(out) not in m[1]:
            m[1][id(out)] = fn(outs, args, env)
        return m[1][id(out)]
    return once


def forgetting(conv):
    """conv, dropping the kept values when the result is made."""
    def top(outs, args, env):
        try:
            return conv(outs, args, env)
        finally:
            _memo.m = None
    return top
