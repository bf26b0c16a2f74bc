"""Complex scalars: Python complex, numpy.complex64 and numpy.complex128.

The IR has no complex type. A complex value is a ComplexVal: a pair of
float Vals (`re`, `im`) of the complex type's part type (types.Ty.part():
Python float for Python complex, float32 for complex64, float64 for
complex128). Every operation is written on the parts, as plain Python
(both operands Python scalars) or NumPy (any NumPy operand) computes it:

  + -      exact: the parts added / subtracted (a real operand is the complex
           value (x, 0.0), as both convert it)
  *        (ar*br - ai*bi, ar*bi + ai*br): unfused for Python and NumPy
           scalars; for elements of NumPy array code (`fused`: NumPy's array
           loop computes fma(ar, br, -(ai*bi)), fma(ar, bi, ai*br)) fused the
           same way
  /        NumPy: Smith's algorithm as NumPy's loop writes it (a reciprocal
           scale); Python: CPython's _Py_c_quot, ZeroDivisionError for 0j
  **       constant integer exponents: NumPy's nc_pow / CPython's c_powi
           (repeated squaring; the special cases of 0 and of n = 0, 1, 2, 3)
  abs      builtin abs(): glibc's hypot of the parts; np.abs: NumPy's
           vector loop (larger * sqrt(fma(r, r, 1)), r = smaller / larger)
  == !=    on both parts; < <= > >= NumPy's lexicographic order (Python
           complex refuses them)
  exp sqrt np.exp / np.sqrt as glibc's cexp / csqrt, cmath.exp / cmath.sqrt
           as CPython's (special values, ValueError, OverflowError)

A ComplexVal has no IR node: code that needs one (an operation not written
for complex values) raises a located CompileError naming the operation
through the `node` property. Arrays of complex values: array_complex.py."""
from __future__ import annotations

import cmath
import operator
import sys

import numpy as np

from pyhalide import ir
from pyhalide.expr import cast_node

from . import types as T
from . import unions
from .convert import cast_to as real_cast_to
from .convert import convert as real_convert
from .convert import fabs, is_nan
from .types import PY_BOOL, UnsupportedType
from .values import NO_CONST, Val, const_val, node_of

COMPLEX_HINT = ("complex values compile in arithmetic, abs(), .real/.imag, comparisons, "
                "arrays and loop variables that are complex before the loop (z = 0j)")

_PYOP = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
         "**": operator.pow, "<": operator.lt, "<=": operator.le, ">": operator.gt,
         ">=": operator.ge, "==": operator.eq, "!=": operator.ne, "//": operator.floordiv,
         "%": operator.mod}


class ComplexVal(Val):
    """A complex scalar: its parts `re` and `im` (float Vals of ty.part());
    `fused`: an element of NumPy array code (its products fuse as NumPy's
    array loops do)."""

    __slots__ = ("re", "im", "cx", "fused")

    def __init__(self, cx, re: Val, im: Val, ty, static=None, const=NO_CONST, fused=False):
        self.cx, self.re, self.im, self.ty, self.fused = cx, re, im, ty, fused
        self.lo = self.hi = None
        self.lbs, self.ubs = [], []
        self.facts = self.origin = self.union = None
        self.risky = re.risky or im.risky
        if static is None and re.is_static and im.is_static:
            fr, fi = re.static, im.static
            static = lambda env: ty.python_value(complex(fr(env), fi(env)))  # noqa: E731
        self.static = static
        if const is NO_CONST and re.is_const and im.is_const:
            const = ty.python_value(complex(re.const, im.const))
        self.const = const

    @property
    def node(self):
        raise self.cx.error("this operation is not supported on complex values",
                            hint="compute with the parts: z.real, z.imag, abs(z)")

    @node.setter
    def node(self, value):
        raise self.cx.error("this operation is not supported on complex values")

    def map_parts(self, fn):
        """The complex value whose parts are fn(re) and fn(im)."""
        return ComplexVal(self.cx, fn(self.re), fn(self.im), self.ty, fused=self.fused)

    def choose(self, cx, cond, other, lazy=None):
        """`self if cond else other` (unions.choose of complex values)."""
        return select(cx, cond, self, other, lazy)

    def __repr__(self):
        return f"<ComplexVal {self.ty!r} {self.re!r} {self.im!r}>"


def is_complex(v) -> bool:
    return isinstance(v, Val) and not v.union and v.ty.is_complex()


def involves(*items) -> bool:
    """Whether any of the values (or types) is complex."""
    return any((isinstance(x, T.Ty) and x.is_complex()) or is_complex(x) for x in items)


def constant(cx, c) -> ComplexVal:
    """A complex compile-time constant (Python complex or NumPy complex)."""
    ty = T.of_value(c)
    pt = ty.part()
    return ComplexVal(cx, const_val(pt.python_value(c.real)), const_val(pt.python_value(c.imag)),
                      ty, static=lambda env: c, const=c)


def make(cx, re, im, ty, risky=False, fused=False) -> ComplexVal:
    """A complex value of type ty from two part nodes (or Vals)."""
    pt = ty.part()
    r = re if isinstance(re, Val) else Val(re, pt, risky=risky)
    i = im if isinstance(im, Val) else Val(im, pt, risky=risky)
    return ComplexVal(cx, r, i, ty, fused=fused)


def is_fused(*vals) -> bool:
    return any(getattr(v, "fused", False) for v in vals)


