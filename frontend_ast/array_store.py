"""Assignments into arrays with NumPy's rules: `a[region] = value` and
`a[region] op= value` over slices, integer arrays and boolean masks, and
`np.add.at` (the scatter that accumulates). Each is an update definition of
the array's Func over an RDom of the region (a mask is its predicate); the
right side is evaluated before anything is written (a value that reads the
array elsewhere than the element it writes reads the version before the
update). Registers the "store" and "augstore" hooks and np.add.at."""
from __future__ import annotations

import ast
import itertools
import re
from types import SimpleNamespace

import numpy as np

from pyhalide import ir
from pyhalide.buffer import Param
from pyhalide.expr import Expr
from pyhalide.expr import cast_node as cast
from pyhalide.var import RDom

from . import array_calls, array_complex, calls, ops
from . import types as T
from .array_index import (
    Item,
    MaskRead,
    base_map,
    element_index,
    guard,
    masked_select,
    parse,
    read_element,
    select,
)
from .array_masks import call_time_check, is_selection
from .array_setitem import element_value, region_value
from .array_store_loops import define_in_loop, reads_elsewhere
from .arrayexpr import ArrayExpr, broadcast_index, same_size, size_is
from .context import StaticParam
from .values import Arr, TupleVal, Val, fresh

# augmented assignment: the operator and the ufunc NumPy applies in place
_OPS = {ast.Add: ("+", np.add), ast.Sub: ("-", np.subtract), ast.Mult: ("*", np.multiply),
        ast.Div: ("/", np.true_divide), ast.FloorDiv: ("//", np.floor_divide),
        ast.Mod: ("%", np.remainder), ast.Pow: ("**", np.power),
        ast.LShift: ("<<", np.left_shift), ast.RShift: (">>", np.right_shift),
        ast.BitAnd: ("&", np.bitwise_and), ast.BitOr: ("|", np.bitwise_or),
        ast.BitXor: ("^", np.bitwise_xor)}
_AT = {np.add: "+", np.subtract: "-", np.multiply: "*", np.maximum: None, np.minimum: None,
       np.fmax: None, np.fmin: None}      # (None: calls.np_minmax)


class Dest:
    """Where an assignment writes: the elements of `arr` at `place(p)`
    ((index nodes, checks)) for p over `shape`, where `pred(p)` holds (a
    mask; None: everywhere). `injective`: distinct p write distinct
    elements (slices and masks; not integer arrays). `mask_src` is the
    mask's AST (for `a[m] = b[m]`)."""

    def __init__(self, arr, shape, place, injective, pred=None, mask=None, read=None):
        self.arr, self.shape, self.place = arr, shape, place
        self.injective, self.pred, self.mask = injective, pred, mask
        self.read = read            # fn(p) -> the element's current value


def destination(bld, base, items, node) -> Dest:
    """The elements `base[items]` names, for an assignment."""
    b = bld.exprs
    if isinstance(base, ArrayExpr) and base.view is None:
        raise bld.cx.err(node, "cannot assign into an array expression (it is a new array)",
                         hint="assign the expression to a name first, or assign into a "
                              "named array or a slice of one")
    if not isinstance(base, (Arr, ArrayExpr)):
        raise bld.cx.err(node, f"{b.describe_obj(base)} does not support item assignment",
                         hint="assign into an array or a slice of one")
    src = bld.array_code.as_array(base, node)
    arr = src.view[0]
    if arr.kind == "input" or arr.writes_refused:
        bld.arrays.input_written(arr, node)
    if any(i.kind == "mask" for i in items):
        sel = masked_select(b, src, items, node)
        return Dest(arr, sel.shape, lambda p: base_map(sel, p), True, pred=sel.mask_at,
                    mask=True, read=sel.elem)
    sel = select(b, src, items, node)
    return Dest(arr, sel.shape, lambda p: base_map(sel, p), sel.injective, read=sel.elem)


