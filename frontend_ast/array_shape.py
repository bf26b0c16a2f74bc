"""Shape operations of NumPy-style code as index maps: `.T`/transpose,
reshape/ravel/flatten, squeeze, expand_dims, swapaxes, moveaxis.

The result's element idx is the source's element m(idx). Where NumPy's
result is a view of a named array, so is ours (the array's to_base composed
with m), so later writes show through it; where NumPy copies (flatten, the
reshape or ravel of a view whose strides do not allow a view), the result is
a new array value. Errors NumPy raises when the call runs (bad axes, sizes
that do not fit) are raised at call time with NumPy's exception type."""
from __future__ import annotations

import ast
import math

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node
from pyhalide.simplify import simplify

from . import array_calls, ops
from .arraycode import is_whole_view
from .arrayexpr import ArrayExpr, same_size, size_is
from .call_time_reach import add_loop_gated
from .limits import limit
from .ranges import INT32
from .result_order import OrderChoice
from .types import PY_INT
from .values import DtypeVal, TupleVal, Val, const_val

# arguments -------------------------------------------------------------------------------


def call_args(b, node, fname, names, required=0, star=None):
    """The arguments of a call by parameter name (AST nodes). With `star`,
    the positional arguments from that parameter on are collected as a
    list under it (`a.reshape(2, 3)`, `a.transpose(1, 0)`)."""
    for a in node.args:
        if isinstance(a, ast.Starred):
            raise b.cx.err(a, "`*` arguments are not supported")
    pos = list(node.args)
    out = {}
    if star is not None:
        k = names.index(star)
        if len(pos) > k:
            out[star] = pos[k:]
            pos = pos[:k]
    if len(pos) > len(names):
        raise b.cx.err(node, f"{fname}() takes at most {len(names)} positional arguments")
    out.update(zip(names, pos))
    for kw in node.keywords:
        if kw.arg is None:
            raise b.cx.err(kw, "`**` arguments are not supported")
        if kw.arg not in names:
            raise b.cx.err(kw, f"keyword {kw.arg!r} of {fname}() is not supported",
                           hint=f"{fname}() takes {', '.join(names)}")
        if kw.arg in out:
            raise b.cx.err(kw, f"{fname}() got multiple values for {kw.arg!r}")
        out[kw.arg] = [kw.value] if kw.arg == star else kw.value
    for n in names[:required]:
        if n not in out:
            raise b.cx.err(node, f"{fname}() needs the argument {n!r}")
    return out



def fail_at_call(cx, node, exc, msg):
    """Raise exc(msg) when the compiled function is called (what plain
    Python raises when it runs this code)."""
    if cx.typing:
        return
    loc = cx.smap.loc(node)
    where = f" ({loc.file}:{loc.line})" if loc is not None else ""

    def check(env):
        raise exc(msg + where)
    add_loop_gated(cx, check)


def check_at_call(cx, node, fn, reads_inside=False):
    """At call time, fn(env) returns None or (exception type, message) to raise
    (a NotImplementedError: a limit of the compiled code, limits.py);
    `reads_inside`: gated by the enclosing call-time conditions too
    (call_time_reach.add_loop_gated)."""
    if cx.typing:
        return
    loc = cx.smap.loc(node)
    where = f" ({loc.file}:{loc.line})" if loc is not None else ""

    def check(env):
        bad = fn(env)
        if bad is not None:
            e = bad[0](bad[1] + where)
            raise limit(e) if bad[0] is NotImplementedError else e
    add_loop_gated(cx, check, reads_inside)


def const_int(b, v, where, what="an integer constant"):
    """The Python int of a constant integer value."""
    if isinstance(v, Val) and v.is_const and (v.ty.is_int() or v.ty.is_bool()):
        return int(v.const)
    raise b.cx.err(where, f"expected {what}")


