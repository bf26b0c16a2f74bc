"""Inputs and outputs: Buffer (over a NumPy array, zero-copy, axes reversed as
in Halide's bindings), ImageParam and Param."""
from __future__ import annotations

import operator

import numpy as np

from . import ir
from .expr import Expr, cast_node, to_node
from .ir.errors import counted
from .source import at, user_location
from .var import unique_name


def _index_args(key) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    return key


def refuse_masked(arr, what: str) -> None:
    """TypeError for a NumPy masked array: compiled code reads its data and
    would silently ignore the mask."""
    if isinstance(arr, np.ma.MaskedArray):
        raise TypeError(f"{what} was given a masked array (np.ma): compiled code reads every "
                        f"element and would ignore the mask; pass np.ma.filled(a, value) or "
                        f"a.compressed() (the unmasked elements){at(user_location())}")


def _image_call(source, t: ir.Type, name: str, dims: int, key) -> Expr:
    args = _index_args(key)
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
    """One dimension of a Buffer (ints) or an ImageParam (Exprs)."""

    def __init__(self, min_, extent, stride):
        self._min, self._extent, self._stride = min_, extent, stride

    def min(self):
        return self._min

    def extent(self):
        return self._extent

    def stride(self):
        return self._stride

    def max(self):
        return self._min + self._extent - 1


class Buffer:
    """A NumPy array seen with reversed axes: `buf[x, y]` is `array[y, x]` and
    dimension 0 is the innermost (stride-1) one. Never copies."""

    def __init__(self, data, sizes=None, name: str | None = None):
        if isinstance(data, Buffer):
            arr = data._array
        elif isinstance(data, np.ndarray):
            arr = data
            refuse_masked(arr, "Buffer")
        elif sizes is not None or isinstance(data, ir.Type) or isinstance(data, (type, np.dtype)):
            t = ir.as_type(data)
            if isinstance(sizes, str):
                sizes, name = None, sizes
            sizes = list(sizes or [])
            arr = np.zeros(tuple(reversed(sizes)), dtype=t.to_numpy())
        else:
            raise TypeError(f"Buffer needs a NumPy array or a type and sizes, got {type(data).__name__}")
        if isinstance(sizes, str) and name is None:
            name = sizes
        ir.Type.from_numpy(arr.dtype)  # raises TypeError for unsupported dtypes
        self._array = arr
        self._name = name or unique_name("b")

    # geometry -------------------------------------------------------------
    def name(self) -> str:
        return self._name

    def type(self) -> ir.Type:
        return ir.Type.from_numpy(self._array.dtype)

    def dimensions(self) -> int:
        return self._array.ndim

    def dim(self, i: int) -> _Dim:
        a = self._array
        if not 0 <= i < a.ndim:
            raise IndexError(f"Buffer {self._name} has {counted(a.ndim, 'dimension')}, not {i + 1}")
        axis = a.ndim - 1 - i
        return _Dim(0, a.shape[axis], a.strides[axis] // a.itemsize)

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
        return self._array

    def numpy(self) -> np.ndarray:
        return self._array

    def __getitem__(self, key):
        args = _index_args(key)
        if all(isinstance(a, (int, np.integer)) for a in args):
            if len(args) != self._array.ndim:
                raise IndexError(f"Buffer {self._name} has {counted(self._array.ndim, 'dimension')}")
            return self._array[tuple(reversed(args))]
        return _image_call(self, self.type(), self._name, self.dimensions(), key)

    def __setitem__(self, key, value):
        args = _index_args(key)
        self._array[tuple(reversed(args))] = value

    def __repr__(self) -> str:
        return f"<pyhalide.Buffer {self._name} {self.type()} {list(reversed(self._array.shape))}>"


def wrap_array(arr: np.ndarray, name: str) -> Buffer:
    """A Buffer over an array of a supported dtype (unchecked: for outputs
    the runtime just filled)."""
    b = Buffer.__new__(Buffer)
    b._array = arr
    b._name = name
    return b


class ImageParam:
    """An input buffer bound at run time with `.set(buffer)`."""

    def __init__(self, type, dimensions: int, name: str | None = None):
        self._type = ir.as_type(type)
        self._dims = int(dimensions)
        self._name = name or unique_name("p")
        self._buffer = None

    def name(self) -> str:
        return self._name

    def type(self) -> ir.Type:
        return self._type

    def dimensions(self) -> int:
        return self._dims

    def set(self, buffer):
        if isinstance(buffer, np.ndarray):
            buffer = Buffer(buffer)
        self._buffer = buffer
        return self

    def set_estimates(self, estimates):
        """The region [(min, extent), ...] the automatic scheduler plans for."""
        from .autoschedule.funcapi import set_estimates
        set_estimates(self, self, estimates)
        return self

    def get(self):
        return self._buffer

    def _geometry(self, field: str, i: int) -> Expr:
        if not 0 <= i < self._dims:
            raise IndexError(f"ImageParam {self._name} has {counted(self._dims, 'dimension')}")
        return Expr.wrap(ir.Variable(ir.INDEX, f"{self._name}.{field}.{i}", "param", self))

    def dim(self, i: int) -> _Dim:
        return _Dim(self._geometry("min", i), self._geometry("extent", i),
                    self._geometry("stride", i))

    def width(self) -> Expr:
        return self._geometry("extent", 0)

    def height(self) -> Expr:
        return self._geometry("extent", 1)

    def channels(self) -> Expr:
        return self._geometry("extent", 2)

    def __getitem__(self, key) -> Expr:
        return _image_call(self, self._type, self._name, self._dims, key)

    def __repr__(self) -> str:
        return f"<pyhalide.ImageParam {self._name} {self._type} {self._dims}-D>"


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

    __slots__ = ("_name", "_type", "_value")

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
        self._value = value

    def get(self):
        return self._value

    def __repr__(self) -> str:
        return f"<pyhalide.Param {self._name} {self._type}>"

    __hash__ = Expr.__hash__