# hooks ----------------------------------------------------------------------------------------
def store(bld, target, value, stmt):
    """`target[index] = value` (array_calls.HOOKS["store"])."""
    b = bld.exprs
    base = b.ev(target.value)
    items = parse(b, target.slice)
    if isinstance(base, ArrayExpr) and isinstance(value, Val) and len(items) == base.ndim \
            and all(i.kind == "int" for i in items):
        return write_element(bld, base, items, value, target)
    dest = destination(bld, base, items, target)
    if isinstance(value, MaskRead):
        raise bld.cx.err(value.node, "a boolean-mask read is compiled only as the value of "
                                     "an assignment through the same mask, element by "
                                     "element: a[mask] = f(a[mask], b[mask])",
                         hint="use np.where(mask, b, a)")
    if isinstance(value, (Arr, ArrayExpr)):
        v = bld.array_code.as_array(value, stmt)
        if dest.mask:
            selection_fits(bld, v.shape, dest.shape, stmt, "assigning")
        return write(bld, dest, fitted(bld, v, dest.shape, stmt, False), stmt)
    if isinstance(value, TupleVal):             # a[0] = 0, 0: the array NumPy makes of it
        return store(bld, target, array_calls.HOOKS["tuple_array"](b, value, stmt), stmt)
    if not isinstance(value, Val):
        raise bld.cx.err(stmt, f"cannot assign {b.describe_obj(value)} into an array",
                         hint=b.obj_hint(value))
    bld.cx.cur_node = stmt
    nonempty = not dest.mask and all(s.lo is not None and s.lo >= 1 for s in dest.shape)
    value = region_value(bld, value, dest.arr.ty, stmt, dest.mask or not dest.injective,
                         nonempty)
    return write(bld, dest, lambda p: value, stmt)


def augmented_operand(bld, rhs, dest, stmt):
    """The right side of `dest op= rhs` as a function of a point of dest
    (an array broadcast to the destination's shape, or a scalar)."""
    b = bld.exprs
    if isinstance(rhs, (Arr, ArrayExpr)):
        v = bld.array_code.as_array(rhs, stmt)
        if dest.mask:
            selection_fits(bld, v.shape, dest.shape, stmt, "an augmented assignment")
        return fitted(bld, v, dest.shape, stmt, True)
    if isinstance(rhs, Val):
        return lambda p: rhs
    raise bld.cx.err(stmt, f"cannot use {b.describe_obj(rhs)} in an augmented assignment",
                     hint=b.obj_hint(rhs))


def augstore(bld, stmt):
    """`target op= value` where target is an array or a subscript that is
    not an element of a named array (array_calls.HOOKS["augstore"])."""
    b, cx = bld.exprs, bld.cx
    op, ufunc = _OPS[type(stmt.op)]
    t = stmt.target
    if isinstance(t, ast.Name):
        base, items, where = b.ev(t), [], t
    else:
        base, items, where = b.ev(t.value), parse(b, t.slice), t
    if isinstance(base, ArrayExpr) and len(items) == base.ndim and items and \
            all(i.kind == "int" for i in items):
        old = read_element(b, base, items, t)
        rhs = b.ev_val(stmt.value)
        cx.cur_node = stmt
        return write_element(bld, base, items, ops.binary(cx, op, old, rhs), t)
    dest = destination(bld, base, items, where)
    rhs_at = augmented_operand(bld, b.ev(stmt.value), dest, stmt)

    def value(p):
        cx.cur_node = stmt
        r = rhs_at(p)
        out = ops.binary(cx, op, dest.read(p), r)
        _same_kind(bld, op, ufunc, dest.arr, r, out, stmt)
        return out

    write(bld, dest, value, stmt)


def _same_kind(bld, op, ufunc, arr, rhs: Val, out: Val, node):
    """NumPy's in-place rule: the result must cast to the array's dtype
    with casting='same_kind' (else its UFuncTypeError, at call time)."""
    if np.can_cast(out.ty.dtype, arr.ty.dtype, "same_kind"):
        return
    cx = bld.cx
    dt = arr.ty.dtype
    sample = {"int": 0, "float": 0.0, "bool": False}.get(rhs.ty.kind) if rhs.ty.weak else \
        np.zeros((), rhs.ty.dtype)
    loc = cx.smap.loc(node)

    def check(env):
        ufunc(np.zeros((), dt), sample, out=np.zeros((), dt), casting="same_kind")
        raise TypeError(f"cannot cast the result of {op}= to {dt} ({loc.file}:{loc.line})")

    call_time_check(bld, check, node)