def const_ints(b, node, what):
    """An int or a tuple of ints (constants) as a list, and whether it was one int."""
    v = b.ev(node)
    if isinstance(v, TupleVal):
        return [const_int(b, x, node, what) for x in v.items], False
    return [const_int(b, v, node, what)], True


def size_val(cx, v: Val, where) -> Val:
    """A size argument (an integer known at call time) as a Python int."""
    if not isinstance(v, Val) or not (v.ty.is_int() or v.ty.is_bool()):
        raise cx.err(where, "an array size must be an integer")
    if not v.is_static:
        raise cx.err(where, "an array size must not depend on array contents or loop variables",
                     hint="compute sizes from .shape, len() and scalar arguments")
    return ops.to_python_int(cx, v) if v.ty.kind != "int" else v


def static_int(cx, fn, parts, lo=0, hi=INT32[1]) -> Val:
    """The Python int fn(*values of parts) at call time (a constant when the
    parts are; fn raising is NumPy's error, deferred to the call)."""
    if all(p.is_const for p in parts):
        try:
            return const_val(fn(*[p.const for p in parts]))
        except Exception:
            pass
    return Val(None, PY_INT, lo, hi, static=lambda env: fn(*[p.static(env) for p in parts]))


def product(cx, sizes) -> Val:
    out = const_val(1)
    for s in sizes:
        out = ops.binary(cx, "*", out, s)
    return out


def norm_axis(cx, node, axis: int, ndim: int, arg: str = "") -> int:
    """A NumPy axis in [-ndim, ndim) as a non-negative one; out of range,
    NumPy's AxisError at call time (0 stands in for it meanwhile); `arg`
    names the argument in the message as NumPy does (axis2: ...)."""
    if -ndim <= axis < ndim:
        return axis % ndim
    fail_at_call(cx, node, np.exceptions.AxisError, (f"{arg}: " if arg else "") +
                 f"axis {axis} is out of bounds for array of dimension {ndim}")
    return 0


def size_node(cx, v: Val) -> ir.Expr:
    if v.is_const:
        return ir.index(int(v.const))
    return cast_node(ir.INDEX, ops.node_of(cx, v))


# deriving arrays -----------------------------------------------------------------------------


def derived(src: ArrayExpr, shape, m, node, view=True) -> ArrayExpr:
    """The array whose element idx is src's element m(idx): a view of src's
    array when src is a view and `view`, else a new array value."""
    v = None
    if view and src.view is not None:
        arr, to_base = src.view
        v = (arr, lambda idx: to_base(m(idx)))
    out = ArrayExpr(shape, src.ty, lambda idx: src.elem(m(idx)), node, view=v)
    if view:
        out.derived_from = (src, m)     # (NumPy's view of src: returned_layout.py)
    return out


def as_source(b, v, where) -> ArrayExpr:
    a = b.array_code.as_array(v, where)
    if a is None:
        raise b.cx.err(where, f"expected an array, got {b.describe_obj(v)}")
    return a


def transposed(src: ArrayExpr, perm, node) -> ArrayExpr:
    """Result axis k is src's axis perm[k]."""
    def m(idx):
        out = [None] * len(perm)
        for k, p in enumerate(perm):
            out[p] = idx[k]
        return out
    return derived(src, [src.shape[p] for p in perm], m, node)


def _ones_map(cx, old, new):
    """When new differs from old only by size-1 axes, the map from a new
    index to an old one; else None."""
    oi = [k for k, s in enumerate(old) if not size_is(s, 1)]
    ni = [k for k, s in enumerate(new) if not size_is(s, 1)]
    if len(oi) != len(ni) or not all(same_size(cx, old[o], new[n]) for o, n in zip(oi, ni)):
        return None

    def m(idx):
        out = [ir.index(0)] * len(old)
        for o, n in zip(oi, ni):
            out[o] = idx[n]
        return out
    return m


