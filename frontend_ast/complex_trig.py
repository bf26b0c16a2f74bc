"""Sine and cosine of complex values: np.sin / np.cos as glibc's csin and
ccos (= ccosh(i z)) compute them (what NumPy calls), cmath.sin / cmath.cos
as CPython's c_sin (-i sinh(i z)) and c_cos (cosh(i z)), in float64
(complex64 rounded once at the end).

Finite z = x + iy: sin z = (sin x cosh y, cos x sinh y), cos z = (cos x
cosh y, -sin x sinh y). Past |y| > 709 glibc scales by exp(709) (up to
twice, DBL_MAX beyond) and CPython computes with cosh/sinh(|y| - 1) * e.
Non-finite parts: glibc's branches (C99 Annex G), CPython's special-value
tables (cosh_special_values, sinh_special_values of cmathmodule.c), its
ValueError where the argument of cosh / sinh has an infinite imaginary part
and a real part that is not NaN, and its OverflowError where finite parts
give an infinite result."""
from __future__ import annotations

import math

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node

from . import complex_values as C
from .convert import fabs, is_nan

_F64 = ir.Float(64)
_T = 709                                      # (DBL_MAX_EXP - 1) * log 2, truncated
_LOG_LARGE = math.log(float(np.finfo(np.float64).max) / 4)     # CPython's CM_LOG_LARGE_DOUBLE
INF, NAN = float("inf"), float("nan")


def _c(v):
    return ir.Const(_F64, v)


def _call(name, *args):
    return ir.Call(_F64, name, args, ir.INTRINSIC)


def _sel(*pairs_and_default):
    """select(c1, v1, select(c2, v2, ... default))."""
    *pairs, out = pairs_and_default
    for cond, v in reversed(pairs):
        out = ir.Select(cond, v, out)
    return out


def _minus(x):
    """-x (the sign bit flipped, also of zeros)."""
    return ir.Mul(x, _c(-1.0))


def _finite(x):
    return ir.LT(fabs(x), _c(INF))


def _neg(x):
    """x's sign bit."""
    return ir.LT(_call("copysign", _c(1.0), x), _c(0.0))


def _sincos(x):
    return _call("sin", x), _call("cos", x)


def _scaled(big, a, b):
    """glibc's (cosh |v| * a, sinh |v| * b) for |v| = big > 709: exp(709)
    scaled in up to twice, DBL_MAX past 3 * 709."""
    exp_t = _call("exp", _c(float(_T)))
    big = ir.Sub(big, _c(float(_T)))
    a, b = ir.Mul(a, ir.Div(exp_t, _c(2.0))), ir.Mul(b, ir.Div(exp_t, _c(2.0)))
    twice = ir.GT(big, _c(float(_T)))
    big = ir.Select(twice, ir.Sub(big, _c(float(_T))), big)
    a, b = ir.Select(twice, ir.Mul(a, exp_t), a), ir.Select(twice, ir.Mul(b, exp_t), b)
    over = ir.GT(big, _c(float(_T)))
    top = _c(float(np.finfo(np.float64).max))
    e = _call("exp", big)
    return ir.Select(over, ir.Mul(top, a), ir.Mul(e, a)), \
        ir.Select(over, ir.Mul(top, b), ir.Mul(e, b))


def glibc_sin(x, y):
    """glibc's csin(x + iy) (float64 nodes)."""
    neg = _neg(x)
    ax = fabs(x)
    s, c = _sincos(ax)
    s = ir.Select(neg, _minus(s), s)
    # finite x and y
    big = ir.GT(fabs(y), _c(float(_T)))
    sr, si = _scaled(fabs(y), s, ir.Select(_neg(y), _minus(c), c))
    fin_re = ir.Select(big, sr, ir.Mul(_call("cosh", y), s))
    fin_im = ir.Select(big, si, ir.Mul(_call("sinh", y), c))
    y_fin, x_fin = _finite(y), _finite(x)
    x_zero, y_zero = ir.EQ(x, _c(0.0)), ir.EQ(y, _c(0.0))
    signed_zero = _call("copysign", _c(0.0), x)
    inf_re = _call("copysign", _c(INF), s)
    inf_im = ir.Select(_neg(y), _minus(_call("copysign", _c(INF), c)),
                       _call("copysign", _c(INF), c))
    re = _sel((ir.And(y_fin, x_fin), fin_re), (y_fin, _c(NAN)),
              (ir.Not(is_nan(y)), _sel((x_zero, signed_zero), (x_fin, inf_re), _c(NAN))),
              ir.Select(x_zero, signed_zero, _c(NAN)))
    im = _sel((ir.And(y_fin, x_fin), fin_im), (y_fin, ir.Select(y_zero, y, _c(NAN))),
              (ir.Not(is_nan(y)), _sel((x_zero, y), (x_fin, inf_im), _c(INF))),
              _c(NAN))
    return re, im