def selection_fits(bld, vshape, shape, node, what):
    """A value assigned through a boolean mask fits the selection: along
    the selected axes it is a read through the same mask (the same
    selection sizes) or of size 1 (anything else needs as many values as
    the mask selects, which depends on the data)."""
    cx = bld.cx
    extra = len(vshape) - len(shape)
    for k, s in enumerate(vshape):
        d = shape[k - extra] if k >= extra else None
        sel_d = d is not None and is_selection(cx, d)
        if (is_selection(cx, s) or sel_d) and not (d is not None and same_size(cx, s, d)) \
                and not (size_is(s, 1) and (sel_d or d is None)):
            raise cx.err(node, f"{what} through a boolean mask needs as many values as the "
                               f"mask selects, which depends on the data",
                         hint="use a scalar (a[mask] = 0), reads through the same mask "
                              "(a[mask] = a[mask] * 2 + b[mask]), or np.where(mask, b, a)")


# values ----------------------------------------------------------------------------------------
def fitted(bld, v: ArrayExpr, shape, node, augmented: bool):
    """fn(p) -> the element of v that NumPy's broadcasting puts at index p
    of a region of `shape` (a size-1 axis stretches, also one that is 1
    only at call time; extra leading axes of v must be 1; anything else is
    NumPy's ValueError, at call time when the sizes are not known to fit)."""
    cx = bld.cx
    extra = v.ndim - len(shape)
    check = False
    dynamic = set()          # axes of v that stretch where their size is 1 at call time
    for k, s in enumerate(v.shape):
        d = shape[k - extra] if k >= extra else None
        if d is None:
            check = check or not size_is(s, 1) or augmented
        elif not size_is(s, 1) and not same_size(cx, s, d):
            check = True
            if _may_be_one(s):
                dynamic.add(k - max(extra, 0))
    if check:
        call_time_check(bld, _Fits(v.shape, shape, augmented, cx.smap.loc(node)), node)
    tail = v.shape[max(extra, 0):]

    def at(p):
        lead = [ir.index(0)] * max(extra, 0)
        idx = broadcast_index(tail, p)
        for k in dynamic:       # 0 where the size is 1, else the index itself (checked)
            last = ir.Sub(_extent(cx, tail[k]), ir.index(1))
            idx[k] = ir.Min(idx[k], last)
        return v.elem(lead + idx)
    return at


def _may_be_one(s: Val) -> bool:
    """Whether a size may be 1 when the function is called: not an input's
    size (an input's size-1 axes are constant 1 in its specialization)."""
    aff = next((a for a in s.lbs if a in s.ubs), None)
    input_size = aff is not None and aff.c == 0 and len(aff.terms) == 1 and \
        all(k == 1 and re.fullmatch(r".+\.shape\[\d+\]", t) for t, k in aff.terms.items())
    return not input_size and not (s.lo is not None and s.lo > 1)


class _Fits:
    """Call time: a value of shape `vshape` assigns into a region of `shape`
    (NumPy's ValueError otherwise)."""

    def __init__(self, vshape, shape, augmented, loc):
        self.vshape, self.shape, self.augmented, self.loc = vshape, shape, augmented, loc

    def __call__(self, env):
        vs = tuple(int(s.static(env)) for s in self.vshape)
        ds = tuple(int(s.static(env)) for s in self.shape)
        extra = len(vs) - len(ds)
        ok = all(x == 1 for x in vs[:max(extra, 0)]) and not (self.augmented and extra > 0)
        ok = ok and all(vs[k] in (1, ds[k - extra]) for k in range(max(extra, 0), len(vs)))
        if ok:
            return
        where = f" ({self.loc.file}:{self.loc.line})" if self.loc is not None else ""
        if self.augmented:
            raise ValueError(f"non-broadcastable output operand with shape {ds} doesn't match "
                             f"the broadcast shape {vs}{where}")
        raise ValueError(f"could not broadcast input array from shape {vs} into shape {ds}"
                         f"{where}")


# writing -----------------------------------------------------------------------------------------
def write_element(bld, x: ArrayExpr, items, value: Val, node):
    """x[i, j, ...] = value for a view x (one integer per axis; also in
    loops): a pending write of its array's element (arrays.ArrayAccess.write)."""
    arr = x.view[0]
    if arr.kind == "input" or arr.writes_refused:
        bld.arrays.input_written(arr, node)
    cx = bld.cx
    cx.cur_node = node
    nodes, checks = element_index(bld.exprs, x, items, node, ", assignment")
    at, more = base_map(x, nodes)
    value = guard(cx, element_value(cx, value, arr.ty), checks + more)
    if not cx.typing:
        bld.defs.version_for_element_write(arr, [ops.node_of(cx, value)] + list(at))
    bld.arrays.record_write(arr, at, value, bld.scope.current_condition(), node,
                            [i.value for i in items])