def _part_as(cx, v: Val, pt) -> Val:
    if v.ty == pt:
        return v
    return real_convert(cx, v, pt) if pt.weak or v.ty.weak else real_cast_to(cx, v, pt)


def parts(cx, v: Val, ty):
    """(re, im) of v converted to complex type ty: a real value is (v, 0)."""
    pt = ty.part()
    if is_complex(v):
        return _part_as(cx, v.re, pt), _part_as(cx, v.im, pt)
    if v.ty.is_bool() or v.ty.kind == "int":
        v = real_cast_to(cx, v, T.PY_FLOAT) if v.ty.weak else v
    return _part_as(cx, v, pt), _zero(pt)


def _zero(pt) -> Val:
    return const_val(pt.python_value(0.0))


def nodes(cx, v: Val, ty):
    re, im = parts(cx, v, ty)
    return _node(cx, re), _node(cx, im)


def _node(cx, v: Val):
    return node_of(cx, v)


@unions.over_alternatives
def cast(cx, v: Val, ty) -> Val:
    """v as type ty, where v or ty is complex: NumPy's casts (complex ->
    real keeps the real part, as NumPy does with its ComplexWarning)."""
    if v.ty == ty:
        return v
    if ty.is_complex():
        re, im = parts(cx, v, ty)
        return ComplexVal(cx, re, im, ty, fused=is_fused(v))
    if ty.weak and ty.kind != "complex":
        raise cx.error(f"cannot convert a {v.ty.describe()} to {ty.describe()}",
                       hint="take the part you need: z.real, z.imag or abs(z)")
    return real_cast_to(cx, v.re, ty)


def builtin_complex(cx, re=None, im=None) -> Val:
    """complex(), complex(x), complex(re, im) of real re and im."""
    if re is None:
        return constant(cx, 0j)
    if im is None:
        return cast(cx, re, T.PY_COMPLEX)
    if is_complex(re) or is_complex(im):
        raise cx.error("complex(re, im) of complex arguments is not supported",
                       hint="write re + im * 1j")
    return ComplexVal(cx, real_convert(cx, re, T.PY_FLOAT), real_convert(cx, im, T.PY_FLOAT),
                      T.PY_COMPLEX)


def truth(cx, v: Val) -> Val:
    """bool(z): z != 0."""
    re, im = _node(cx, v.re), _node(cx, v.im)
    zero = ir.Const(re.type, 0.0)
    return Val(ir.Or(ir.NE(re, zero), ir.NE(im, zero)), PY_BOOL, risky=v.risky)


# arithmetic -----------------------------------------------------------------------------
def result_type(cx, op, a: Val, b: Val):
    try:
        return T.result_type(_PYOP[op], a.ty, b.ty)
    except (UnsupportedType, KeyError) as e:
        raise cx.error(f"unsupported operand types for {op}: {a.ty.describe()} and "
                       f"{b.ty.describe()}" + (f" ({e})" if isinstance(e, UnsupportedType)
                                               else ""),
                       hint="complex values support + - * / ** and == !=") from None


@unions.over_alternatives
def binary(cx, op: str, a: Val, b: Val) -> Val:
    """a op b where a or b is complex."""
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return compare(cx, op, a, b)
    if op not in ("+", "-", "*", "/", "**"):
        result_type(cx, op, a, b)     # raises NumPy's / Python's refusal
        raise cx.error(f"the operator {op} is not supported on complex values")
    rt = result_type(cx, op, a, b)
    python = a.ty.weak and b.ty.weak
    if a.is_const and b.is_const and op != "/" and op != "**":
        return constant(cx, _PYOP[op](a.const, b.const))
    if op == "**":
        return power(cx, a, b, rt, python)
    (ar, ai), (br, bi) = nodes(cx, a, rt), nodes(cx, b, rt)
    risky, fused = a.risky or b.risky, is_fused(a, b)
    if op == "+":
        return make(cx, ir.Add(ar, br), ir.Add(ai, bi), rt, risky, fused)
    if op == "-":
        return make(cx, ir.Sub(ar, br), ir.Sub(ai, bi), rt, risky, fused)
    if op == "*":
        return make(cx, *_mul((ar, ai), (br, bi), fused), rt, risky, fused)
    if python:
        out = make(cx, *_python_quot((ar, ai), (br, bi)), rt, risky)
        zero = ir.Const(br.type, 0.0)
        return _guard(cx, out, ir.Or(ir.NE(br, zero), ir.NE(bi, zero)), "ZeroDivisionError",
                      "complex division by zero")
    return make(cx, *_numpy_quot((ar, ai), (br, bi)), rt, risky, fused)


def _mul(a, b, fused=False):
    """The parts of a * b; `fused`: as NumPy's array loop, with FMA."""
    (ar, ai), (br, bi) = a, b
    if fused:
        t = ar.type

        def fma(x, y, z):
            return ir.Call(t, "fma", (x, y, z), ir.INTRINSIC)
        return (fma(ar, br, ir.Mul(ir.Mul(ai, bi), ir.Const(t, -1.0))),
                fma(ar, bi, ir.Mul(ai, br)))
    return ir.Sub(ir.Mul(ar, br), ir.Mul(ai, bi)), ir.Add(ir.Mul(ar, bi), ir.Mul(ai, br))