def glibc_cosh(x, y):
    """glibc's ccosh(x + iy) (float64 nodes)."""
    s, c = _sincos(y)
    x_fin, y_fin = _finite(x), _finite(y)
    big = ir.GT(fabs(x), _c(float(_T)))
    cr, sr = _scaled(fabs(x), c, ir.Select(_neg(x), _minus(s), s))
    fin_re = ir.Select(big, cr, ir.Mul(_call("cosh", x), c))
    fin_im = ir.Select(big, sr, ir.Mul(_call("sinh", x), s))
    x_zero, y_zero = ir.EQ(x, _c(0.0)), ir.EQ(y, _c(0.0))
    x_inf = ir.EQ(fabs(x), _c(INF))
    sign_x = _call("copysign", _c(1.0), x)
    re = _sel((ir.And(x_fin, y_fin), fin_re), (x_fin, _c(NAN)),
              (x_inf, _sel((ir.And(y_fin, ir.Not(y_zero)), _call("copysign", _c(INF), c)),
                           _c(INF))),
              _c(NAN))
    im = _sel((ir.And(x_fin, y_fin), fin_im), (x_fin, ir.Select(x_zero, _c(0.0), _c(NAN))),
              (x_inf, _sel((ir.And(y_fin, ir.Not(y_zero)),
                            ir.Mul(_call("copysign", _c(INF), s), sign_x)),
                           (y_zero, ir.Mul(y, sign_x)), _c(NAN))),
              ir.Select(y_zero, y, _c(NAN)))
    return re, im


# CPython's special-value tables: rows by the real part's kind, columns by the
# imaginary part's (-inf, negative, -0, +0, positive, +inf, NaN); None: computed
_N, _U = NAN, None
_COSH = [[(INF, _N), _U, (INF, 0.), (INF, -0.), _U, (INF, _N), (INF, _N)],
         [(_N, _N), _U, _U, _U, _U, (_N, _N), (_N, _N)],
         [(_N, 0.), _U, (1., 0.), (1., -0.), _U, (_N, 0.), (_N, 0.)],
         [(_N, 0.), _U, (1., -0.), (1., 0.), _U, (_N, 0.), (_N, 0.)],
         [(_N, _N), _U, _U, _U, _U, (_N, _N), (_N, _N)],
         [(INF, _N), _U, (INF, -0.), (INF, 0.), _U, (INF, _N), (INF, _N)],
         [(_N, _N), (_N, _N), (_N, 0.), (_N, 0.), (_N, _N), (_N, _N), (_N, _N)]]
_SINH = [[(INF, _N), _U, (-INF, -0.), (-INF, 0.), _U, (INF, _N), (INF, _N)],
         [(_N, _N), _U, _U, _U, _U, (_N, _N), (_N, _N)],
         [(0., _N), _U, (-0., -0.), (-0., 0.), _U, (0., _N), (0., _N)],
         [(0., _N), _U, (0., -0.), (0., 0.), _U, (0., _N), (0., _N)],
         [(_N, _N), _U, _U, _U, _U, (_N, _N), (_N, _N)],
         [(INF, _N), _U, (INF, -0.), (INF, 0.), _U, (INF, _N), (INF, _N)],
         [(_N, _N), (_N, _N), (_N, -0.), (_N, 0.), (_N, _N), (_N, _N), (_N, _N)]]