def write(bld, dest: Dest, value, node, combine=None):
    """The update `dest = value(p)` over dest's region: value(p) is
    evaluated before the write (reading the array's version before it
    where it reads other elements than the one written), then
    combine(p, v) (default v) with the array's current version."""
    cx, defs = bld.cx, bld.defs
    arr = dest.arr
    if isinstance(arr, array_complex.ComplexArr):
        return array_complex.store(bld, dest, value, node, write, combine)
    first = not arr.defined and arr not in defs.copy_of     # may become the pure definition
    if not first:
        defs.ensure_defined(arr)
    p = [ir.Variable(ir.INDEX, fresh(f"region{k}")) for k in range(len(dest.shape))]
    at, checks = dest.place(p)
    cx.cur_node = node
    v = value(p)
    pred = dest.pred(p) if dest.pred is not None else None
    cond = bld.scope.current_condition()
    if cond is not None:            # inside an `if`: the update's predicate
        pred = cond if pred is None else cx.logical_and(ops.truth(cx, cond), ops.truth(cx, pred))
    reads = [ops.node_of(cx, v)] + ([ops.node_of(cx, pred)] if pred is not None else []) \
        + list(at)
    first = first and not arr.defined          # (the value did not read the array)
    if not first and not bld.state.loops:
        _version(bld, dest, at, reads)
    cx.cur_node = node
    if combine is not None:
        v = combine(at, v)
    v = guard(cx, bld.arrays.store_convert(v, arr.ty), checks)
    vnode = ops.node_of(cx, v)
    preds = [ops.node_of(cx, ops.truth(cx, pred))] if pred is not None else []
    if bld.state.loops:
        return define_in_loop(bld, dest, p, at, vnode, preds, node)
    _define(bld, dest, p, at, vnode, preds, node, first)


def _version(bld, dest, at, reads):
    """Give the array a new version where earlier statements read it, or
    where `reads` (the value, evaluated before the write) read it at other
    elements than the one written (`at`): the update then reads the version
    before it."""
    cx, defs, arr = bld.cx, bld.defs, dest.arr
    cur = arr.func
    unsafe = reads_elsewhere(cur, dest, at, reads)
    defs.version_for_write(arr)
    if unsafe and arr.func is cur:
        cx.epoch += 1            # the right side was evaluated before this write
        defs.version_for_write(arr)


def _define(bld, dest, p, at, vnode, preds, node, first=False):
    """arr.func[at] = vnode over the region (pure Vars for axes the region
    covers whole in order, RVars of one RDom for the others); the first
    write of a new array that covers it whole is its pure definition."""
    cx, defs, arr = bld.cx, bld.defs, dest.arr
    pure = {}
    if not preds:
        for j, x in enumerate(p):
            ks = [k for k, n in enumerate(at) if isinstance(n, ir.Variable) and n.name == x.name]
            if len(ks) == 1 and sum(x.name in ir.free_vars(n) for n in at) == 1 and \
                    same_size(cx, dest.shape[j], arr.shape[ks[0]]):
                pure[j] = ks[0]
    mapping = {p[j].name: defs.axis_var(arr, k).node for j, k in pure.items()}
    rv = [j for j in range(len(p)) if j not in pure]
    whole = not rv and not preds and len(pure) == arr.ndim
    if whole and defs.replaces_fresh_copy(arr, vnode):
        # `a /= s` after a statement read a: the new version is the value
        # itself, not a copy of the old one overwritten everywhere (one pass)
        copy = arr.versions.pop()
        bld.emitter.funcs[:] = [t for t in bld.emitter.funcs if t[1] is not copy]
        arr.defined = False
        first = True
    if first and not arr.defined and whole:
        f = bld.emitter.new_func(arr.name, arr)
        defs.mark_emitted([vnode], f)
        key = tuple(defs.axis_var(arr, k) for k in reversed(range(arr.ndim)))
        bld.emitter.define(f, key, (ir.substitute(vnode, mapping),), [], None,
                           cx.smap.loc(node), pure=True, label=arr.name)
        arr.func, arr.defined = f, True
        arr.versions.append(f)
        return
    defs.ensure_defined(arr)
    rdom = None
    if rv or preds:
        bounds = [(ir.index(0), _extent(cx, dest.shape[j]))
                  for j in reversed(rv)] or [(ir.index(0), ir.index(1))]
        rdom = RDom([(Expr.wrap(lo), Expr.wrap(ext)) for lo, ext in bounds],
                    f"r_{arr.name}")
        for i, j in enumerate(reversed(rv)):
            mapping[p[j].name] = rdom[i].node
    defs.mark_emitted([vnode] + preds + list(at), arr.func)
    by_axis = {k: j for j, k in pure.items()}
    key = tuple(defs.axis_var(arr, k) if k in by_axis else
                Expr.wrap(ir.substitute(at[k], mapping)) for k in reversed(range(arr.ndim)))
    vnode = ir.substitute(vnode, mapping)
    preds = [ir.substitute(x, mapping) for x in preds]
    bld.emitter.define(arr.func, key, (vnode,), preds, rdom, cx.smap.loc(node), label=arr.name)