def reciprocal(cx, v: Val) -> Val:
    """1 / z as NumPy's reciprocal loop computes it (`array ** -1`)."""
    re, im = _node(cx, v.re), _node(cx, v.im)
    t = re.type
    one, m1 = ir.Const(t, 1.0), ir.Const(t, -1.0)
    r1 = ir.Div(im, re)
    d1 = ir.Add(re, ir.Mul(im, r1))
    r2 = ir.Div(re, im)
    d2 = ir.Add(ir.Mul(re, r2), im)
    first = ir.LE(fabs(im), fabs(re))
    return make(cx, ir.Select(first, ir.Div(one, d1), ir.Div(r2, d2)),
                ir.Select(first, ir.Div(ir.Mul(r1, m1), d1), ir.Div(m1, d2)), v.ty, v.risky,
                v.fused)


def _numpy_quot(a, b):
    """NumPy's complex division loop (Smith's algorithm, scaled by a
    reciprocal; a zero divisor divides the parts by |br|)."""
    (ar, ai), (br, bi) = a, b
    t = br.type

    def c(x):
        return ir.Const(t, x)
    abs_r, abs_i = fabs(br), fabs(bi)
    rat1 = ir.Div(bi, br)
    scl1 = ir.Div(c(1.0), ir.Add(br, ir.Mul(bi, rat1)))
    re1 = ir.Mul(ir.Add(ar, ir.Mul(ai, rat1)), scl1)
    im1 = ir.Mul(ir.Sub(ai, ir.Mul(ar, rat1)), scl1)
    both_zero = ir.And(ir.EQ(abs_r, c(0.0)), ir.EQ(abs_i, c(0.0)))
    re1 = ir.Select(both_zero, ir.Div(ar, abs_r), re1)
    im1 = ir.Select(both_zero, ir.Div(ai, abs_r), im1)
    rat2 = ir.Div(br, bi)
    scl2 = ir.Div(c(1.0), ir.Add(bi, ir.Mul(br, rat2)))
    re2 = ir.Mul(ir.Add(ir.Mul(ar, rat2), ai), scl2)
    im2 = ir.Mul(ir.Sub(ir.Mul(ai, rat2), ar), scl2)
    first = ir.GE(abs_r, abs_i)
    return ir.Select(first, re1, re2), ir.Select(first, im1, im2)


def _python_quot(a, b):
    """CPython's _Py_c_quot (a zero divisor raises before: binary's guard;
    a NaN in the divisor that neither comparison orders gives NaNs)."""
    (ar, ai), (br, bi) = a, b
    t = br.type
    abs_r, abs_i = fabs(br), fabs(bi)
    rat1 = ir.Div(bi, br)
    den1 = ir.Add(br, ir.Mul(bi, rat1))
    re1 = ir.Div(ir.Add(ar, ir.Mul(ai, rat1)), den1)
    im1 = ir.Div(ir.Sub(ai, ir.Mul(ar, rat1)), den1)
    rat2 = ir.Div(br, bi)
    den2 = ir.Add(ir.Mul(br, rat2), bi)
    re2 = ir.Div(ir.Add(ir.Mul(ar, rat2), ai), den2)
    im2 = ir.Div(ir.Sub(ir.Mul(ai, rat2), ar), den2)
    nan = ir.Const(t, float("nan"))
    first, second = ir.GE(abs_r, abs_i), ir.GE(abs_i, abs_r)
    return (ir.Select(first, re1, ir.Select(second, re2, nan)),
            ir.Select(first, im1, ir.Select(second, im2, nan)))


def _guard(cx, v: ComplexVal, cond, exc, msg) -> ComplexVal:
    return ComplexVal(cx, cx.guard(v.re, cond, exc, msg), cx.guard(v.im, cond, exc, msg), v.ty)


def power(cx, a: Val, b: Val, rt, python: bool) -> Val:
    """a ** b for a constant integer exponent b (real, or complex with a
    zero imaginary part): NumPy's nc_pow (array loop) / npy_cpow (scalars)
    or CPython's c_powi."""
    k = b.const if b.is_const else None
    if isinstance(k, (complex, np.complexfloating)):
        k = k.real if k.imag == 0 else None
    n = int(k) if k is not None and not isinstance(k, (bool, np.bool_)) and \
        float(k) == int(k) and abs(int(k)) < 100 else None
    if n is None:
        raise cx.error("a complex power needs a constant integer exponent (|n| < 100)",
                       hint="write the exponent as an integer literal (z ** 2), or "
                            "multiply: z * z * z")
    ar, ai = nodes(cx, a, rt)
    t = ar.type
    one, zero = ir.Const(t, 1.0), ir.Const(t, 0.0)
    if n == 0:
        return make(cx, one, zero, rt, a.risky)
    out = _powu((ar, ai), abs(n), one, zero, numpy=not python)
    if n < 0:       # NumPy's array loop (nc_pow) divides naively, its scalars as `/`
        quot = _python_quot if python else _naive_quot if is_fused(a) else _numpy_quot
        out = quot((one, zero), out)
    re, im = out
    if python:
        v = make(cx, re, im, rt, a.risky)
        if n < 0:
            v = _guard(cx, v, ir.Or(ir.NE(ar, zero), ir.NE(ai, zero)), "ZeroDivisionError",
                       "0.0 to a negative or complex power")
        inf = ir.Const(t, float("inf"))
        finite = ir.And(ir.NE(fabs(v.re.node), inf), ir.NE(fabs(v.im.node), inf))
        return _guard(cx, v, finite, "OverflowError", "complex exponentiation")
    # NumPy: 0 ** n is 0 for n > 0 and NaN for n < 0
    is_zero = ir.And(ir.EQ(ar, zero), ir.EQ(ai, zero))
    z = zero if n > 0 else ir.Const(t, float("nan"))
    return make(cx, ir.Select(is_zero, z, re), ir.Select(is_zero, z, im), rt, a.risky)


