"""Inputs and outputs: Buffer (over a NumPy array, zero-copy, axes reversed as
in Halide's bindings), ImageParam and Param."""
from __future__ import annotations

import builtins
import operator
import sys

import numpy as np

from . import ir, shifted_inputs
from .expr import Expr, cast_node, to_node
from .ir.errors import counted
from .source import at, user_location
from .var import expand_placeholder, unique_name


def _index_args(key) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    return key


def refuse_masked(arr, what: str) -> None:
    """TypeError for a NumPy masked array: compiled code reads its data and
    would silently ignore the mask. (Without numpy.ma imported there is no
    masked array: `np.ma` would import it, 10 ms of a first compile.)"""
    ma = sys.modules.get("numpy.ma")
    if ma is not None and isinstance(arr, ma.MaskedArray):
        raise TypeError(f"{what} was given a masked array (np.ma): compiled code reads every "
                        f"element and would ignore the mask; pass np.ma.filled(a, value) or "
                        f"a.compressed() (the unmasked elements){at(user_location())}")


def _image_call(source, t: ir.Type, name: str, dims: int, key) -> Expr:
    args = _index_args(key)
    args = expand_placeholder(args, dims - len(args) + 1)   # `_`: the dimensions not named
    if len(args) != dims:
        raise ValueError(f"{name} has {counted(dims, 'dimension')} but is indexed with {len(args)}")
    nodes = []
    for a in args:
        n = to_node(a)
        if not (n.type.is_integer() or n.type.is_bool()):
            raise TypeError(f"index of {name} must be an integer Expr, not {n.type}")
        nodes.append(cast_node(ir.INDEX, n))
    return Expr.wrap(ir.Call(t, name, tuple(nodes), ir.IMAGE, 0, source))


class _Dim:
    """One dimension of a Buffer (ints) or an ImageParam (Exprs; its
    constraints and estimates are set through it, as Halide's Dimension)."""

    def __init__(self, min_, extent, stride, owner=None, index: int = 0):
        self._min, self._extent, self._stride = min_, extent, stride
        self._owner, self._index = owner, index

    def _param(self) -> "ImageParam":
        if not isinstance(self._owner, ImageParam):
            raise TypeError("constraints and estimates are set on the dimensions of an "
                            "ImageParam (a Buffer's geometry is its array's)")
        return self._owner

    def set_min(self, min):
        return self.set_bounds(min, None)

    def set_extent(self, extent):
        return self.set_bounds(None, extent)

    def set_bounds(self, min=None, extent=None):
        """Require the bound Buffer to have this min and/or extent (checked when
        a Buffer is set, as Halide checks it when the pipeline runs)."""
        self._param()._constrain(self._index, min=min, extent=extent)
        return self

    def set_stride(self, stride):
        self._param()._constrain(self._index, stride=stride)
        return self

    def set_estimate(self, min, extent):
        """The automatic scheduler's estimate of this dimension (no effect on results)."""
        self._param()._estimate(self._index, min, extent)
        return self

    def dim(self, i: int) -> "_Dim":
        return self._param().dim(i)

    def min(self):
        return self._min

    def extent(self):
        return self._extent

    def stride(self):
        return self._stride

    def max(self):
        return self._min + self._extent - 1


def _allocate(t: ir.Type, sizes: list, storage_order) -> np.ndarray:
    """Zeros of type t over `sizes`, laid out with storage_order[0] innermost
    (default: dimension 0), seen with reversed axes (axis n-1-d is dimension d)."""
    n = len(sizes)
    order = list(range(n)) if storage_order is None else [operator.index(d) for d in storage_order]
    if sorted(order) != list(range(n)):
        raise ValueError(f"storage_order {storage_order} is not a permutation of the "
                         f"{counted(n, 'dimension')}")
    arr = np.zeros([sizes[d] for d in reversed(order)], dtype=t.to_numpy())
    axis_of = {d: n - 1 - k for k, d in enumerate(order)}      # dimension -> its axis in arr
    return arr.transpose([axis_of[n - 1 - i] for i in range(n)])