def _flat_map(cx, old, new):
    """new index -> old index through the C-order flat index."""
    def m(idx):
        flat = ir.index(0)
        for i, s in zip(idx, new):
            if size_is(s, 1):
                continue
            flat = ir.Add(ir.Mul(flat, size_node(cx, s)), i) \
                if not (isinstance(flat, ir.Const) and flat.value == 0) else i
        out = [None] * len(old)
        for k in reversed(range(len(old))):
            s = old[k]
            if size_is(s, 1):
                out[k] = ir.index(0)
                continue
            n = size_node(cx, s)
            out[k] = clamp_index(ir.Mod(flat, n) if k > 0 else flat, n, idx)
            flat = ir.Div(flat, n)
        return out
    return m


def clamp_index(e, n, idx=()):
    """e clamped into [0, n - 1]: the value is unchanged (e is in range), but
    the bounds of a read through div/mod by a size become known. `idx` (the
    result's index) anchors the clamp: min(0, i) is 0 wherever an element is
    computed, and its bounds are empty where the result is, so an empty
    result reads nothing."""
    anchor = ir.index(0)
    for i in idx:
        a = ir.Min(ir.index(0), i)
        anchor = a if isinstance(anchor, ir.Const) else ir.Add(anchor, a)
    return ir.Max(ir.Min(e, ir.Add(ir.Sub(n, ir.index(1)), anchor)), anchor)


def reshaped(cx, src: ArrayExpr, shape, node, kind="reshape") -> ArrayExpr:
    """src in C order with a new shape (sizes already checked to match).
    kind: "reshape" (a view where NumPy's reshape gives one), "ravel" (a view
    only of a C-contiguous view), "copy" (never a view)."""
    m = _ones_map(cx, src.shape, shape)
    if m is None:
        m = _flat_map(cx, src.shape, shape)
    view = False
    if src.view is not None and kind != "copy":
        view = _numpy_views(cx, src, shape, kind, node, only_ones=_ones_map(cx, src.shape, shape)
                            is not None)
    out = derived(src, list(shape), m, node, view=view)
    if view:
        out.reshape_of = _reshaped_base(src)
        # NumPy's calls to repeat on the base at return (a ravel copies where a
        # reshape to the same shape may be a view; a chain can copy midway)
        out.reshape_steps = getattr(src, "reshape_steps", []) + [(kind, list(shape))]
    return out


class Reshaped:
    """A returned reshape (or ravel) of a whole C-ordered array `base` (an
    Arr): the function outputs base itself and reshapes it when it returns,
    so the result is a view of the array the kernel wrote, as NumPy's is (no
    copy through div/mod indexing). `steps`: the (kind, [fn(env)] of the
    shape) of each reshape or ravel from base, replayed with NumPy's own
    functions (`replay`), so the result is a view or a copy as NumPy's."""

    def __init__(self, base, steps):
        self.base = base
        self.steps = steps


def replay(x: np.ndarray, steps, env) -> np.ndarray:
    """x reshaped and ravelled by NumPy as `steps` ([(kind, [fn(env)])]) say."""
    for kind, shape in steps:
        x = np.ravel(x) if kind == "ravel" else np.reshape(x, tuple(int(f(env)) for f in shape))
    return x


def returned_reshape(value: ArrayExpr):
    """Reshaped(base, steps) when value is a reshape view of a whole C-ordered
    array (reshaped() marks those), else None."""
    base = getattr(value, "reshape_of", None)
    if base is None or value.view is None or value.view[0] is not base:
        return None
    steps = [(kind, [size_fn(v) for v in shape])
             for kind, shape in getattr(value, "reshape_steps", [])]
    return Reshaped(base, steps)


def size_fn(v: Val):
    """A size's value at call time, fn(env) (a constant's too), or None when
    it has none."""
    if v.is_const:
        n = int(v.const)
        return lambda env: n
    return v.static