def _powu(a, n, one, zero, numpy: bool):
    """a ** n, n > 0, by the products NumPy's nc_pow (numpy) or CPython's
    c_powu make."""
    if numpy and n == 1:
        return a
    if numpy and n == 2:
        return _mul(a, a)
    if numpy and n == 3:
        return _mul(a, _mul(a, a))
    r, p, mask = (one, zero), a, 1
    while True:
        if n & mask:
            r = _mul(r, p)
        mask <<= 1
        if n < mask:
            return r
        p = _mul(p, p)


def _naive_quot(a, b):
    """NumPy's nc_quot (1 / z**n of a negative power)."""
    (ar, ai), (br, bi) = a, b
    d = ir.Add(ir.Mul(br, br), ir.Mul(bi, bi))
    return (ir.Div(ir.Add(ir.Mul(ar, br), ir.Mul(ai, bi)), d),
            ir.Div(ir.Sub(ir.Mul(ai, br), ir.Mul(ar, bi)), d))


# comparisons -----------------------------------------------------------------------------
@unions.over_alternatives
def compare(cx, op: str, a: Val, b: Val) -> Val:
    """a op b where a or b is complex: == and != on both parts; NumPy orders
    complex values lexicographically (real part first)."""
    rt = result_type(cx, op, a, b)
    ct = T.result_type(operator.add, a.ty, b.ty)
    (ar, ai), (br, bi) = nodes(cx, a, ct), nodes(cx, b, ct)
    risky = a.risky or b.risky
    if op == "==":
        return Val(ir.And(ir.EQ(ar, br), ir.EQ(ai, bi)), rt, risky=risky)
    if op == "!=":
        return Val(ir.Or(ir.NE(ar, br), ir.NE(ai, bi)), rt, risky=risky)
    if op in (">", ">="):
        (ar, ai), (br, bi) = (br, bi), (ar, ai)
    strict = {"<": ir.LT, ">": ir.LT, "<=": ir.LE, ">=": ir.LE}[op]
    node = ir.Or(ir.LT(ar, br), ir.And(ir.EQ(ar, br), strict(ai, bi)))
    return Val(node, rt, risky=risky)


# functions ---------------------------------------------------------------------------------
def negate(cx, v: Val) -> Val:
    re, im = _node(cx, v.re), _node(cx, v.im)
    m1 = ir.Const(re.type, -1.0)
    return make(cx, ir.Mul(re, m1), ir.Mul(im, m1), v.ty, v.risky, v.fused)


def conj(cx, v: Val) -> Val:
    """z.conjugate(): the imaginary part negated (a real value itself)."""
    if not is_complex(v):
        return v
    im = _node(cx, v.im)
    return ComplexVal(cx, v.re, Val(ir.Mul(im, ir.Const(im.type, -1.0)), v.im.ty), v.ty,
                      fused=v.fused)


def real_part(cx, v: Val) -> Val:
    return v.re if is_complex(v) else v


def imag_part(cx, v: Val) -> Val:
    """z.imag; a real value's imaginary part is a zero of its type (as
    Python's and NumPy's .imag)."""
    if is_complex(v):
        return v.im
    if v.ty.weak:
        return const_val(v.ty.python_value(0))
    return const_val(v.ty.dtype.type(0))


def absolute(cx, v: Val, ufunc: bool = False) -> Val:
    """|z|: np.abs (`ufunc`, of arrays and scalars) as NumPy's vector loop
    (_simd_abs); builtin abs() of a scalar as C's hypot of the parts (NumPy
    scalars and Python complex), raising OverflowError for a Python complex
    whose finite parts give an infinite result."""
    re, im = _node(cx, v.re), _node(cx, v.im)
    pt = v.ty.part()
    if ufunc:
        return Val(_simd_abs(re, im), pt, risky=v.risky)
    out = Val(hypot_node(re, im), pt, risky=v.risky)
    if not v.ty.weak:
        return out
    inf = ir.Const(re.type, float("inf"))
    finite_parts = ir.And(ir.LT(fabs(re), inf), ir.LT(fabs(im), inf))
    return cx.guard(out, ir.Or(ir.Not(finite_parts), ir.LT(out.node, inf)), "OverflowError",
                    "absolute value too large")


def _simd_abs(re, im):
    """|z| as NumPy's vector loop computes it: larger * sqrt(fma(ratio,
    ratio, 1)), ratio = smaller / larger; an infinite part gives inf, else
    a NaN part NaN."""
    t = re.type

    def c(v):
        return ir.Const(t, v)
    inf, nan = c(float("inf")), c(float("nan"))
    re, im = fabs(re), fabs(im)
    re_inf, im_inf = ir.EQ(re, inf), ir.EQ(im, inf)
    im = ir.Select(re_inf, inf, im)
    re = ir.Select(im_inf, inf, re)
    re_nan, im_nan = is_nan(re), is_nan(im)
    im = ir.Select(re_nan, nan, im)
    re = ir.Select(im_nan, nan, re)
    larger = ir.Select(ir.GT(re, im), re, im)
    smaller = ir.Select(ir.LT(im, re), im, re)
    divide = ir.Not(ir.Or(ir.EQ(larger, c(0.0)), ir.EQ(smaller, inf)))
    ratio = ir.Select(divide, ir.Div(smaller, larger), c(0.0))
    root = ir.Call(t, "sqrt", (ir.Call(t, "fma", (ratio, ratio, c(1.0)), ir.INTRINSIC),),
                   ir.INTRINSIC)
    return ir.Mul(root, larger)


