"""Complex arrays (complex64, complex128): a ComplexArr is two float arrays
of its shape, `re` and `im` (Arrs of the part type: float32 / float64),
and every array operation on it is the operation on both parts.

- An input complex array binds its two parts to the real and imaginary
  views of the argument (`a.real`, `a.imag`: no copy); its parts are named
  `a.real` and `a.imag` (their Funcs `a_real`, `a_imag`).
- Reading an element reads both parts (a complex_values.ComplexVal);
  writing one writes both (pending writes and checks as for any array).
- An array value (arrayexpr.ArrayExpr) of complex type has ComplexVal
  elements; storing it (materialize) stores each part as its own Func.
- A masked or sliced store evaluates the value once, then updates both
  parts (the second update reads the first part's version before it).
- A returned complex array is assembled from its parts after the run.

Attributes and functions: .real / .imag (views of the parts; of a real
array the array itself and zeros), .conj() / .conjugate(), np.real,
np.imag, np.conj / np.conjugate, np.angle; cmath functions on scalars."""
from __future__ import annotations

import cmath

import numpy as np

from pyhalide import ir
from pyhalide.buffer import ImageParam

from . import array_calls, complex_log, complex_trig, ops
from . import complex_values as C
from .arrayexpr import ArrayExpr, lift
from .values import Arr, TupleVal, Val, const_val, fresh


class ComplexArr(Arr):
    """A complex array: `re` and `im` are float Arrs of its shape."""

    def __init__(self, name, ty, shape, kind, loc, re: Arr, im: Arr):
        self.re, self.im = re, im
        re.complex_part = im.complex_part = True    # (arrays.ArrayAccess.before_write)
        super().__init__(name, ty, shape, kind, loc)
        self.defined = True

    @property
    def name(self):
        return self._name

    @name.setter
    def name(self, value):
        self._name = value
        for part, suffix in ((self.re, "real"), (self.im, "imag")):
            part.name = f"{value}.{suffix}"
            part.py_names = {part.name}

    def parts(self):
        return (self.re, self.im)


def part_arrays(name, ty, shape, kind, loc):
    pt = ty.part()
    return [Arr(f"{name}.{s}", pt, list(shape), kind, loc) for s in ("real", "imag")]


# inputs and outputs ------------------------------------------------------------------------
def input_array(name, ty, ndim, loc, input_names, shape_of):
    """The ComplexArr of a complex array argument: two ImageParams of the
    part type (`shape_of(image)`: the argument's shape Vals, from one of them)."""
    images = []
    for s in ("real", "imag"):
        image_name = f"{name}_{s}"
        while image_name in input_names:
            image_name += "_"
        images.append(ImageParam(ty.part().ir(), ndim, image_name))
    shape = shape_of(images[0])
    # the imaginary part's memory starts one element after the real part's
    # (pyhalide/realize._dense_names reads it through the real part's buffer)
    images[1].paired_after = images[0].name()
    re, im = part_arrays(name, ty, shape, "input", loc)
    for part, img, attr in zip((re, im), images, ("real", "imag")):
        part.image, part.arg_name = img, name
        part.part_of = attr             # returned: that view of the argument
    arr = ComplexArr(name, ty, shape, "input", loc, re, im)
    arr.arg_name = name
    return arr


def bind_input(arr: ComplexArr, value: np.ndarray, buffer):
    """Bind the parts of a complex argument to its real and imaginary views."""
    arr.re.image.set(buffer(value.real, arr.re.image.name()))
    arr.im.image.set(buffer(value.imag, arr.im.image.name()))


