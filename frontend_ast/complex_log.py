"""The complex logarithm: np.log of complex values as glibc's clog / clogf
(what NumPy calls) and cmath.log as CPython's c_log compute it, in float64
(complex64 rounded once at the end).

Real part log|z|, imaginary part atan2(im, re):
- NumPy (glibc): near the unit circle (0.5 <= max(|re|, |im|) < 2, the
  smaller part below 1, |z|^2 >= 0.5) log1p(d) / 2 with d = |z|^2 - 1
  computed with the products' exact rounding errors (fma) and two-sums,
  as glibc's __x2y2m1 does; elsewhere log(hypot(re, im)), halved first past
  DBL_MAX / 4 (then + log 2), scaled by 2**53 below DBL_MIN (then - 53 log 2).
- CPython: log1p((m - 1) * (m + 1) + n * n) / 2 where 0.71 <= |z| <= 1.73
  (m, n the larger and smaller magnitude), log(hypot) elsewhere (scaled as
  glibc's); cmath.log(0) raises ValueError, cmath.log(z, base) is
  log(z) / log(base).
Special values (C99 Annex G, both): log(+-0 +- 0j) = -inf + atan2 (a signed
0 or pi); an infinite part gives +inf + atan2; else a NaN part gives NaN
parts."""
from __future__ import annotations

import math

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node

from . import complex_values as C
from .convert import fabs, is_nan

_F64 = ir.Float(64)
_LARGE = float(np.finfo(np.float64).max) / 4
_TINY = float(np.finfo(np.float64).tiny)


def _c(v):
    return ir.Const(_F64, v)


def _call(name, *args):
    return ir.Call(_F64, name, args, ir.INTRINSIC)


def log1p(x):
    """log(1 + x) as log(u) - ((u - 1) - x) / u, u = 1 + x rounded: the
    rounding error of u (exact by Fast2Sum) corrects the logarithm."""
    one = _c(1.0)
    u = ir.Add(one, x)
    err = ir.Select(ir.LE(fabs(x), one), ir.Sub(ir.Sub(u, one), x), ir.Sub(ir.Sub(u, x), one))
    lg = _call("log", u)
    corrected = ir.Sub(lg, ir.Div(err, u))
    plain = ir.Or(ir.LE(u, _c(0.0)), ir.Not(ir.LT(fabs(u), _c(float("inf")))))
    return ir.Select(ir.EQ(u, one), x, ir.Select(plain, lg, corrected))


def _two_sum(a, b):
    s = ir.Add(a, b)
    bb = ir.Sub(s, a)
    return s, ir.Add(ir.Sub(a, ir.Sub(s, bb)), ir.Sub(b, bb))


def x2y2m1(x, y):
    """x*x + y*y - 1 with the products' rounding errors (fma) and the sums'
    (two-sum) kept: accurate also where the terms cancel."""
    xh, yh = ir.Mul(x, x), ir.Mul(y, y)
    xl = _call("fma", x, x, ir.Sub(_c(0.0), xh))
    yl = _call("fma", y, y, ir.Sub(_c(0.0), yh))
    s1, e1 = _two_sum(xh, _c(-1.0))
    s2, e2 = _two_sum(s1, yh)
    return ir.Add(s2, ir.Add(ir.Add(e1, e2), ir.Add(xl, yl)))


def log(cx, v, ty, python=False):
    """log(z) of a complex value (NumPy's np.log, or cmath.log when `python`)."""
    re, im = C.nodes(cx, v, ty)
    t = re.type
    x, y = cast_node(_F64, re), cast_node(_F64, im)
    ax, ay = fabs(x), fabs(y)
    big, small = ir.Select(ir.LT(ax, ay), ay, ax), ir.Select(ir.LT(ax, ay), ax, ay)
    huge = ir.GT(big, _c(_LARGE))
    h = C.hypot_node(big, small)
    up = _c(2.0 ** 53)
    subnormal = ir.Sub(_call("log", C.hypot_node(ir.Mul(big, up), ir.Mul(small, up))),
                       _c(53 * math.log(2.0)))
    halved = ir.Add(_call("log", C.hypot_node(ir.Mul(big, _c(0.5)), ir.Mul(small, _c(0.5)))),
                    _c(math.log(2.0)))
    far = ir.Select(huge, halved,
                    ir.Select(ir.LT(big, _c(_TINY)), subnormal, _call("log", h)))
    if python:
        near = ir.And(ir.LE(_c(0.71), h), ir.LE(h, _c(1.73)))
        d = ir.Add(ir.Mul(ir.Sub(big, _c(1.0)), ir.Add(big, _c(1.0))), ir.Mul(small, small))
    else:
        near = ir.And(ir.And(ir.LE(_c(0.5), big), ir.LT(big, _c(2.0))),
                      ir.And(ir.LT(small, _c(1.0)),
                             ir.GE(ir.Add(ir.Mul(big, big), ir.Mul(small, small)), _c(0.5))))
        d = x2y2m1(big, small)
    real = ir.Select(near, ir.Mul(log1p(d), _c(0.5)), far)
    inf = _c(float("inf"))
    zero = ir.And(ir.EQ(x, _c(0.0)), ir.EQ(y, _c(0.0)))
    infinite = ir.Or(ir.EQ(ax, inf), ir.EQ(ay, inf))
    nan = ir.Or(is_nan(x), is_nan(y))
    real = ir.Select(zero, _c(-float("inf")),
                     ir.Select(infinite, inf, ir.Select(nan, _c(float("nan")), real)))
    imag = _call("atan2", y, x)
    out = C.make(cx, cast_node(t, real), cast_node(t, imag), ty, v.risky)
    if python:
        ok = ir.Not(zero)
        out = C.ComplexVal(cx, cx.guard(out.re, ok, "ValueError", "math domain error"),
                           cx.guard(out.im, ok, "ValueError", "math domain error"), ty)
    return out


C.FUNCTIONS[np.log] = log