def hypot_node(x, y):
    """sqrt(x*x + y*y) of two float nodes as glibc's hypot computes it
    (2.35 and later, without FMA; what CPython's complex abs and NumPy's
    scalar abs call): float32 in float64; float64 by a corrected square
    root, scaled by 2**-600 when the larger magnitude is above 2**511, else
    by 2**600 when the smaller is below 2**-459, ax + ay when ay is below
    ax * 2**-54; inf when either is infinite
    (also with a NaN)."""
    t = x.type
    f64 = ir.Float(64)

    def c(v):
        return ir.Const(f64, v)
    a, b = fabs(cast_node(f64, x)), fabs(cast_node(f64, y))
    if t.bits == 32:
        r = ir.Call(f64, "sqrt", (ir.Add(ir.Mul(a, a), ir.Mul(b, b)),), ir.INTRINSIC)
    else:
        ax, ay = ir.Select(ir.LT(a, b), b, a), ir.Select(ir.LT(a, b), a, b)
        large, tiny = ir.GT(ax, c(2.0 ** 511)), ir.LT(ay, c(2.0 ** -459))
        eps = c(2.0 ** -54)
        negligible = ir.Select(ir.And(ir.Not(large), tiny), ir.GE(ax, ir.Div(ay, eps)),
                               ir.LE(ay, ir.Mul(ax, eps)))
        scale_in = ir.Select(large, c(2.0 ** -600), ir.Select(tiny, c(2.0 ** 600), c(1.0)))
        scale_out = ir.Select(large, c(2.0 ** 600), ir.Select(tiny, c(2.0 ** -600), c(1.0)))
        kernel = _hypot_kernel(ir.Mul(ax, scale_in), ir.Mul(ay, scale_in), c)
        r = ir.Select(negligible, ir.Add(ax, ay), ir.Mul(kernel, scale_out))
    inf = c(float("inf"))
    return cast_node(t, ir.Select(ir.Or(ir.EQ(a, inf), ir.EQ(b, inf)), inf, r))


def python_hypot_node(x, y):
    """math.hypot(x, y) of two float64 nodes as this Python computes it
    (mathmodule.c vector_norm for two coordinates, usually correctly rounded;
    glibc's hypot differs in about 0.6% of random pairs; 3.10-3.11 and
    3.12+ differ from each other in rare cases): the larger magnitude m
    scaled into [0.5, 1) by a power of two, the squares summed with 1.0
    as exact parts (3.12: fma and one Neumaier pair; 3.11: Veltkamp's split
    and three), a square root with a differential correction, scaled back.
    For m below 2**-1024, 3.12 divides the parts by DBL_MIN first and
    multiplies the result by it; 3.11 takes m * sqrt of the Neumaier sum of
    (v / m) ** 2. inf when either is infinite (also with a NaN), NaN with a
    NaN, 0.0 for two zeros."""
    f64 = ir.Float(64)

    def c(v):
        return ir.Const(f64, v)
    a, b = fabs(x), fabs(y)
    m = ir.Select(ir.LT(a, b), b, a)
    small = ir.LT(m, c(2.0 ** -1024))
    py312 = sys.version_info >= (3, 12)
    tiny = c(2.0 ** -1022)                  # DBL_MIN
    if py312:
        a, b, m = (ir.Select(small, ir.Div(v, tiny), v) for v in (a, b, m))
    scale = _frexp_scale(m, c)
    parts = [ir.Mul(v, scale) for v in (a, b)]
    r = ir.Div((_norm312 if py312 else _norm311)(parts, c), scale)
    if py312:
        r = ir.Select(small, ir.Mul(tiny, r), r)
    else:
        csum, frac = c(1.0), c(0.0)
        for v in (a, b):
            v = ir.Div(v, m)
            csum, frac = _neumaier(csum, frac, ir.Mul(v, v))
        sub = ir.Mul(m, _sqrt(ir.Add(ir.Sub(csum, c(1.0)), frac)))
        r = ir.Select(small, sub, r)
    r = ir.Select(ir.EQ(m, c(0.0)), c(0.0), r)
    r = ir.Select(ir.Or(is_nan(x), is_nan(y)), c(float("nan")), r)
    inf = c(float("inf"))
    return ir.Select(ir.Or(ir.EQ(fabs(x), inf), ir.EQ(fabs(y), inf)), inf, r)


