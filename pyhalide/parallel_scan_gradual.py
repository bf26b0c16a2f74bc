"""A float affine scan's composed multiplier without subnormal arithmetic.

The local scans of a linear recurrence `s = a * s + b` (parallel_scan_forms,
form 3) compose each chunk's map x -> A * x + B, A the running product of
the multipliers. With |a| < 1 that product leaves the normal range within a
few thousand points and then stays subnormal: with a in [0.5, 1) it sticks
at the smallest subnormal (a * 2^-1074 rounds back to 2^-1074), so every
further multiplication of the chunk takes a subnormal operand and result,
which Intel CPUs run through a microcode assist (~100 cycles): the float64
linear recurrence of 2^24 points ran 2x slower than the serial loop.

This lift computes exactly the same A, bit for bit, without subnormal
operands or results after the one step that leaves the normal range: a
state (A, T, B) stands for the map with multiplier

    A                 when A != 0 (A normal, or inf or NaN, or a subnormal
                      multiplier read from the input),
    T * 2^emin        when A == 0: T, with |T| <= 1, is the multiplier
                      scaled into the normal range (a zero multiplier is
                      a T of that zero's sign).

(emin is the exponent of the smallest normal number: -1022 for float64,
-126 for float32.) Below 2^emin IEEE multiplication rounds the exact product
to a multiple of the smallest subnormal, 2^(emin - p) with p the fraction
bits; scaled, to a multiple of 2^-p. For |T * a| < 1 that rounding is
`fma(T, a, s) - s` with s = copysign(1, T * a): the exact sum lies in
[1, 2) (or its negative), whose spacing is 2^-p, and s is an even multiple
of it, so ties go to even as IEEE's rounding does; copysign gives a zero
result the product's sign. For |T * a| >= 1 the product is normal and
rounding commutes with the scaling: A = fl(T * a) * 2^emin (no overflow:
|T| <= 1). Every operation is computed on both paths (selects), so the
operands of the path not taken are made harmless (zeros) rather than
subnormal. Only the step that leaves the normal range, and reading the
multiplier at a chunk's end (`apply`, once per chunk), compute subnormals."""
from __future__ import annotations

from . import ir
from .parallel_scan_forms import AffineLift

_EMIN = {32: -126, 64: -1022}


def gradual_affine(scan, a, b) -> AffineLift:
    """The lift of form 3 for float32 and float64 scans (GradualAffineLift),
    the plain AffineLift otherwise."""
    t = scan.xs[0].type
    if t.is_float() and t.bits in _EMIN:
        return GradualAffineLift(scan, a, b)
    return AffineLift(scan, a, b)


def _consts(t):
    e = _EMIN[t.bits]
    return ir.Const(t, 2.0 ** e), ir.Const(t, 2.0 ** -e), ir.Const(t, 0.0), ir.Const(t, 1.0)


def _call(t, name, *args):
    return ir.Call(t, name, tuple(args), ir.INTRINSIC)


def times(A, T, a) -> tuple:
    """(A, T) of the multiplier (A, T) times a (see the module docstring)."""
    t = a.type
    tiny, huge, zero, unit = _consts(t)
    p = ir.Mul(A, a)                        # A's path (0 on T's)
    p_small = ir.LT(_call(t, "abs", p), tiny)
    x = ir.Mul(T, a)                        # T's path (0 on A's)
    x_small = ir.LT(_call(t, "abs", x), unit)
    s = _call(t, "copysign", unit, x)
    rounded = _call(t, "copysign", ir.Sub(_call(t, "fma", T, a, s), s), x)
    on_a = ir.NE(A, zero)
    # the harmless operand of a scaling on the path not taken: A * T is a
    # zero (or NaN) on both paths; a constant zero would let LLVM move the
    # multiplication into the select's other arm, computed always
    z = ir.Mul(A, T)
    new_a = ir.Select(on_a, ir.Select(p_small, zero, p),
                      ir.Mul(ir.Select(x_small, z, x), tiny))
    new_t = ir.Select(on_a, ir.Mul(ir.Select(p_small, p, z), huge),
                      ir.Select(x_small, rounded, zero))
    return new_a, new_t


def value(A, T):
    """The multiplier (A, T) as one number (subnormal where it is)."""
    tiny, _, zero, _ = _consts(A.type)
    return ir.Select(ir.NE(A, zero), A, ir.Mul(T, tiny))


class GradualAffineLift(AffineLift):
    """Form 3 with the multiplier as (A, T) (see the module docstring)."""

    def __init__(self, scan, a, b):
        super().__init__(scan, a, b)
        self.types = self.types + self.types[:1]

    def first(self, q):
        a, b = super().first(q)
        A, T = times(ir.one(a.type), ir.zero(a.type), a)
        return (A, T, b)

    def step(self, s, q):
        a, b = super().first(q)
        A, T = times(s[0], s[1], a)
        return (A, T, ir.Add(ir.Mul(a, s[2]), b))

    def apply(self, x, s):
        return (ir.Add(ir.Mul(value(s[0], s[1]), x[0]), s[2]),)