def _reshaped_base(src: ArrayExpr):
    """The array whose C-order memory the view src is, whole (an array the
    function makes, or an argument: reshaped again at return by NumPy, which
    makes the view or copy NumPy makes), else None."""
    chained = getattr(src, "reshape_of", None)
    if chained is not None:
        return chained
    arr = src.view[0]
    if not is_whole_view(src) or arr.ty.is_complex():
        return None
    if arr.kind == "input" or arr.arg_name is not None:
        return arr
    return arr if getattr(arr, "layout", "C") == "C" else None


def _numpy_views(cx, src, shape, kind, node, only_ones) -> bool:
    """Whether NumPy's reshape/ravel of the view src is a view."""
    arr = src.view[0]
    if only_ones and kind == "reshape":
        return True
    if getattr(src, "reshape_of", None) is not None:
        return True         # a reshape of a whole C-ordered array is C-contiguous too
    if kind == "ravel" and getattr(arr, "complex_part", False) and is_whole_view(src):
        return _part_ravel_views(cx, src, node)
    if is_whole_view(src):
        order = getattr(arr, "memory_order", None)
        if isinstance(order, OrderChoice):
            raise cx.err(node, f"NumPy's {kind} of {order.why} may be a view or a copy: its "
                               f"memory order is chosen when the function runs (not supported)",
                         hint=f"{kind} a copy of it (x.copy().{kind}(...))")
        if order is not None and arr.kind != "input" and arr.arg_name is None:
            return _ordered_views(cx, src, shape, kind, node, order)
        layout = getattr(arr, "layout", "C")
        if layout == "C" or arr.kind == "input":   # C order, or never written
            return True
        # a written argument that is not C-contiguous: NumPy's ravel copies it; its
        # reshape is a view only for some shapes and strides, known at call time
        if kind == "ravel":
            return False
        raise cx.err(node, f"NumPy's reshape of the argument {arr.name!r}, which is written "
                           f"here and not C-contiguous in this call, may be a copy or a view "
                           f"(it depends on its strides)",
                     hint=f"reshape a copy ({arr.name}.copy().reshape(...)) or write through "
                          f"{arr.name} itself; a C-contiguous argument (np.ascontiguousarray "
                          f"before the call) is reshaped as a view")
    strides = view_strides(src)
    if strides is not None and all(s.is_const for s in shape):
        old = [int(s.const) for s in src.shape]
        if c_contiguous(old, strides):
            return True
        if kind == "ravel":
            return False
        return nocopy_reshape(old, strides, [int(s.const) for s in shape])
    if arr.kind == "input":      # never written: a view and a copy read the same
        return True
    raise cx.err(node, f"whether NumPy's {kind} of this view of {arr.name!r} is a view or a copy "
                       f"depends on sizes known only at call time",
                 hint=f"copy it first ({kind} of x.copy()) or {kind} the whole array")


def _part_ravel_views(cx, src, node) -> bool:
    """Whether NumPy's ravel of z.real / z.imag (a whole complex array's
    part: its strides are twice a C array's) is a view: only where it is
    C-contiguous, that is of at most one element. Else a copy; where the
    size is known only at call time, a call with one element (a view in
    NumPy) raises instead of computing a copy that NumPy's writes through
    the view would show through (of no elements, no write can differ)."""
    if all(s.is_const for s in src.shape):
        return math.prod(int(s.const) for s in src.shape) <= 1
    sizes = [s.static for s in src.shape]
    check_at_call(cx, node, lambda env: (NotImplementedError, (
        "NumPy's ravel of the part of a complex array with one element is a view; compiled "
        "code assumed a copy (of more elements)")) if math.prod(
            int(f(env)) for f in sizes) == 1 else None)
    return False