def _frexp_scale(m, c):
    """ldexp(1.0, -e) for frexp(m) = (f, e), f in [0.5, 1), of a positive
    finite m (at least 2**-1024 where it is used), by halving and doubling
    steps of powers of two (exact)."""
    t, scale = m, c(0.5)
    for k in (512, 256, 128, 64, 32, 16, 8, 4, 2, 1):
        down = ir.GE(t, c(2.0 ** k))
        t = ir.Select(down, ir.Mul(t, c(2.0 ** -k)), t)
        scale = ir.Select(down, ir.Mul(scale, c(2.0 ** -k)), scale)
    for k in (512, 256, 128, 64, 32, 16, 8, 4, 2, 1, 1):
        up = ir.LT(t, c(2.0 ** (1 - k)))
        t = ir.Select(up, ir.Mul(t, c(2.0 ** k)), t)
        scale = ir.Select(up, ir.Mul(scale, c(2.0 ** k)), scale)
    return scale


def _sqrt(v):
    return ir.Call(v.type, "sqrt", (v,), ir.INTRINSIC)


def _neumaier(csum, frac, v):
    """csum += v, its rounding error added to frac (|csum| >= |v|)."""
    total = ir.Add(csum, v)
    return total, ir.Add(frac, ir.Add(ir.Sub(csum, total), v))


def _norm312(parts, c):
    """CPython 3.12's sqrt of the sum of the squares of `parts` (each in
    [0, 1)): dl_mul (fma) and dl_fast_sum, then one differential correction."""
    def fma(p, q, r):
        return ir.Call(p.type, "fma", (p, q, r), ir.INTRINSIC)

    def add_square(state, p, q):
        csum, frac1, frac2 = state
        hi = ir.Mul(p, q)
        lo = fma(p, q, ir.Sub(c(0.0), hi))
        total = ir.Add(csum, hi)
        low = ir.Sub(hi, ir.Sub(total, csum))
        return total, ir.Add(frac1, lo), ir.Add(frac2, low)
    state = (c(1.0), c(0.0), c(0.0))
    for v in parts:
        state = add_square(state, v, v)

    def rest(st):
        return ir.Add(ir.Sub(st[0], c(1.0)), ir.Add(st[1], st[2]))
    h = _sqrt(rest(state))
    state = add_square(state, ir.Sub(c(0.0), h), h)
    return ir.Add(h, ir.Div(rest(state), ir.Mul(c(2.0), h)))


def _norm311(parts, c):
    """CPython 3.10-3.11's: Veltkamp's split (2**27 + 1) into hi and lo,
    hi*hi and 2*hi*lo summed with Neumaier errors, lo*lo apart; the same
    for the square root's correction."""
    t27 = c(134217729.0)

    def split(v):
        t = ir.Mul(v, t27)
        hi = ir.Sub(t, ir.Sub(t, v))
        return hi, ir.Sub(v, hi)
    csum, f1, f2, f3 = c(1.0), c(0.0), c(0.0), c(0.0)
    for v in parts:
        hi, lo = split(v)
        csum, f1 = _neumaier(csum, f1, ir.Mul(hi, hi))
        csum, f2 = _neumaier(csum, f2, ir.Mul(ir.Mul(c(2.0), hi), lo))
        f3 = ir.Add(f3, ir.Mul(lo, lo))

    def rest():
        return ir.Add(ir.Sub(csum, c(1.0)), ir.Add(ir.Add(f1, f2), f3))
    h = _sqrt(rest())
    hi, lo = split(h)
    neg_hi = ir.Sub(c(0.0), hi)
    csum, f1 = _neumaier(csum, f1, ir.Mul(neg_hi, hi))
    csum, f2 = _neumaier(csum, f2, ir.Mul(ir.Mul(c(-2.0), hi), lo))
    csum, f3 = _neumaier(csum, f3, ir.Mul(ir.Sub(c(0.0), lo), lo))
    return ir.Add(h, ir.Div(rest(), ir.Mul(c(2.0), h)))


def _hypot_kernel(ax, ay, c):
    """glibc's hypot kernel (ax >= ay): sqrt(ax*ax + ay*ay) corrected by its
    rounding error."""
    h = ir.Call(ax.type, "sqrt", (ir.Add(ir.Mul(ax, ax), ir.Mul(ay, ay)),), ir.INTRINSIC)
    two = c(2.0)
    near = ir.LE(h, ir.Mul(two, ay))
    d1 = ir.Sub(h, ay)
    t1_near = ir.Mul(ax, ir.Sub(ir.Mul(two, d1), ax))
    t2_near = ir.Mul(ir.Sub(d1, ir.Mul(two, ir.Sub(ax, ay))), d1)
    d2 = ir.Sub(h, ax)
    t1_far = ir.Mul(ir.Mul(two, d2), ir.Sub(ax, ir.Mul(two, ay)))
    t2_far = ir.Add(ir.Mul(ir.Sub(ir.Mul(c(4.0), d2), ay), ay), ir.Mul(d2, d2))
    t1, t2 = ir.Select(near, t1_near, t1_far), ir.Select(near, t2_near, t2_far)
    return ir.Sub(h, ir.Div(ir.Add(t1, t2), ir.Mul(two, h)))


_LOG_LARGE_DOUBLE = 708.3964185322641     # CPython's CM_LOG_LARGE_DOUBLE: log(DBL_MAX / 4)