def _kinds(v):
    """CPython's special_type of v: one condition per kind."""
    fin, neg, zero = _finite(v), _neg(v), ir.EQ(v, _c(0.0))
    nonzero = ir.And(fin, ir.Not(zero))
    return [ir.EQ(v, _c(-INF)), ir.And(nonzero, neg), ir.And(zero, neg),
            ir.And(zero, ir.Not(neg)), ir.And(nonzero, ir.Not(neg)), ir.EQ(v, _c(INF)),
            is_nan(v)]


def python_hyperbolic(x, y, sinh: bool):
    """CPython's c_sinh / c_cosh of x + iy: (re, im, domain error, range
    error) nodes."""
    s, c = _call("sin", y), _call("cos", y)
    large = ir.GT(fabs(x), _c(_LOG_LARGE))
    xm1 = ir.Sub(x, _call("copysign", _c(1.0), x))
    e = _c(math.e)
    f_main, f_other = ("sinh", "cosh") if sinh else ("cosh", "sinh")
    re_fin = ir.Select(large, ir.Mul(ir.Mul(c, _call(f_main, xm1)), e),
                       ir.Mul(c, _call(f_main, x)))
    im_fin = ir.Select(large, ir.Mul(ir.Mul(s, _call(f_other, xm1)), e),
                       ir.Mul(s, _call(f_other, x)))
    inf_c, inf_s = _call("copysign", _c(INF), c), _call("copysign", _c(INF), s)
    pos = ir.GT(x, _c(0.0))
    if sinh:
        re_inf = ir.Select(pos, inf_c, _minus(inf_c))
        im_inf = inf_s
    else:
        re_inf = inf_c
        im_inf = ir.Select(pos, inf_s, _minus(inf_s))
    table = _SINH if sinh else _COSH
    rows, cols = _kinds(x), _kinds(y)
    re_sp, im_sp = _c(NAN), _c(NAN)
    for i, row in enumerate(table):
        for j, entry in enumerate(row):
            if entry is not None:
                hit = ir.And(rows[i], cols[j])
                re_sp = ir.Select(hit, _c(entry[0]), re_sp)
                im_sp = ir.Select(hit, _c(entry[1]), im_sp)
    x_inf = ir.EQ(fabs(x), _c(INF))
    y_fin = _finite(y)
    inf_case = ir.And(x_inf, ir.And(y_fin, ir.Not(ir.EQ(y, _c(0.0)))))
    finite = ir.And(_finite(x), y_fin)
    re = _sel((finite, re_fin), (inf_case, re_inf), re_sp)
    im = _sel((finite, im_fin), (inf_case, im_inf), im_sp)
    domain = ir.And(ir.EQ(fabs(y), _c(INF)), ir.Not(is_nan(x)))
    rng = ir.And(finite, ir.Or(ir.EQ(fabs(re), _c(INF)), ir.EQ(fabs(im), _c(INF))))
    return re, im, domain, rng


def sin_cos(cx, v, ty, cos: bool, python=False):
    """sin(z) or cos(z) of a complex value (np.sin / np.cos, or cmath's when
    `python`)."""
    re, im = C.nodes(cx, v, ty)
    t = re.type
    x, y = cast_node(_F64, re), cast_node(_F64, im)
    minus_y = _minus(y)        # i z = -y + ix
    domain = rng = None
    if not python:
        out_re, out_im = glibc_cosh(minus_y, x) if cos else glibc_sin(x, y)
    elif cos:
        out_re, out_im, domain, rng = python_hyperbolic(minus_y, x, sinh=False)
    else:
        r_re, r_im, domain, rng = python_hyperbolic(minus_y, x, sinh=True)
        out_re, out_im = r_im, _minus(r_re)       # sin z = -i sinh(i z)
    out = C.make(cx, cast_node(t, out_re), cast_node(t, out_im), ty, v.risky)
    if python:
        for ok, exc, msg in ((ir.Not(domain), "ValueError", "math domain error"),
                             (ir.Not(rng), "OverflowError", "math range error")):
            out = C.ComplexVal(cx, cx.guard(out.re, ok, exc, msg),
                               cx.guard(out.im, ok, exc, msg), ty)
    return out


C.FUNCTIONS[np.sin] = lambda cx, z, rt: sin_cos(cx, z, rt, cos=False)
C.FUNCTIONS[np.cos] = lambda cx, z, rt: sin_cos(cx, z, rt, cos=True)
