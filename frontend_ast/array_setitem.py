"""The value NumPy stores when a scalar is assigned into an integer array
(`a[i] = v`, `a[1:] = v`, `a[mask] = v`).

NumPy 2 converts the scalar like Python's int(v), with a range check, when
the array's dtype is a signed integer, or when the scalar is a Python
number (through a mask or integer arrays: only then): a NaN raises
ValueError, an infinity and a value outside the dtype OverflowError, and
for a region whether or not it selects any element. Otherwise (a NumPy
scalar into an unsigned dtype, through a mask or integer arrays; array
values) it casts with C's rules, wrapping (ops.cast_to)."""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import ops, unions
from .convert import fabs, is_nan
from .ranges import n_within
from .values import Val

_F64, _I64 = ir.Float(64), ir.Int(64)


def python_rules(v: Val, ty, advanced: bool = False) -> bool:
    """Whether NumPy stores the scalar v into dtype ty like int(v), checked."""
    if not ty.is_int() or v.ty == ty or v.ty.is_bool() or not (v.ty.is_int() or
                                                                v.ty.is_float()):
        return False
    return v.ty.weak or (ty.dtype.kind == "i" and not advanced)


def stored(cx, v: Val, ty) -> Val:
    """v converted to ty without checks beyond a Python int's range (the
    conversion of an array value's elements)."""
    if v.ty == ty:
        return v
    if v.ty.weak and v.ty.kind == "int" and ty.is_int():
        return ops.convert(cx, v, ty, " (assignment into an array)")
    return ops.cast_to(cx, v, ty)


def element_value(cx, v: Val, ty) -> Val:
    """The value `a[i] = v` stores (the element exists): NumPy's checks at
    run time."""
    if v.union:
        return unions.distribute(cx, lambda x: element_value(cx, x, ty), v)
    if not python_rules(v, ty) or not may_fail(v, ty):
        return stored(cx, v, ty)
    return checked(cx, v, ty)


def region_value(bld, v: Val, ty, node, advanced: bool, nonempty: bool) -> Val:
    """The value `a[region] = v` stores: NumPy's checks whatever the region
    selects: at call time for a value known then, at run time where the
    region is known not to be empty, otherwise a located error. bld has
    .cx and .scope."""
    cx = bld.cx
    if v.union:
        if any(python_rules(x, ty, advanced) and may_fail(x, ty) for _, x in v.union):
            raise cx.err(node, "storing a scalar whose type depends on the data into an "
                               "integer array needs a check NumPy makes for its value",
                         hint="convert the scalar first (int(...), np.int64(...))")
        return unions.distribute(cx, lambda x: stored(cx, x, ty), v)
    if not python_rules(v, ty, advanced) or not may_fail(v, ty):
        return stored(cx, v, ty)
    if v.is_static and bld.scope.unconditional():
        cx.static_checks.append(_Setitem(v, ty, cx.smap.loc(node)))
        return stored(cx, v, ty)
    if nonempty:
        return checked(cx, v, ty)
    raise cx.err(node, f"storing this {v.ty.describe()} into an array of {ty.dtype.name} "
                       f"raises in NumPy when it is not an integer in range (NaN, infinity, "
                       f"out of bounds), even where the region is empty; that check is made "
                       f"only for a value known when the function is called, outside `if`s",
                 hint=f"convert the value first: np.{ty.dtype.name}(...), or int(...) to get "
                      f"Python's check")


def may_fail(v: Val, ty) -> bool:
    """Whether int(v) may be NaN, infinite or outside ty's range."""
    t = ty.ir()
    if v.ty.is_int():
        return not n_within(v.rng, (t.min_value(), t.max_value()))
    if v.is_const:
        x = float(v.const)
        return not (x == x and abs(x) != float("inf") and
                    t.min_value() <= int(x) <= t.max_value())
    return True


def checked(cx, v: Val, ty) -> Val:
    """v stored into ty like int(v), raising what NumPy raises at run time."""
    t = ty.ir()
    lo, hi = t.min_value(), t.max_value()
    if v.ty.weak and v.ty.is_int():
        return ops.convert(cx, v, ty, " (assignment into an array)")
    n = ops.node_of(cx, v)
    out = ops.cast_to(cx, v, ty)
    name = ty.dtype.name
    if v.ty.is_int():
        if n.type.is_uint() and n.type.bits == 64:
            ok = ir.LE(n, ir.Const(n.type, hi))
        else:
            w = cast(_I64, n)
            ok = ir.And(ir.GE(w, ir.Const(_I64, lo)), ir.LE(w, ir.Const(_I64, hi)))
        out = cx.guard(out, ok, "OverflowError", f"Python integer out of bounds for {name}")
        return out.set_range(lo, hi)
    x = cast(_F64, n)
    bad = ir.Or(is_nan(x), ir.EQ(fabs(x), ir.Const(_F64, float("inf"))))
    if not v.ty.weak:            # (cast_to checks a Python float's NaN and infinity)
        out = cx.guard(out, ir.Not(is_nan(x)), "ValueError",
                       "cannot convert float NaN to integer")
        out = cx.guard(out, ir.Or(is_nan(x), ir.LT(fabs(x), ir.Const(_F64, float("inf")))),
                       "OverflowError", "cannot convert float infinity to integer")
    c_long = _truncates_within(x, -2**63, 2**64 - 1 if hi == 2**64 - 1 else 2**63 - 1)
    out = cx.guard(out, ir.Or(bad, c_long), "OverflowError",
                   "Python int too large to convert to C long")
    out = cx.guard(out, ir.Or(ir.Or(bad, ir.Not(c_long)), _truncates_within(x, lo, hi)),
                   "OverflowError", f"Python integer out of bounds for {name}")
    return out.set_range(lo, hi)


def _truncates_within(x, lo: int, hi: int):
    """A bool node: the float64 node x truncates to an integer in [lo, hi]
    (lo and hi + 1 are 0 or powers of two, so the bounds are exact)."""
    low = ir.GT(x, ir.Const(_F64, float(lo) - 1)) if abs(lo) < 2**53 else \
        ir.GE(x, ir.Const(_F64, float(lo)))      # (no float64 between lo - 1 and lo)
    return ir.And(low, ir.LT(x, ir.Const(_F64, float(hi + 1))))


class _Setitem:
    """Call time: NumPy's own conversion of the static scalar stored into an
    empty slice of the dtype (its ValueError/OverflowError, located)."""

    def __init__(self, v: Val, ty, loc):
        self.static, self.src, self.dtype, self.loc = v.static, v.ty, ty.dtype, loc

    def __call__(self, env):
        x = self.src.python_value(self.static(env))
        try:
            np.zeros(1, self.dtype)[:0] = x
        except (ValueError, OverflowError) as e:
            where = f" ({self.loc.file}:{self.loc.line})" if self.loc is not None else ""
            raise type(e)(f"{e}{where}") from None