def _extent(cx, size: Val) -> ir.Expr:
    """A region size as an int32 node. A wider one (a Python int computed at
    call time) is passed as an int32 parameter of its own, so that bounds
    inference bounds the region (a narrowing cast of it would not be)."""
    n = ops.node_of(cx, size)
    if n.type.bits <= 32 or not size.is_static:
        return cast(ir.INDEX, n)
    f = size.static
    p = Param(ir.INDEX, f"__pyhalide_extent{next(_EXTENTS)}")
    cx.static_params.append(StaticParam(p, lambda env: min(max(int(f(env)), 0), 2**31 - 1),
                                        ir.INDEX))
    return p.node


_EXTENTS = itertools.count()


# np.add.at ---------------------------------------------------------------------------------------
@array_calls.function(*(u.at for u in _AT))
def ufunc_at(b, fn, node):
    """np.add.at(a, indices, values) (also subtract, multiply, maximum,
    minimum, fmax, fmin): a[indices] = ufunc(a[indices], values) with
    repeated indices applied in turn (an update reading the element it
    writes). As NumPy, the values are arrays (a Python number has NumPy's
    default dtype) and the result is cast to a's dtype (C's rules)."""
    cx = b.cx
    ufunc = fn.__self__
    name = f"np.{ufunc.__name__}.at"
    if node.keywords or len(node.args) != 3:
        raise cx.err(node, f"expected {name}(a, indices, values)",
                     hint="pass the array, the indices and the values, without keywords")
    op = _AT[ufunc]
    bld = builder_of(b)
    a = b.ev(node.args[0])
    idx = b.ev(node.args[1])
    vals = b.ev(node.args[2])
    b.array_code.outside_loops(node, name)
    items = [_at_item(b, x, node.args[1]) for x in (idx.items if isinstance(idx, TupleVal)
                                                     else [idx])]
    dest = destination(bld, a, items, node.args[0])
    if isinstance(vals, (Arr, ArrayExpr)):
        v = b.array_code.as_array(vals, node.args[2])
        if dest.mask:
            selection_fits(bld, v.shape, dest.shape, node, name)
        value = fitted(bld, v, dest.shape, node, False)
    else:
        v = b.scalar(vals, node.args[2])
        if v.ty.weak:                    # np.asarray(v): NumPy's default dtype
            v = ops.convert(cx, v, T.np_ty(v.ty.dtype))
        value = lambda p: v          # noqa: E731
    arr = dest.arr

    def combine(at, v):
        old = b.array_code.read_element(arr, at)
        out = ops.binary(cx, op, old, v) if op is not None else \
            calls.np_minmax(cx, ufunc, old, v)
        return ops.cast_to(cx, out, arr.ty)
    write(bld, dest, value, node, combine=combine)
    return None


def builder_of(b):
    """What write() needs of the builder, from the exprs.Expressions b (for
    writes made by a call: np.add.at, np.concatenate)."""
    return SimpleNamespace(exprs=b, cx=b.cx, array_code=b.array_code, arrays=b.arrays,
                           defs=b.array_code.defs, emitter=b.array_code.emitter, scope=b.scope,
                           state=b.array_code.state)


def _at_item(b, x, where) -> Item:
    if isinstance(x, (Arr, ArrayExpr)):
        a = b.array_code.as_array(x, where)
        return Item("mask" if a.ty.is_bool() else "array", where, a)
    return Item("int", where, b.scalar(x, where, "an integer index"))


array_calls.HOOKS["store"] = store
array_calls.HOOKS["augstore"] = augstore