class Buffer:
    """A NumPy array seen with reversed axes: `buf[x, y]` is `array[y, x]` and
    dimension 0 is the innermost (stride-1) one. Never copies."""

    def __init__(self, data=None, sizes=None, name=None, reverse_axes=True, *,
                 type=None, storage_order=None):
        """Buffer(ndarray, name, reverse_axes=True), Buffer(Buffer),
        Buffer(type, sizes[, storage_order][, name]) (storage_order: the
        dimensions innermost first), or Buffer() (undefined), as in Halide."""
        if type is not None:
            data = type
        if isinstance(data, (np.ndarray, Buffer)) and (sizes is None or isinstance(sizes, str)):
            if isinstance(name, bool):                 # Buffer(ndarray, name, reverse_axes)
                name, reverse_axes = None, name
            name, sizes = sizes if name is None else name, None
        if isinstance(name, (list, tuple)):            # Buffer(type, sizes, storage_order, name)
            storage_order, name = name, reverse_axes if isinstance(reverse_axes, str) else None
        if data is None and sizes is None:
            self._array, self._name, self._mins = None, name or unique_name("b"), None
            return
        if isinstance(data, Buffer):
            arr = data._array
        elif isinstance(data, np.ndarray):
            arr = data if reverse_axes else data.T
            refuse_masked(arr, "Buffer")
            if any(n > 2**31 - 1 for n in arr.shape):
                raise ValueError(f"Out of range dimensions in buffer conversion: a dimension "
                                 f"of {max(arr.shape)} elements is beyond int32")
        elif sizes is not None or isinstance(data, ir.Type) or isinstance(data, (builtins.type, np.dtype)):
            t = ir.as_type(data)
            if isinstance(sizes, str):
                sizes, name = None, sizes
            arr = _allocate(t, list(sizes or []), storage_order)
        else:
            raise TypeError(f"Buffer needs a NumPy array or a type and sizes, got {builtins.type(data).__name__}")
        if isinstance(sizes, str) and name is None:
            name = sizes
        if arr.dtype != np.float16:    # float16: held only (see type())
            ir.Type.from_numpy(arr.dtype)  # raises TypeError for unsupported dtypes
        self._array = arr
        self._name = name or unique_name("b")
        self._mins = None

    @staticmethod
    def make_interleaved(type, width: int, height: int, channels: int,
                         name: str | None = None) -> "Buffer":
        """A (width, height, channels) Buffer whose channel dimension has stride 1."""
        t = ir.as_type(type)
        arr = np.zeros((height, width, channels), dtype=t.to_numpy()).transpose(2, 0, 1)
        return Buffer(arr, name=name)

    @staticmethod
    def make_bounds_query(type, sizes, name: str | None = None) -> "Buffer":
        """Halide's bounds-query Buffer: geometry without data (a view of one
        element), which infer_input_bounds may change."""
        b = Buffer(np.broadcast_to(np.zeros((), ir.as_type(type).to_numpy()),
                                   tuple(reversed([int(s) for s in sizes]))), name=name)
        b._bounds_query = True
        return b

    def is_bounds_query(self) -> bool:
        return getattr(self, "_bounds_query", False)

    def set_query_geometry(self, mins, extents) -> None:
        """A bounds-query Buffer takes the geometry infer_input_bounds proposes."""
        self._array = np.broadcast_to(np.zeros((), self._array.dtype),
                                      tuple(reversed([int(e) for e in extents])))
        self.set_min(list(mins))

    @staticmethod
    def make_scalar(type, name: str | None = None) -> "Buffer":
        return Buffer(type, [], name)

    # geometry -------------------------------------------------------------
    def name(self) -> str:
        return self._name

    def type(self) -> ir.Type:
        if self._array.dtype == np.float16:
            raise NotImplementedError(
                f"Buffer {self._name} holds float16 values (Halide's Float(16)): pyhalide "
                f"holds such a Buffer and converts it to and from NumPy, but has no "
                f"float16 type and computes nothing in float16; convert the array with "
                f".astype(np.float32) to use it in a pipeline")
        return ir.Type.from_numpy(self._array.dtype)

    def dimensions(self) -> int:
        return self._array.ndim

    def dim(self, i: int) -> _Dim:
        a = self._array
        if not 0 <= i < a.ndim:
            raise IndexError(f"Buffer {self._name} has {counted(a.ndim, 'dimension')}, not {i + 1}")
        axis = a.ndim - 1 - i
        return _Dim(self.mins()[i], a.shape[axis], a.strides[axis] // a.itemsize)

    # shifted domains (Halide's Buffer min) -----------------------------------
    def mins(self) -> list:
        """The coordinate of the first element in each dimension (0 unless set_min)."""
        return list(getattr(self, "_mins", None) or [0] * self._array.ndim)

    def set_min(self, mins) -> "Buffer":
        """Shift the Buffer's coordinates: element `mins` is the array's first one.
        Realizing into it computes the region from `mins`; Python indexing uses
        the shifted coordinates (as in Halide)."""
        mins = [operator.index(m) for m in mins]
        if len(mins) > self._array.ndim:
            raise ValueError(f"set_min() got {len(mins)} mins for a Buffer of "
                             f"{counted(self._array.ndim, 'dimension')}")
        self._mins = mins + [0] * (self._array.ndim - len(mins))
        if any(mins):
            shifted_inputs.note(self)          # read as an input from its own coordinates
        return self

    def translate(self, delta) -> "Buffer":
        """Shift the coordinates by `delta` in place (Halide's translate)."""
        return self.set_min([m + operator.index(d) for m, d in zip(self.mins(), delta)] +
                            self.mins()[len(delta):])

    def translated(self, delta, dx=None) -> "Buffer":
        """A Buffer over the same data with coordinates shifted by `delta`
        (or translated(dimension, dx))."""
        if dx is not None:
            delta = [0] * operator.index(delta) + [dx]
        return self._view(self._array).translate(delta)

    def _view(self, arr, mins=None) -> "Buffer":
        out = Buffer(arr, name=self._name)
        out._mins = self.mins() if mins is None else mins
        if any(out._mins):
            shifted_inputs.note(out)
        return out

    def defined(self) -> bool:
        return self._array is not None

    def crop(self, dimension, min, extent) -> "Buffer":
        """Restrict dimension `dimension` to [min, min + extent) in place."""
        d, lo, n = operator.index(dimension), operator.index(min), operator.index(extent)
        mins, axis = self.mins(), self._array.ndim - 1 - d
        if not (0 <= d < self._array.ndim and mins[d] <= lo and n >= 0 and
                lo + n <= mins[d] + self._array.shape[axis]):
            raise IndexError(f"crop of Buffer {self._name} to [{lo}, {lo + n}) in dimension {d} "
                             f"is outside it")
        index = [slice(None)] * self._array.ndim
        index[axis] = slice(lo - mins[d], lo - mins[d] + n)
        self._array = self._array[tuple(index)]
        mins[d] = lo
        return self.set_min(mins)

    def cropped(self, dimension, min=None, extent=None) -> "Buffer":
        """A Buffer over part of this one's data: cropped(dimension, min,
        extent) or cropped([(min, extent), ...]) (one pair per dimension)."""
        out = self._view(self._array)
        if min is None:
            for d, (lo, n) in enumerate(dimension):
                out.crop(d, lo, n)
            return out
        return out.crop(dimension, min, extent)

    def reverse_axes(self) -> "Buffer":
        """A Buffer over the same data with the dimensions in reverse order."""
        return self._view(self._array.T, list(reversed(self.mins())))

    def transpose(self, order) -> "Buffer":
        """In place: dimension i becomes the old dimension order[i]."""
        n = self._array.ndim
        order = [operator.index(o) for o in order]
        if sorted(order) != list(range(n)):
            raise ValueError(f"transpose order {order} is not a permutation of the "
                             f"{counted(n, 'dimension')}")
        mins = self.mins()
        self._array = self._array.transpose([n - 1 - order[n - 1 - i] for i in range(n)])
        return self.set_min([mins[o] for o in order])

    def _element(self, key) -> tuple:
        args = _index_args(key)
        if len(args) != self._array.ndim:
            raise IndexError(f"Buffer {self._name} has {counted(self._array.ndim, 'dimension')}")
        index = []
        for d, (a, m) in enumerate(zip(args, self.mins())):
            i = operator.index(a) - m
            extent = self._array.shape[self._array.ndim - 1 - d]
            if not 0 <= i < extent:
                raise IndexError(f"index {a} is out of bounds for axis {d} with min={m}, "
                                 f"extent={extent}: outside Buffer {self._name}")
            index.append(i)
        return tuple(reversed(index))

    def width(self) -> int:
        return self.dim(0).extent() if self.dimensions() > 0 else 1

    def height(self) -> int:
        return self.dim(1).extent() if self.dimensions() > 1 else 1

    def channels(self) -> int:
        return self.dim(2).extent() if self.dimensions() > 2 else 1

    # data ------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        if dtype is not None and np.dtype(dtype) != self._array.dtype:
            return self._array.astype(dtype)
        return self._array.copy() if copy else self._array

    def numpy(self) -> np.ndarray:
        return self._array

    def __getitem__(self, key):
        args = _index_args(key)
        if all(isinstance(a, (int, np.integer)) for a in args):
            return self._array[self._element(key)]
        return _image_call(self, self.type(), self._name, self.dimensions(), key)

    def __setitem__(self, key, value):
        self._array[self._element(key)] = value

    def in_(self, consumers=None):
        """A Func wrapping this Buffer's reads for `consumers` (or every consumer)."""
        from .wrappers import wrapper
        return wrapper(self, consumers)

    # whole-buffer operations (Halide's) --------------------------------------
    def copy(self) -> "Buffer":
        """A deep copy with the same mins (dense, in the same axis order)."""
        out = Buffer(np.array(self._array, copy=True), name=self._name)
        out._mins = getattr(self, "_mins", None)
        return out

    def fill(self, value) -> "Buffer":
        self._array[...] = value
        return self

    def all_equal(self, value) -> bool:
        return bool(np.all(self._array == value))

    def for_each_element(self, f) -> None:
        """Call f(coordinates) for every element, dimension 0 innermost."""
        mins = self.mins()
        for idx in np.ndindex(*self._array.shape):
            f([i + m for i, m in zip(reversed(idx), mins)])

    def for_each_value(self, f, *others) -> None:
        """Call f(value, *values of `others` at the same coordinates) per element."""
        for idx in np.ndindex(*self._array.shape):
            f(self._array[idx].item(), *(np.asarray(o)[idx].item() for o in others))

    def set_name(self, name: str) -> "Buffer":
        self._name = name
        return self

    def copy_to_host(self) -> int:
        """Buffers live in host memory: nothing to copy (Halide returns 0)."""
        return 0

    def __repr__(self) -> str:
        if self._array is None:
            return "<undefined halide.Buffer>"
        shape = ",".join(f"[{d.min()},{d.extent()},{d.stride()}]"
                         for d in (self.dim(i) for i in range(self.dimensions())))
        return f"<halide.Buffer of type {self.type()} shape:[{shape}]>"


def wrap_array(arr: np.ndarray, name: str) -> Buffer:
    """A Buffer over an array of a supported dtype (unchecked: for outputs
    the runtime just filled)."""
    b = Buffer.__new__(Buffer)
    b._array = arr
    b._name = name
    return b


class OutputImageParam:
    """Halide's base class of ImageParam; `hl.OutputImageParam()` is an
    undefined one (pyhalide's output buffers are `f.output_buffer()`)."""

    def defined(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "<halide.OutputImageParam OutputImageParam()>"


class ImageParam(OutputImageParam):
    """An input buffer bound at run time with `.set(buffer)`; `ImageParam()`
    (no type) is Halide's undefined ImageParam."""

    def __init__(self, type=None, dimensions: int | None = None, name: str | None = None):
        if (type is None) != (dimensions is None):
            raise TypeError("ImageParam(type, dimensions[, name]) needs both the type and "
                            "the dimensions (or neither: an undefined ImageParam)")
        self._type = None if type is None else ir.as_type(type)
        self._dims = 0 if dimensions is None else int(dimensions)
        self._name = name or unique_name("p")
        self._buffer = None

    def name(self) -> str:
        return self._name

    def defined(self) -> bool:
        return self._type is not None

    def type(self) -> ir.Type:
        return self._type

    def dimensions(self) -> int:
        return self._dims

    def set(self, buffer):
        if isinstance(buffer, np.ndarray):
            buffer = Buffer(buffer)
        if isinstance(buffer, Buffer):
            shifted_inputs.note(self)          # its mins are read at each realize
            self._check(buffer)
        self._buffer = buffer
        return self

    def set_estimates(self, estimates):
        """The region [(min, extent), ...] the automatic scheduler plans for."""
        from .autoschedule.funcapi import set_estimates
        set_estimates(self, self, estimates)
        return self

    def get(self):
        return self._buffer

    def parameter(self) -> "ImageParam":
        """Halide's Parameter of this ImageParam: the ImageParam itself."""
        return self

    def _geometry(self, field: str, i: int) -> Expr:
        if not 0 <= i < self._dims:
            raise IndexError(f"ImageParam {self._name} has {counted(self._dims, 'dimension')}")
        return Expr.wrap(ir.Variable(ir.INDEX, f"{self._name}.{field}.{i}", "param", self))

    def dim(self, i: int) -> _Dim:
        return _Dim(self._geometry("min", i), self._geometry("extent", i),
                    self._geometry("stride", i), self, i)

    def _constrain(self, d: int, **fields) -> None:
        """Record constraints: an int is checked against the Buffer set (now and
        at each set); an expression (of buffer geometry and Params) is taken by
        infer_input_bounds (pyhalide/bounds_query.py), not checked at realize."""
        table = self.__dict__.setdefault("_constraints", {})
        for field, v in fields.items():
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, np.integer, Expr)):
                raise TypeError(f"ImageParam {self._name}: dimension {d} {field} must be an "
                                f"integer or an Expr, not {v!r}{at(user_location())}")
            if isinstance(v, Expr) and field == "stride":
                raise NotImplementedError(
                    f"ImageParam {self._name}: dimension {d} stride given by an expression "
                    f"({v}); pyhalide takes constant strides{at(user_location())}")
            table[(field, d)] = v if isinstance(v, Expr) else int(v)
            if isinstance(v, Expr):
                from .bounds_query import note_constraint
                note_constraint()
        if self._buffer is not None:
            self._check(self._buffer)

    def _check(self, buffer) -> None:
        for (field, d), want in self.__dict__.get("_constraints", {}).items():
            if isinstance(want, Expr):
                continue
            dim = buffer.dim(d)
            got = {"min": dim.min(), "extent": dim.extent(), "stride": dim.stride()}[field]
            if got != want:
                raise ValueError(f"ImageParam {self._name} requires {field} {want} in dimension "
                                 f"{d} (set_{field if field != 'min' else 'min'}/set_bounds), "
                                 f"but the Buffer given has {field} {got}{at(user_location())}")

    def _estimate(self, d: int, lo, extent) -> None:
        est = self.__dict__.setdefault("_dim_estimates", [None] * self._dims)
        est[d] = (lo, extent)
        if all(e is not None for e in est):
            self.set_estimates(est)

    def width(self) -> Expr:
        return self._geometry("extent", 0)

    def height(self) -> Expr:
        return self._geometry("extent", 1)

    def channels(self) -> Expr:
        return self._geometry("extent", 2)

    def __getitem__(self, key) -> Expr:
        return _image_call(self, self._type, self._name, self._dims, key)

    def in_(self, consumers=None):
        """A Func wrapping this input for `consumers` (or every consumer)."""
        from .wrappers import wrapper
        return wrapper(self, consumers)

    def __repr__(self) -> str:
        if self._type is None:
            return "<halide.ImageParam ImageParam()>"
        return f"<halide.ImageParam '{self._name}', dims: {self._dims}, type: {self._type}>"