def _ordered_views(cx, src, shape, kind, node, order) -> bool:
    """Whether NumPy's reshape/ravel of a whole array the function made in
    another memory order than C's (`order`: its axes outermost first, as
    NumPy's order='K' result of Fortran-ordered or transposed operands) is a
    view: where its strides allow, decided now for constant sizes; else a
    copy (the case for axes longer than 1), and where the sizes at call time
    make NumPy's result a view after all, the call raises instead of
    computing a copy where NumPy's later writes would show through."""
    def views(old, new):
        strides = [0] * len(old)
        step = 1
        for k in reversed(order):
            strides[k] = step
            step *= old[k]
        if c_contiguous(old, strides):
            return True
        return kind != "ravel" and nocopy_reshape(old, strides, new)
    if all(s.is_const for s in list(src.shape) + list(shape)):
        return views([int(s.const) for s in src.shape], [int(s.const) for s in shape])
    olds, news = [s.static for s in src.shape], [s.static for s in shape]
    check_at_call(cx, node, lambda env: (NotImplementedError, (
        f"NumPy's {kind} of this array (not C-ordered: made from Fortran-ordered or transposed "
        f"arrays) is a view for these sizes; compiled code assumed a copy")) if views(
            [int(f(env)) for f in olds], [int(f(env)) for f in news]) else None)
    return False


def view_strides(src: ArrayExpr):
    """The strides (in elements of the base array, C order) of a view whose
    sizes are all constants, from its index map at unit steps; None when
    they are not constants."""
    arr, to_base = src.view
    if not all(s.is_const for s in list(arr.shape) + list(src.shape)):
        return None
    base = [int(s.const) for s in arr.shape]
    cstr = [math.prod(base[j + 1:]) for j in range(len(base))]
    names = [f"%probe{k}" for k in range(src.ndim)]
    probes = [ir.Variable(ir.INDEX, n) for n in names]
    mapped = to_base(probes)

    def offset(point):
        total = 0
        env = {n: ir.index(p) for n, p in zip(names, point)}
        for j, e in enumerate(mapped):
            c = simplify(ir.substitute(e, env))
            if not isinstance(c, ir.Const):
                return None
            total += int(c.value) * cstr[j]
        return total
    zero = [0] * src.ndim
    o0 = offset(zero)
    if o0 is None:
        return None
    out = []
    for k, s in enumerate(src.shape):
        if int(s.const) < 2:
            out.append(0)
            continue
        o = offset([1 if j == k else 0 for j in range(src.ndim)])
        if o is None:
            return None
        out.append(o - o0)
    return out


def c_contiguous(shape, strides) -> bool:
    """NumPy's C-contiguity flag (size-1 axes ignored, empty arrays contiguous)."""
    if 0 in shape:
        return True
    sd = 1
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != sd:
                return False
            sd *= n
    return True


def nocopy_reshape(old, strides, new) -> bool:
    """NumPy's _attempt_nocopy_reshape (C order): whether the new shape can
    be a view with some strides."""
    od = [(n, s) for n, s in zip(old, strides) if n != 1]
    dims = [n for n, _ in od]
    st = [s for _, s in od]
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new) and oi < len(dims):
        np_, op = new[ni], dims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new[nj]
                nj += 1
            else:
                op *= dims[oj]
                oj += 1
        for ok in range(oi, oj - 1):
            if st[ok] != dims[ok + 1] * st[ok + 1]:
                return False
        ni, nj = nj, nj + 1
        oi, oj = oj, oj + 1
    return True


# reshape ---------------------------------------------------------------------------------


def new_shape(b, src: ArrayExpr, items, node):
    """The sizes of a reshape (one may be -1), checked against src's size at
    call time with NumPy's errors."""
    cx = b.cx
    vals = []
    for it in items:
        v = b.ev(it)
        vals.extend(v.items if isinstance(v, TupleVal) else [v])
    sizes = [size_val(cx, v, node) for v in vals]
    total = product(cx, src.shape)
    unknown = [k for k, s in enumerate(sizes) if s.is_const and s.const == -1]
    if len(unknown) > 1:
        fail_at_call(cx, node, ValueError, "can only specify one unknown dimension")
        unknown = unknown[:1]
    shape = list(sizes)
    if unknown:
        u = unknown[0]
        shape[u] = static_int(cx, lambda n, *d: _unknown_or_zero(n, list(d), u), [total] + sizes)
    check_at_call(cx, node, lambda env: _reshape_error(total.static(env),
                                                       [s.static(env) for s in sizes]))
    return shape