def exp(cx, v: Val, ty, python=False) -> Val:
    """e ** z as C's cexp (NumPy) and CPython's cmath.exp (`python`) compute
    it: exp(re) * (cos(im), sin(im)), a zero imaginary part kept; an
    infinite or NaN imaginary part gives (0, 0) for re = -inf, (inf, NaN)
    for re = +inf, else NaNs. Past a large real part glibc scales by
    exp(709) (exp(88) for float32) up to twice, CPython takes exp(re - 1) *
    e; CPython raises ValueError (an infinite imaginary part with a finite
    or +inf real part) and OverflowError (finite parts, an infinite result)."""
    re, im = nodes(cx, v, ty)
    t = re.type

    def c(x):
        return ir.Const(t, x)

    def call(name, x):
        return ir.Call(t, name, (x,), ir.INTRINSIC)
    cos, sin = call("cos", im), call("sin", im)
    if python:
        large = ir.GT(re, c(_LOG_LARGE_DOUBLE))
        e = ir.Select(large, call("exp", ir.Sub(re, c(1.0))), call("exp", re))
        scale = ir.Select(large, c(np.e), c(1.0))
        out_re = ir.Mul(ir.Mul(e, cos), scale)
        out_im = ir.Mul(ir.Mul(e, sin), scale)
        zero_re = ir.Mul(e, scale)
    else:
        out_re, out_im = _glibc_scaled(re, cos, sin, c, call)
        zero_re = out_re
    zero = ir.EQ(im, c(0.0))
    out_re = ir.Select(zero, zero_re, out_re)
    out_im = ir.Select(zero, im, out_im)
    inf, nan = c(float("inf")), c(float("nan"))
    im_bad = ir.Or(is_nan(im), ir.EQ(fabs(im), inf))
    re_ninf, re_pinf = ir.EQ(re, ir.Const(t, -float("inf"))), ir.EQ(re, inf)
    out_re = ir.Select(im_bad, ir.Select(re_ninf, c(0.0), ir.Select(re_pinf, inf, nan)), out_re)
    out_im = ir.Select(im_bad, ir.Select(re_ninf, c(0.0), nan), out_im)
    out = make(cx, out_re, out_im, ty, v.risky)
    if not python:
        return out
    finite = ir.And(ir.LT(fabs(re), inf), ir.LT(fabs(im), inf))
    domain = ir.Not(ir.And(ir.EQ(fabs(im), inf), ir.Or(ir.LT(fabs(re), inf), re_pinf)))
    out = _guard(cx, out, domain, "ValueError", "math domain error")
    ok = ir.Or(ir.Not(finite), ir.And(ir.LT(fabs(out_re), inf), ir.LT(fabs(out_im), inf)))
    return _guard(cx, out, ok, "OverflowError", "math range error")


def _glibc_scaled(re, cos, sin, c, call):
    """glibc's cexp for a finite z: (exp(re) * cos, exp(re) * sin), the
    real part past t (709, or 88 for float32) brought down by t into cos
    and sin up to twice, DBL_MAX * (cos, sin) past 3t."""
    t = 709 if re.type.bits == 64 else 88
    exp_t = call("exp", c(float(t)))
    for _ in range(2):
        big = ir.GT(re, c(float(t)))
        re = ir.Select(big, ir.Sub(re, c(float(t))), re)
        cos = ir.Select(big, ir.Mul(cos, exp_t), cos)
        sin = ir.Select(big, ir.Mul(sin, exp_t), sin)
    over = ir.GT(re, c(float(t)))
    top = c(float(np.finfo(np.float64 if re.type.bits == 64 else np.float32).max))
    e = call("exp", re)
    return (ir.Select(over, ir.Mul(top, cos), ir.Mul(e, cos)),
            ir.Select(over, ir.Mul(top, sin), ir.Mul(e, sin)))


def sqrt(cx, v: Val, ty) -> Val:
    """The principal square root as CPython's cmath.sqrt computes it (in
    float64; complex64 parts rounded once at the end), with C99's special
    values for infinite and NaN parts (NumPy's csqrt gives the same)."""
    re, im = nodes(cx, v, ty)
    t = re.type
    f64 = ir.Float(64)
    x, y = cast_node(f64, re), cast_node(f64, im)

    def c(v):
        return ir.Const(f64, v)

    def call(name, *args):
        return ir.Call(f64, name, args, ir.INTRINSIC)
    ax, ay = fabs(x), fabs(y)
    tiny = np.finfo(np.float64).tiny
    small = ir.And(ir.LT(ax, c(tiny)), ir.LT(ay, c(tiny)))
    up, down = c(2.0 ** 53), c(2.0 ** -27)
    axu = ir.Mul(ax, up)
    s_small = ir.Mul(call("sqrt", ir.Add(axu, hypot_node(axu, ir.Mul(ay, up)))), down)
    ax8 = ir.Div(ax, c(8.0))
    s_big = ir.Mul(c(2.0), call("sqrt", ir.Add(ax8, hypot_node(ax8, ir.Div(ay, c(8.0))))))
    s = ir.Select(small, s_small, s_big)
    d = ir.Div(ay, ir.Mul(c(2.0), s))
    nonneg = ir.GE(x, c(0.0))
    out_re = ir.Select(nonneg, s, d)
    out_im = call("copysign", ir.Select(nonneg, d, s), y)
    zero = ir.And(ir.EQ(x, c(0.0)), ir.EQ(y, c(0.0)))
    out_re = ir.Select(zero, c(0.0), out_re)
    out_im = ir.Select(zero, y, out_im)
    # C99 Annex G: an infinite imaginary part first, then infinite real
    # parts, then NaNs
    inf, nan = c(float("inf")), c(float("nan"))
    x_nan, y_nan = is_nan(x), is_nan(y)
    pinf, ninf = ir.EQ(x, inf), ir.EQ(x, c(-float("inf")))
    specials = [
        (ir.EQ(ay, inf), inf, y),
        (ir.And(ninf, y_nan), nan, inf),
        (ninf, c(0.0), call("copysign", inf, y)),
        (ir.And(pinf, y_nan), inf, nan),
        (pinf, inf, call("copysign", c(0.0), y)),
        (ir.Or(x_nan, y_nan), nan, nan),
    ]
    for cond, sr, si in reversed(specials):
        out_re = ir.Select(cond, sr, out_re)
        out_im = ir.Select(cond, si, out_im)
    return make(cx, cast_node(t, out_re), cast_node(t, out_im), ty, v.risky)


