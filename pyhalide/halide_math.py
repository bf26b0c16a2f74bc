"""Halide 21's remaining math functions (IROperator.h) with its Python names:

    asinh  acosh  atanh  erf

asinh/acosh/atanh are C's float64 functions, float32 and float16 results
rounded once from the float64 value (Halide calls C's asinhf etc. for
float32: within its 1-2 ulp of these). Integer arguments become Float(32),
as Halide's.

erf is Halide's own approximation (halide_erf in IROperator.cpp), built
from the same float32 operations in the same order, so its result equals
Halide's wherever Halide does not contract a multiply and an add into an
FMA (Halide allows that contraction; pyhalide never does), NaN for
|x| >= ~2^64 and +-inf included (inf - inf in the polynomial), as Halide's.
"""
from __future__ import annotations

import numpy as np

from . import ir
from .expr import Expr, cast_node, intrinsic, math_function, to_node

__all__ = ["asinh", "acosh", "atanh", "erf"]


asinh = math_function("asinh")
acosh = math_function("acosh")
atanh = math_function("atanh")

# halide_erf's coefficients: 1 - P1(x)^-16 for |x| > 1, x P2(x^2) below
_ERF_LARGE = (0.0000818502, -0.0000026500, 0.0009353904, 0.0081960206, 0.0430054424,
              0.0703310579, 1.0)
_ERF_SMALL = (-0.0005553339, 0.0048937243, -0.0266849239, 0.1127890132, -0.3761207240,
              1.1283789803)


def _c(t: ir.Type, v: float) -> ir.Expr:
    c = ir.Const(t.element_of(), float(np.float32(v)))
    return c if t.lanes == 1 else cast_node(t, c)


def _polynomial(x: ir.Expr, coeffs) -> ir.Expr:
    """Halide's evaluate_polynomial: even and odd coefficients (highest power
    first) in x^2 by Horner, then combined with one multiply by x."""
    t = x.type
    x2 = ir.Mul(x, x)
    even, odd = _c(t, coeffs[0]), _c(t, coeffs[1])
    for i in range(2, len(coeffs)):
        if i % 2 == 0:
            even = ir.Mul(even, x2) if coeffs[i] == 0.0 else ir.Add(ir.Mul(even, x2), _c(t, coeffs[i]))
        else:
            odd = ir.Mul(odd, x2) if coeffs[i] == 0.0 else ir.Add(ir.Mul(odd, x2), _c(t, coeffs[i]))
    if len(coeffs) % 2 == 0:
        return ir.Add(ir.Mul(even, x), odd)
    return ir.Add(ir.Mul(odd, x), even)


def erf(e) -> Expr:
    """Halide's erf approximation of a Float(32) Expr (Halide refuses other
    types: a TypeError here)."""
    xf = to_node(e)
    t = xf.type
    if t.element_of() != ir.Float(32):
        raise TypeError(f"erf only takes Float(32) arguments (as Halide's), not {t}")
    sign = ir.Select(ir.LT(xf, _c(t, 0.0)), _c(t, -1.0), _c(t, 1.0))
    x = intrinsic("abs", t, xf)
    p = _polynomial(x, _ERF_LARGE)
    for _ in range(4):                               # p^16 by squaring, as Halide's pow(p, -16)
        p = ir.Mul(p, p)
    large = ir.Sub(_c(t, 1.0), ir.Div(_c(t, 1.0), p))
    small = ir.Mul(_polynomial(ir.Mul(x, x), _ERF_SMALL), x)
    y = ir.Select(ir.GT(x, _c(t, 1.0)), large, small)
    return Expr.wrap(ir.Mul(sign, y))
