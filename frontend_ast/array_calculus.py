"""np.gradient and np.trapezoid (np.trapz) of NumPy-style array code, as
NumPy computes them (numpy/lib/_function_base_impl.py):

- np.gradient(f, [h], axis=None, edge_order=1) with a uniform spacing h (none
  given: 1.0; one scalar for every axis): integer f is converted to
  float64; along each axis the interior is (f[i+1] - f[i-1]) / (2. * h), the
  edges one-sided: (f[1] - f[0]) / h and (f[-1] - f[-2]) / h, or with
  edge_order=2 (-1.5/h)*f[0] + (2./h)*f[1] + (-0.5/h)*f[2] and
  (0.5/h)*f[-3] + (-2./h)*f[-2] + (1.5/h)*f[-1], each cast to f's float type
  as NumPy's assignment into its result casts. One axis gives an array,
  several a tuple. An axis shorter than edge_order + 1 raises NumPy's
  ValueError at call time.
- np.trapezoid(y, x=None, dx=1.0, axis=-1) of a 1-D y: (d * (y[1:] + y[:-1]) /
  2.0).sum() with d = dx, or np.diff(x) of a 1-D x; NumPy's pairwise sum of
  that new array, bit for bit."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from . import array_calls, ops
from .array_args import numpy_ty, operand_of
from .array_create import cond
from .array_reduce import finish, total
from .array_shape import call_args, clamp_index, size_node
from .array_shift import diff_once, pairs
from .arrayexpr import ArrayExpr, clamped_into, k_order
from .call_time_reach import IfEmpty, add_loop_gated, add_shape_check, run_time_gated
from .limits import limit
from .types import NP, Ty
from .values import TupleVal, Val, const_val


def _scalar_arg(b, got, name, default):
    v = got.get(name)
    if v is None:
        return default
    val = b.ev(v)
    if not isinstance(val, Val) or val.union or val.ty.is_complex() or val.ty.is_bool():
        raise b.cx.err(v, f"{name} must be a real scalar here",
                       hint="array spacings are not supported: give one scalar spacing")
    return val


def _const_int(b, got, name, default):
    v = got.get(name)
    if v is None:
        return default
    val = b.ev(v)
    if isinstance(val, Val) and val.is_const and isinstance(val.const, int) and \
            not isinstance(val.const, bool):
        return val.const
    if isinstance(val, TupleVal) and all(isinstance(x, Val) and x.is_const and
                                         isinstance(x.const, int) for x in val.items):
        return tuple(x.const for x in val.items)
    raise b.cx.err(v, f"{name} must be a constant integer here")


class _TooShort:
    """Call-time check: every axis of the gradient has at least `need` elements."""

    def __init__(self, sizes, need):
        self.sizes, self.need = sizes, need

    def __call__(self, env):
        if any(s.static(env) < self.need for s in self.sizes):
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")


def _long_enough(cx, sizes, need) -> Val:
    """Every size >= need (a bool Val)."""
    out = None
    for s in sizes:
        ok = cx.compare(">=", s, const_val(need))
        out = ok if out is None else cx.logical_and(out, ok)
    return out


@array_calls.function(np.gradient)
def gradient(b, fn, node):
    cx = b.cx
    if len(node.args) > 2:
        raise cx.err(node, "np.gradient() with a spacing per axis is not supported",
                     hint="give one scalar spacing, or none")
    got = call_args(b, node, "gradient", ["f", "h", "axis", "edge_order"], 1)
    f = operand_of(b, b.ev(got["f"]), got["f"])
    if f.ty.is_complex() or not (f.ty.is_float() or f.ty.is_int() or f.ty.is_bool()):
        raise cx.err(node, f"np.gradient of {f.ty.describe()} arrays is not supported")
    if f.ty.is_bool():
        raise cx.err(node, "np.gradient of a boolean array: NumPy's subtract refuses booleans")
    edge = _const_int(b, got, "edge_order", 1)
    if edge not in (1, 2):
        raise cx.err(node, "edge_order must be 1 or 2")
    axis = _const_int(b, got, "axis", None)
    axes = tuple(range(f.ndim)) if axis is None else \
        (axis,) if isinstance(axis, int) else axis
    if f.ndim == 0 or any(not -f.ndim <= a < f.ndim for a in axes):
        raise cx.err(node, "np.gradient: axis out of bounds for the array's dimensions")
    axes = tuple(a % f.ndim for a in axes)
    h = _scalar_arg(b, got, "h", const_val(1.0))
    cx.cur_node = node
    otype = f.ty if f.ty.is_float() else Ty(NP, np.float64)
    order = k_order(f)          # NumPy's np.empty_like(f) of each result
    if not f.ty.is_float():
        src = f
        f = ArrayExpr(src.shape, otype, lambda i: ops.cast_to(cx, src.elem(i), otype), node)
    sizes = [f.shape[a] for a in axes]
    if not all(s.is_const and s.const >= edge + 1 for s in sizes):
        # (_along reads f at clamped indices: inside f whatever its size)
        add_shape_check(cx, _TooShort(sizes, edge + 1), lambda: _long_enough(cx, sizes, edge + 1),
                        node, "Shape of array too small to calculate a numerical gradient, at "
                              "least (edge_order + 1) elements are required.")
    outs = [_along(cx, f, a, h, edge, otype, node) for a in axes]
    for out in outs:
        out.order = order
    return outs[0] if len(outs) == 1 else TupleVal(outs)


def _along(cx, f: ArrayExpr, axis, h: Val, edge, otype, node) -> ArrayExpr:
    n = size_node(cx, f.shape[axis])

    def at(idx, i):
        out = list(idx)
        out[axis] = clamp_index(i, n, idx)
        return f.elem(out)

    def coef(c):
        return ops.binary(cx, "/", const_val(c), h)

    def elem(idx):
        cx.cur_node = node
        i = idx[axis]
        if edge == 1:
            first = ops.binary(cx, "/", ops.binary(cx, "-", at(idx, ir.index(1)),
                                                   at(idx, ir.index(0))), h)
            last = ops.binary(cx, "/", ops.binary(cx, "-", at(idx, ir.Sub(n, ir.index(1))),
                                                  at(idx, ir.Sub(n, ir.index(2)))), h)
        else:
            first = _combo(cx, [(coef(-1.5), at(idx, ir.index(0))),
                                (coef(2.0), at(idx, ir.index(1))),
                                (coef(-0.5), at(idx, ir.index(2)))])
            last = _combo(cx, [(coef(0.5), at(idx, ir.Sub(n, ir.index(3)))),
                               (coef(-2.0), at(idx, ir.Sub(n, ir.index(2)))),
                               (coef(1.5), at(idx, ir.Sub(n, ir.index(1))))])
        mid = ops.binary(cx, "/", ops.binary(cx, "-", at(idx, ir.Add(i, ir.index(1))),
                                             at(idx, ir.Sub(i, ir.index(1)))),
                         ops.binary(cx, "*", const_val(2.0), h))
        vals = [ops.cast_to(cx, v, otype) for v in (first, last, mid)]
        inner = ops.select(cx, cond(ir.EQ(i, ir.Sub(n, ir.index(1)))), vals[1], vals[2],
                           lazy=False)
        return ops.select(cx, cond(ir.EQ(i, ir.index(0))), vals[0], inner, lazy=False)
    return ArrayExpr(list(f.shape), otype, elem, node)


def _combo(cx, terms):
    """a*x + b*y + c*z, left to right, as NumPy evaluates it."""
    out = None
    for c, x in terms:
        t = ops.binary(cx, "*", c, x)
        out = t if out is None else ops.binary(cx, "+", out, t)
    return out


@array_calls.function(*[f for f in (getattr(np, "trapezoid", None), getattr(np, "trapz", None))
                        if f is not None])
def trapezoid(b, fn, node):
    cx = b.cx
    got = call_args(b, node, fn.__name__, ["y", "x", "dx", "axis"], 1)
    y = operand_of(b, b.ev(got["y"]), got["y"])
    if y.ndim != 1:
        raise cx.err(node, f"np.{fn.__name__} of an array of {y.ndim} dimensions is not "
                           f"supported (NumPy's summation order depends on its layout)",
                     hint="integrate 1-D rows, e.g. in a loop")
    axis = _const_int(b, got, "axis", -1)
    if axis not in (0, -1):
        raise cx.err(node, f"axis {axis} is out of bounds for array of dimension 1")
    xv = b.ev(got["x"]) if "x" in got else None
    if xv is not None and not (isinstance(xv, Val) and xv.is_const and xv.const is None):
        x = operand_of(b, xv, got["x"])
        if x.ndim != 1:
            raise cx.err(got["x"], "x of np.trapezoid must be 1-D here")
        d = diff_once(b, x, 0, node)
        d_at = d.elem
    else:
        dval = _scalar_arg(b, got, "dx", const_val(1.0))
        d_at = None
    cx.cur_node = node
    n = size_node(cx, y.shape[0])

    def elem(idx):
        cx.cur_node = node
        i = idx[0]
        hi = y.elem([clamp_index(ir.Add(i, ir.index(1)), n, idx)])
        s = ops.binary(cx, "+", hi, y.elem([i]))
        # (x's differences read clamped into them: inside x also where the
        # sizes differ and the check is not made, the branch not taken)
        w = d_at([clamped_into(cx, i, d.shape[0])]) if d_at is not None else dval
        return ops.binary(cx, "/", ops.binary(cx, "*", w, s), const_val(2.0))

    first = elem([ir.index(0)])
    terms = ArrayExpr([pairs(cx, y.shape[0])], first.ty, elem, node)
    if d_at is not None:
        _check_same_size(cx, x.shape[0], y.shape[0], d.shape[0], node)
    rt = numpy_ty(b, lambda: np.sum(np.zeros(1, first.ty.dtype)).dtype, node)
    out = total(b.array_code, terms, (0,), rt, node, fn.__name__)
    return finish(b.array_code, out, (0,), 1, False, node)


def _check_same_size(cx, nx, ny, pairs_x, node):
    """np.trapezoid's check that x and y have one length, made where the
    statement runs (call_time_reach.add_shape_check: under an `if` not
    taken, none); where one of them has length 2 (NumPy broadcasts its
    single difference: refused) or x has no difference to read (clamped
    reads would leave it), the call-time check is made as before."""
    check = _SameSize(nx, ny)
    add_shape_check(cx, check, lambda: cx.compare("==", nx, ny), node,
                    "operands could not be broadcast together", (pairs_x,))
    if not (nx.is_const and ny.is_const):
        add_loop_gated(cx, _IfPair(check, nx, ny))
        if not run_time_gated(cx):
            add_loop_gated(cx, IfEmpty(check, (pairs_x,)))


class _IfPair:
    """The call-time check where one of the lengths is 2 and they differ."""

    def __init__(self, check, nx, ny):
        self.check, self.nx, self.ny = check, nx, ny

    def __call__(self, env):
        nx, ny = self.nx.static(env), self.ny.static(env)
        if nx != ny and 2 in (nx, ny):
            self.check(env)


class _SameSize:
    """Call-time check: x and y of np.trapezoid have one length (NumPy
    raises where their differences do not broadcast, and broadcasts a single
    difference or a single pair, which is refused here)."""

    def __init__(self, nx, ny):
        self.nx, self.ny = nx, ny

    def __call__(self, env):
        nx, ny = self.nx.static(env), self.ny.static(env)
        if nx == ny:
            return
        if 2 not in (nx, ny):
            raise ValueError(f"operands could not be broadcast together with shapes "
                             f"({nx - 1},) ({ny - 1},)")
        raise limit(NotImplementedError("np.trapezoid of x and y of different lengths (NumPy "
                                        "broadcasts a single difference) is not supported in "
                                        "compiled code"))