def assemble(dtype, re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """The complex array of a returned ComplexArr's parts."""
    out = np.empty(re.shape, dtype)
    out.real = re
    out.imag = im
    return out


# element reads and writes ------------------------------------------------------------------
def read(arrays, arr: ComplexArr, idx, node) -> Val:
    """arr[idx] (arrays.ArrayAccess.read of each part)."""
    return C.ComplexVal(arrays.cx, arrays.read(arr.re, idx, node),
                        arrays.read(arr.im, idx, node), arr.ty)


def write(arrays, arr: ComplexArr, idx, value: Val, node):
    """arr[idx] = value (arrays.ArrayAccess.write of each part). Outside
    loops the parts are written one statement step after the value was
    computed, so that each part's update reads the other part as it was."""
    cx = arrays.cx
    cx.cur_node = node
    re, im = C.parts(cx, ops.cast_to(cx, value, arr.ty), arr.ty)
    if not arrays.state.loops:
        cx.epoch += 1
    arrays.write(arr.re, idx, re, node)
    arrays.write(arr.im, idx, im, node)


def read_element(array_code, arr: ComplexArr, idx) -> Val:
    """arr[idx] for index nodes known to be in range (ArrayCode.read_element):
    an element of array code."""
    return C.ComplexVal(array_code.cx, array_code.read_element(arr.re, idx),
                        array_code.read_element(arr.im, idx), arr.ty, fused=True)


def operator_power(cx, x: Val, y: Val) -> Val:
    """An element of `z ** y` for a complex array z and a scalar y: NumPy
    computes `z ** 2` as np.square(z) and `z ** -1` as np.reciprocal(z) when
    y is a Python int, otherwise with np.power's loop."""
    if y.is_const and type(y.const) is int and y.const in (2, -1):
        return C.binary(cx, "*", x, x) if y.const == 2 else C.reciprocal(cx, x)
    return ops.binary(cx, "**", x, y)


def create(arrays, ty, shape, fill, node) -> ComplexArr:
    """A new complex array (np.zeros/ones/full/empty with a complex dtype)."""
    cx = arrays.cx
    fills = C.parts(cx, fill, ty) if fill is not None else (None, None)
    re, im = (arrays.create_array(ty.part(), shape, f, node) for f in fills)
    return ComplexArr("array", ty, shape, "local", cx.smap.loc(node), re, im)


def copy(arrays, src: ComplexArr, node) -> ComplexArr:
    """src.copy()."""
    re, im = (arrays.copy_array(p, node) for p in src.parts())
    return ComplexArr("array", src.ty, list(src.shape), "local", arrays.cx.smap.loc(node), re, im)


def ensure_defined(defs, arr: ComplexArr):
    for p in arr.parts():
        defs.ensure_defined(p)


def materialize(array_code, value: ArrayExpr, name, node) -> ComplexArr:
    """A complex array value stored as two Funcs (ArrayCode.materialize)."""
    re, im = (array_code.materialize(part_value(value, k), f"{name}.{s}", node)
              for k, s in enumerate(("real", "imag")))
    arr = ComplexArr(name, value.ty, value.shape, "local", array_code.cx.smap.loc(node),
                     re, im)
    arr.memory_order = value.order      # NumPy's, where not C's (its sums and its return)
    return arr


def part_value(value: ArrayExpr, k: int) -> ArrayExpr:
    """The real (k = 0) or imaginary part of a complex array value; of a
    view, a view of that part."""
    view = None
    if value.view is not None and isinstance(value.view[0], ComplexArr):
        view = (value.view[0].parts()[k], value.view[1])
    return ArrayExpr(value.shape, value.ty.part(),
                     lambda idx: (value.elem(idx).re, value.elem(idx).im)[k], value.node, view,
                     order=value.order if view is None else None)


def store(bld, dest, value, node, write, combine=None):
    """The update `dest = value(p)` of a complex array (array_store.write
    for each part): the value is evaluated once, before either part is
    written; the parts' updates come one statement step later, so that an
    update reading the other part reads it as it was."""
    cx = bld.cx
    if combine is not None:
        raise cx.err(node, "this augmented assignment is not supported on complex arrays",
                     hint="write it out: z[...] = z[...] + w")
    arr = dest.arr
    for p in arr.parts():
        bld.defs.ensure_defined(p)
    region = [ir.Variable(ir.INDEX, fresh(f"cregion{k}")) for k in range(len(dest.shape))]
    cx.cur_node = node
    parts = C.parts(cx, ops.cast_to(cx, value(region), arr.ty), arr.ty)
    nodes = [ops.node_of(cx, v) for v in parts]
    cx.epoch += 1
    for part, v, n in zip(arr.parts(), parts, nodes):
        def at(p, n=n, v=v):
            mapping = {r.name: x for r, x in zip(region, p)}
            return Val(ir.substitute(n, mapping), v.ty, risky=v.risky)
        part_dest = type(dest)(part, dest.shape, dest.place, dest.injective, dest.pred,
                               dest.mask, None)
        write(bld, part_dest, at, node)


# attributes, methods, functions ---------------------------------------------------------
def part_view(b, obj, k, node):
    """obj.real (k = 0) or obj.imag (k = 1) of an array: a view of a complex
    array's part; of a real array, the array itself and zeros."""
    x = b.array_code.as_array(obj, node)
    if x.ty.is_complex():
        return obj.parts()[k] if isinstance(obj, ComplexArr) else part_value(x, k)
    if k == 0:
        return obj
    zero = const_val(x.ty.dtype.type(0))
    return ArrayExpr(x.shape, x.ty, lambda idx: zero, node,
                     readonly="the imaginary part of a real array is read-only zeros")


@array_calls.attribute("real", "imag")
def part_attribute(b, obj, name, node):
    """a.real / a.imag: views of a complex array's parts; of a real array,
    the array itself and zeros (as NumPy's)."""
    return part_view(b, obj, 0 if name == "real" else 1, node)


@array_calls.method("conj", "conjugate")
def conj_method(b, obj, name, node):
    if node.args or node.keywords:
        raise b.cx.err(node, f".{name}() takes no arguments")
    x = b.array_code.as_array(obj, node)
    # of a complex array NumPy's ufunc (a 0-d result is a scalar); else the array
    return lift(b.cx, C.conj, [x], node, ufunc=x.ty.is_complex())


def _one_arg(b, fn, node):
    if len(node.args) != 1 or node.keywords:
        raise b.cx.err(node, f"np.{fn.__name__}() takes one argument here")
    v = b.ev(node.args[0])
    if isinstance(v, (Arr, ArrayExpr)):
        return b.array_code.as_array(v, node.args[0]), v
    if isinstance(v, Val):
        return v, v
    raise b.cx.err(node.args[0], f"np.{fn.__name__}() of {b.describe_obj(v)} is not supported")


@array_calls.function(np.real, np.imag)
def np_part(b, fn, node):
    """np.real(x) / np.imag(x): x.real / x.imag of arrays and scalars."""
    x, raw = _one_arg(b, fn, node)
    if isinstance(x, Val):
        if x.ty.weak:       # NumPy gives a 0-d array for Python scalars
            x = ops.convert(b.cx, x, _np_ty_of(x))
        return (C.real_part if fn is np.real else C.imag_part)(b.cx, x)
    return part_view(b, raw, 0 if fn is np.real else 1, node)


@array_calls.function(np.conj, np.angle)
def np_conj_angle(b, fn, node):
    """np.conj(x) / np.conjugate(x), np.angle(x) (radians)."""
    x, _ = _one_arg(b, fn, node)

    def one(cx, v):
        if v.ty.weak:
            v = ops.convert(cx, v, _np_ty_of(v))
        if fn is np.conj:
            return C.conj(cx, v)
        if not v.ty.is_complex():
            v = ops.cast_to(cx, v, C.T.np_ty(np.result_type(v.ty.dtype, np.complex64)))
        return C.phase(cx, v, v.ty)
    return lift(b.cx, one, [x], node, ufunc=True)


def _np_ty_of(v: Val):
    return C.T.np_ty(np.asarray(v.ty.sample(1)).dtype)


# cmath on scalars -----------------------------------------------------------------------------
_CMATH = (cmath.exp, cmath.sqrt, cmath.phase, cmath.polar, cmath.rect, cmath.isnan, cmath.isinf,
          cmath.isfinite, cmath.log, cmath.sin, cmath.cos)


@array_calls.function(*_CMATH)
def cmath_call(b, fn, node):
    """cmath functions of scalars (Python complex results; Python floats
    for phase, a tuple for polar)."""
    nargs = 2 if fn is cmath.rect or (fn is cmath.log and len(node.args) == 2) else 1
    if len(node.args) != nargs or node.keywords:
        raise b.cx.err(node, f"cmath.{fn.__name__}() takes {nargs} argument(s)")
    vals = []
    for a in node.args:
        v = b.ev(a)
        if not isinstance(v, Val):
            raise b.cx.err(a, f"cmath.{fn.__name__}() needs a number, not "
                              f"{b.describe_obj(v)}")
        vals.append(v)
    cx = b.cx
    cx.cur_node = node
    z = C.cast(cx, vals[0], C.T.PY_COMPLEX) if fn is not cmath.rect else None
    if fn is cmath.exp:
        return C.exp(cx, z, C.T.PY_COMPLEX, python=True)
    if fn is cmath.log:
        out = complex_log.log(cx, z, C.T.PY_COMPLEX, python=True)
        if nargs == 2:          # CPython: log(z) / log(base), ZeroDivisionError for base 1
            base = complex_log.log(cx, C.cast(cx, vals[1], C.T.PY_COMPLEX), C.T.PY_COMPLEX,
                                   python=True)
            out = C.binary(cx, "/", out, base)
        return out
    if fn in (cmath.sin, cmath.cos):
        return complex_trig.sin_cos(cx, z, C.T.PY_COMPLEX, cos=fn is cmath.cos, python=True)
    if fn is cmath.phase:
        return C.phase(cx, z, C.T.PY_COMPLEX)
    if fn is cmath.sqrt:
        return C.sqrt(cx, z, C.T.PY_COMPLEX)
    if fn is cmath.polar:
        return TupleVal([C.absolute(cx, z), C.phase(cx, z, C.T.PY_COMPLEX)])
    if fn is cmath.rect:
        r, phi = (ops.convert(cx, v, C.T.PY_FLOAT) for v in vals)
        rn, pn = ops.node_of(cx, r), ops.node_of(cx, phi)
        zero = ir.EQ(pn, ir.Const(pn.type, 0.0))       # CPython: (r, r * phi)
        re = ir.Select(zero, rn, ir.Mul(rn, ir.Call(rn.type, "cos", (pn,), ir.INTRINSIC)))
        im = ir.Select(zero, ir.Mul(rn, pn),
                       ir.Mul(rn, ir.Call(rn.type, "sin", (pn,), ir.INTRINSIC)))
        return C.make(cx, re, im, C.T.PY_COMPLEX, r.risky or phi.risky)
    return C.classify(cx, fn, z, C.T.PY_BOOL)