def _fix_unknown(n, dims):
    """NumPy's _fix_unknown_dimension: the sizes with -1 replaced (ValueError
    where they cannot hold n elements)."""
    known = 1
    unknown = None
    for k, d in enumerate(dims):
        if d < 0:
            if d != -1 or unknown is not None:
                raise ValueError("can only specify one unknown dimension" if d == -1 else
                                 "negative dimensions not allowed")
            unknown = k
        else:
            known *= d
    if unknown is not None:
        if known == 0 or n % known:
            raise ValueError(f"cannot reshape array of size {n} into shape "
                             f"{_shape_str(dims)}")
        dims = list(dims)
        dims[unknown] = n // known
    elif known != n:
        raise ValueError(f"cannot reshape array of size {n} into shape {_shape_str(dims)}")
    return dims


def _unknown_or_zero(n, dims, u):
    """The size -1 stands for at position u, 0 where the sizes cannot hold n
    elements: the reshape's own check (new_shape's check_at_call) raises
    NumPy's error where the statement runs; in a loop of no iteration
    nothing is raised, as in Python."""
    try:
        return _fix_unknown(n, dims)[u]
    except ValueError:
        return 0


def _shape_str(dims):
    """A shape as NumPy's reshape error prints it: (2,newaxis), (7,)."""
    items = ["newaxis" if d == -1 else str(d) for d in dims]
    return "(" + ",".join(items) + ("," if len(items) == 1 else "") + ")"


def _reshape_error(n, dims):
    try:
        _fix_unknown(n, dims)
    except ValueError as e:
        return ValueError, str(e)
    return None


def _reshape(b, src, items, node, order_node=None):
    if order_node is not None:
        o = b.ev(order_node)
        if o != "C":
            raise b.cx.err(order_node, "only order='C' is supported")
    if not items:
        raise b.cx.err(node, "reshape() needs a shape")
    return reshaped(b.cx, src, new_shape(b, src, items, node), node)


@array_calls.method("reshape")
def _m_reshape(b, obj, name, node):
    a = call_args(b, node, "reshape", ["shape", "order"], star="shape")
    src = as_source(b, obj, node)
    return _reshape(b, src, a.get("shape", []), node, a.get("order"))


@array_calls.function(np.reshape)
def _f_reshape(b, fn, node):
    a = call_args(b, node, "reshape", ["a", "shape", "order", "newshape"], 1)
    src = as_source(b, b.ev(a["a"]), a["a"])
    shp = a.get("shape", a.get("newshape"))
    return _reshape(b, src, [shp] if shp is not None else [], node, a.get("order"))


def _ravel(b, src, node, kind):
    flat = [product(b.cx, src.shape)]
    return reshaped(b.cx, src, flat, node, kind)


@array_calls.method("ravel", "flatten")
def _m_ravel(b, obj, name, node):
    a = call_args(b, node, name, ["order"])
    if "order" in a and b.ev(a["order"]) != "C":
        raise b.cx.err(a["order"], "only order='C' is supported")
    return _ravel(b, as_source(b, obj, node), node, "ravel" if name == "ravel" else "copy")


@array_calls.function(np.ravel)
def _f_ravel(b, fn, node):
    a = call_args(b, node, "ravel", ["a", "order"], 1)
    if "order" in a and b.ev(a["order"]) != "C":
        raise b.cx.err(a["order"], "only order='C' is supported")
    return _ravel(b, as_source(b, b.ev(a["a"]), a["a"]), node, "ravel")