def phase(cx, v: Val, ty) -> Val:
    """The angle of z: atan2(im, re)."""
    re, im = nodes(cx, v, ty)
    return Val(ir.Call(re.type, "atan2", (im, re), ir.INTRINSIC), ty.part(), risky=v.risky)


def classify(cx, f, v: Val, rt) -> Val:
    """isnan / isinf / isfinite of a complex value (either part; finite:
    both)."""
    re, im = _node(cx, v.re), _node(cx, v.im)
    if f in (np.isnan, cmath.isnan):
        node = ir.Or(is_nan(re), is_nan(im))
    else:
        inf = ir.Const(re.type, float("inf"))
        infinite = ir.Or(ir.EQ(fabs(re), inf), ir.EQ(fabs(im), inf))
        node = infinite if f in (np.isinf, cmath.isinf) else \
            ir.Not(ir.Or(infinite, ir.Or(is_nan(re), is_nan(im))))
    return Val(node, rt, risky=v.risky)


def select(cx, cond: Val, a: Val, b: Val, lazy=None) -> Val:
    """`a if cond else b` of two complex values of one type."""
    return ComplexVal(cx, unions.choose(cx, cond, a.re, b.re, lazy),
                      unions.choose(cx, cond, a.im, b.im, lazy), a.ty, fused=is_fused(a, b))


def placeholder(cx, ty, real_placeholder) -> ComplexVal:
    """An element of complex type ty with an unknown value (of array code)."""
    pt = ty.part()
    return ComplexVal(cx, real_placeholder(pt), real_placeholder(pt), ty, fused=True)


# attributes and NumPy functions ---------------------------------------------------------------
def attribute(cx, v: Val, attr: str, method_ref):
    """z.real, z.imag; z.conjugate / z.conj as a method (method_ref(v, attr))."""
    if attr == "real":
        return real_part(cx, v)
    if attr == "imag":
        return imag_part(cx, v)
    if attr == "conj" and v.ty.weak:
        raise cx.error(f"a {v.ty.describe()} has no method .conj()",
                       hint="use .conjugate() (or np.conj(z))")
    return method_ref(v, attr)


_UNARY = {np.negative: "neg", np.positive: "pos", np.square: "square",
          np.conjugate: "conj", np.exp: "exp", np.sqrt: "sqrt"}
# NumPy functions written in modules that build on this one (complex_log.py,
# complex_trig.py): f -> handler(cx, z of the result type, result type)
FUNCTIONS = {}


def np_unary(cx, f, v: Val, rt) -> Val:
    """f(z) for NumPy's one-argument functions of a complex value (rt the
    result type NumPy gives)."""
    if f in (np.abs, np.absolute):
        ct = v.ty if not v.ty.weak else T.np_ty(np.complex128)
        return absolute(cx, cast(cx, v, ct), ufunc=True)
    if f in (np.isnan, np.isinf, np.isfinite):
        return classify(cx, f, v, rt)
    what = _UNARY.get(f)
    if f in FUNCTIONS:
        return FUNCTIONS[f](cx, cast(cx, v, rt), rt)
    if what is None:
        raise cx.error(f"np.{getattr(f, '__name__', f)} of complex values is not supported",
                       hint="supported on complex values: np.abs, np.exp, np.log, np.sin, "
                            "np.cos, np.sqrt, np.conj, np.real, np.imag, np.square, "
                            "np.isnan/isinf/isfinite and the operators + - * / **")
    x = cast(cx, v, rt)
    if what == "neg":
        return negate(cx, x)
    if what == "pos":
        return x
    if what == "square":
        return binary(cx, "*", x, x)
    if what == "conj":
        return conj(cx, x)
    if what == "sqrt":
        return sqrt(cx, x, rt)
    return exp(cx, x, rt)


class ComplexParam:
    """A complex scalar argument: two float Params, set together."""

    def __init__(self, name, ty):
        from pyhalide.buffer import Param
        t = ty.part().ir()
        self.ty = ty
        self.re = Param(t, f"__pyhalide_re_{name}")
        self.im = Param(t, f"__pyhalide_im_{name}")

    def set(self, value):
        z = complex(value)
        self.re.set(z.real)
        self.im.set(z.imag)


def complex_param(cx, name, ty):
    """(ComplexParam, its ComplexVal) of the complex argument `name`."""
    p = ComplexParam(name, ty)
    pt = ty.part()

    def static(env, name=name):
        return env.params[name]
    re = Val(p.re.node, pt, static=lambda env: static(env).real)
    im = Val(p.im.node, pt, static=lambda env: static(env).imag)
    return p, ComplexVal(cx, re, im, ty, static=static)