def _param_values(t: ir.Type) -> str:
    """The Python values a Param of type t takes, for messages."""
    if t.is_bool():
        return "True or False (a Python bool, np.bool_, or the integers 0 and 1)"
    if t.is_float():
        return "a real number (a Python int or float, or a NumPy integer or floating scalar)"
    return (f"an integer from {t.min_value()} to {t.max_value()} (a Python int or a NumPy "
            f"integer scalar)")


class Param(Expr):
    """A scalar input bound at run time: Param(type, "name", value)."""

    __slots__ = ("_name", "_type", "_value", "_estimate")

    def __init__(self, type, name: str | None = None, value=None):
        if name is not None and not isinstance(name, str):
            name, value = None, name
        self._type = ir.as_type(type)
        self._name = name or unique_name("p")
        self._value = None
        self.node = ir.Variable(self._type, self._name, "param", self)
        if value is not None:
            self.set(value)

    def name(self) -> str:
        return self._name

    def type(self) -> ir.Type:
        return self._type

    def set(self, value):
        """Bind a value now; TypeError (naming the Param and the values that
        fit its type) when it is not a number of the Param's kind or does
        not fit its type."""
        self._value = self._checked(value)

    def _checked(self, value):
        t = self._type
        v = value.item() if isinstance(value, np.generic) else value
        if t.is_float():
            ok = not isinstance(v, bool) and isinstance(v, (int, float))
        else:
            try:
                ok = t.can_represent(operator.index(v))
            except TypeError:
                ok = False
        if not ok:
            raise TypeError(f"Param {self._name} of type {t} takes {_param_values(t)}, "
                            f"not {value!r}")
        return value

    def get(self):
        return self._value

    def parameter(self) -> "Param":
        """Halide's Parameter of this Param: the Param itself."""
        return self

    def set_estimate(self, value):
        """The automatic scheduler's estimate of this Param (no effect on
        results); TypeError as set() gives when it does not fit the type."""
        self._estimate = self._checked(value)
        return self

    def estimate(self):
        """The value set_estimate gave, or None."""
        return getattr(self, "_estimate", None)

    def __repr__(self) -> str:
        return f"<halide.Param '{self._name}' type {self._type}>"

    __hash__ = Expr.__hash__