# transposes ------------------------------------------------------------------------------


@array_calls.attribute("T")
def _a_T(b, obj, name, node):
    src = as_source(b, obj, node)
    return transposed(src, list(reversed(range(src.ndim))), node)


def _transpose(b, src, axes_nodes, node):
    if not axes_nodes or (len(axes_nodes) == 1 and _is_none(b, axes_nodes[0])):
        return transposed(src, list(reversed(range(src.ndim))), node)
    axes = []
    for n in axes_nodes:
        axes.extend(const_ints(b, n, "axes (integer constants)")[0])
    if len(axes) != src.ndim:
        fail_at_call(b.cx, node, ValueError, "axes don't match array")
        return src
    perm = [norm_axis(b.cx, node, a, src.ndim) for a in axes]
    if len(set(perm)) != len(perm):
        fail_at_call(b.cx, node, ValueError, "repeated axis in transpose")
        return src
    return transposed(src, perm, node)


def _is_none(b, n):
    return b.ev(n) is None


@array_calls.method("transpose")
def _m_transpose(b, obj, name, node):
    a = call_args(b, node, "transpose", ["axes"], star="axes")
    return _transpose(b, as_source(b, obj, node), a.get("axes", []), node)


@array_calls.function(np.transpose, np.permute_dims)
def _f_transpose(b, fn, node):
    a = call_args(b, node, "transpose", ["a", "axes"], 1)
    src = as_source(b, b.ev(a["a"]), a["a"])
    return _transpose(b, src, [a["axes"]] if "axes" in a else [], node)


def _swap(b, src, n1, n2, node):
    i = norm_axis(b.cx, node, const_int(b, b.ev(n1), n1, "an axis"), src.ndim, "axis1")
    j = norm_axis(b.cx, node, const_int(b, b.ev(n2), n2, "an axis"), src.ndim, "axis2")
    perm = list(range(src.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return transposed(src, perm, node)


@array_calls.method("swapaxes")
def _m_swapaxes(b, obj, name, node):
    a = call_args(b, node, "swapaxes", ["axis1", "axis2"], 2)
    return _swap(b, as_source(b, obj, node), a["axis1"], a["axis2"], node)


@array_calls.function(np.swapaxes)
def _f_swapaxes(b, fn, node):
    a = call_args(b, node, "swapaxes", ["a", "axis1", "axis2"], 3)
    return _swap(b, as_source(b, b.ev(a["a"]), a["a"]), a["axis1"], a["axis2"], node)


@array_calls.function(np.moveaxis)
def _f_moveaxis(b, fn, node):
    a = call_args(b, node, "moveaxis", ["a", "source", "destination"], 3)
    src = as_source(b, b.ev(a["a"]), a["a"])
    s = [norm_axis(b.cx, node, x, src.ndim, "source")
         for x in const_ints(b, a["source"], "axes")[0]]
    d = [norm_axis(b.cx, node, x, src.ndim, "destination")
         for x in const_ints(b, a["destination"], "axes")[0]]
    if len(s) != len(d):
        fail_at_call(b.cx, node, ValueError, "`source` and `destination` arguments must have "
                                             "the same number of elements")
        return src
    if len(set(s)) != len(s) or len(set(d)) != len(d):
        fail_at_call(b.cx, node, ValueError, "repeated axis in `source` argument"
                     if len(set(s)) != len(s) else "repeated axis in `destination` argument")
        return src
    order = [n for n in range(src.ndim) if n not in s]
    for dest, sa in sorted(zip(d, s)):
        order.insert(dest, sa)
    return transposed(src, order, node)


# size-1 axes ---------------------------------------------------------------------------------


def expand_dims(b, src, axes, node) -> ArrayExpr:
    nd = src.ndim + len(axes)
    norm = [norm_axis(b.cx, node, x, nd) for x in axes]
    if len(set(norm)) != len(norm):
        fail_at_call(b.cx, node, ValueError, "repeated axis")
        return src
    keep = [k for k in range(nd) if k not in norm]
    shape = [const_val(1)] * nd
    for k, s in zip(keep, src.shape):
        shape[k] = s
    return derived(src, shape, lambda idx: [idx[k] for k in keep], node)


@array_calls.function(np.expand_dims)
def _f_expand_dims(b, fn, node):
    a = call_args(b, node, "expand_dims", ["a", "axis"], 2)
    src = as_source(b, b.ev(a["a"]), a["a"])
    return expand_dims(b, src, const_ints(b, a["axis"], "an axis or a tuple of axes")[0], node)


def _squeeze(b, src, axis_node, node):
    cx = b.cx
    if axis_node is None or _is_none(b, axis_node):
        drop = [k for k, s in enumerate(src.shape) if size_is(s, 1)]
        for k, s in enumerate(src.shape):
            if not s.is_const:
                check_at_call(cx, node, lambda env, s=s: (
                    ValueError, "squeeze: a size that is 1 only at run time is not removed "
                                "by compiled code") if s.static(env) == 1 else None)
    else:
        drop = [norm_axis(cx, node, x, src.ndim)
                for x in const_ints(b, axis_node, "an axis or a tuple of axes")[0]]
        for k in drop:
            s = src.shape[k]
            if s.is_const and s.const != 1:
                fail_at_call(cx, node, ValueError, "cannot select an axis to squeeze out which "
                                                   "has size not equal to one")
            elif not s.is_const:
                check_at_call(cx, node, lambda env, s=s: None if s.static(env) == 1 else (
                    ValueError, "cannot select an axis to squeeze out which has size not "
                                "equal to one"))
    keep = [k for k in range(src.ndim) if k not in drop]

    def m(idx):
        out = [ir.index(0)] * src.ndim
        for k, i in zip(keep, idx):
            out[k] = i
        return out
    return derived(src, [src.shape[k] for k in keep], m, node)


@array_calls.method("squeeze")
def _m_squeeze(b, obj, name, node):
    a = call_args(b, node, "squeeze", ["axis"])
    return _squeeze(b, as_source(b, obj, node), a.get("axis"), node)


@array_calls.function(np.squeeze)
def _f_squeeze(b, fn, node):
    a = call_args(b, node, "squeeze", ["a", "axis"], 1)
    return _squeeze(b, as_source(b, b.ev(a["a"]), a["a"]), a.get("axis"), node)



@array_calls.function(np.ndim)
def _f_ndim(b, fn, node):
    """np.ndim(a): the number of dimensions, known when the function is
    compiled (0 for a scalar)."""
    a = call_args(b, node, "ndim", ["a"], 1)
    v = b.ev(a["a"])
    if isinstance(v, Val):
        return const_val(0)
    if isinstance(v, TupleVal) and all(isinstance(x, Val) for x in v.items):
        return const_val(1)
    if not isinstance(getattr(v, "ndim", None), int):
        raise b.cx.err(node, "np.ndim() of this value is not supported",
                       hint="pass an array or a scalar")
    return const_val(v.ndim)


@array_calls.function(np.can_cast)
def _f_can_cast(b, fn, node):
    """np.can_cast(from_, to, casting) of dtypes: known when the function
    is compiled."""
    a = call_args(b, node, "can_cast", ["from_", "to", "casting"], 2)
    got = [b.ev(a[k]) for k in ("from_", "to")]
    casting = b.ev(a["casting"]) if "casting" in a else "safe"
    if not all(isinstance(v, DtypeVal) for v in got) or not isinstance(casting, str):
        raise b.cx.err(node, "np.can_cast() takes two dtypes and a casting rule here",
                       hint="pass a.dtype values and a string such as 'same_kind'")
    return const_val(bool(np.can_cast(got[0].dtype, got[1].dtype, casting)))
