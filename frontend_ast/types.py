"""Value types of @pipeline code: Python scalars (weak in NumPy 2 promotion,
NEP 50) and NumPy scalars of a dtype. Result types are found by asking NumPy
itself on sample values, so promotion is exactly NumPy's.

Complex types (Python complex, numpy.complex64/complex128) have no IR type of
their own: a complex value is a pair of values of its part type (`part()`:
Python float, float32, float64; complex_values.ComplexVal)."""
from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from pyhalide import ir

INT, FLOAT, BOOL, COMPLEX, NP = "int", "float", "bool", "complex", "np"

_PY_DTYPE = {INT: np.dtype(np.int64), FLOAT: np.dtype(np.float64), BOOL: np.dtype(np.bool_),
             COMPLEX: np.dtype(np.complex128)}
_PY_TYPE = {INT: int, FLOAT: float, BOOL: bool, COMPLEX: complex}


class UnsupportedType(TypeError):
    pass


@functools.total_ordering
class Ty:
    """A Python scalar kind (int, float, bool) or a NumPy dtype."""

    __slots__ = ("kind", "dtype")

    def __init__(self, kind: str, dtype=None):
        self.kind = kind
        self.dtype = np.dtype(dtype) if kind == NP else _PY_DTYPE[kind]
        if kind == NP and not (self.is_complex() and self.dtype.itemsize in (8, 16)):
            ir_type(self.dtype)       # raises for unsupported dtypes

    # identity ---------------------------------------------------------------
    def key(self):
        return (self.kind, self.dtype.str)

    def __eq__(self, o):
        return isinstance(o, Ty) and self.key() == o.key()

    def __lt__(self, o):
        return self.key() < o.key()

    def __hash__(self):
        return hash(self.key())

    def __repr__(self):
        return self.kind if self.kind != NP else f"np.{self.dtype.name}"

    def describe(self) -> str:
        return {INT: "Python int", FLOAT: "Python float", BOOL: "Python bool",
                COMPLEX: "Python complex"}.get(
            self.kind, f"numpy.{self.dtype.name}")

    # properties -------------------------------------------------------------
    @property
    def weak(self) -> bool:
        return self.kind != NP

    def is_int(self) -> bool:
        return self.dtype.kind in "iu"

    def is_float(self) -> bool:
        return self.dtype.kind == "f"

    def is_bool(self) -> bool:
        return self.dtype.kind == "b"

    def is_complex(self) -> bool:
        return self.dtype.kind == "c"

    def part(self) -> "Ty":
        """The type of a complex type's real and imaginary parts."""
        if self.kind == COMPLEX:
            return PY_FLOAT
        return np_ty(np.float32 if self.dtype.itemsize == 8 else np.float64)

    def ir(self) -> ir.Type:
        return ir_type(self.dtype)

    def sample(self, v=1):
        return self.python_value(v)

    def python_value(self, v):
        """Convert a raw value (NumPy scalar / number) to this type's Python
        representation: int/float/bool/complex or a NumPy scalar."""
        if self.kind == NP:
            return self.dtype.type(v)
        return _PY_TYPE[self.kind](v)


PY_INT, PY_FLOAT, PY_BOOL, PY_COMPLEX = Ty(INT), Ty(FLOAT), Ty(BOOL), Ty(COMPLEX)


def np_ty(dtype) -> Ty:
    return Ty(NP, dtype)


def ir_type(dtype) -> ir.Type:
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return ir.Bool()
    if dt.kind in "iu" and dt.itemsize in (1, 2, 4, 8):
        return ir.Type("int" if dt.kind == "i" else "uint", dt.itemsize * 8)
    if dt.kind == "f" and dt.itemsize in (4, 8):
        return ir.Float(dt.itemsize * 8)
    if dt.kind == "c" and dt.itemsize in (8, 16):
        raise UnsupportedType(f"{dt} values are not supported by this operation")
    raise UnsupportedType(f"dtype {dt} is not supported (bool, int8..64, uint8..64, "
                          f"float32, float64, complex64 and complex128 are)")


def of_value(v) -> Ty:
    """The Ty of a concrete Python or NumPy scalar."""
    if isinstance(v, bool):
        return PY_BOOL
    if isinstance(v, np.generic):
        return np_ty(v.dtype)
    if isinstance(v, int):
        return PY_INT
    if isinstance(v, float):
        return PY_FLOAT
    if isinstance(v, complex):
        return PY_COMPLEX
    raise UnsupportedType(f"{type(v).__name__} values are not supported")


def _probe(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            return fn(*args)


@functools.lru_cache(maxsize=None)
def _result(fn, tys: tuple, sample: int):
    r = _probe(fn, *[t.sample(sample) for t in tys])
    return of_value(r)


def result_type(fn, *tys: Ty, sample: int = 1) -> Ty:
    """The type of fn(*values) in plain Python/NumPy (raises UnsupportedType
    when NumPy refuses or gives an unsupported dtype, e.g. float16)."""
    try:
        return _result(fn, tuple(tys), sample)
    except UnsupportedType:
        raise
    except (TypeError, ValueError, OverflowError) as e:
        raise UnsupportedType(str(e)) from None


def promote(a: Ty, b: Ty) -> Ty:
    """The type both operands are converted to for arithmetic/comparison."""
    return result_type(operator.add, a, b) if not (a.is_bool() and b.is_bool()) \
        else (PY_BOOL if a.weak and b.weak else np_ty(np.bool_))


def common(a: Ty, b: Ty) -> Ty:
    """A type that holds values of both (for merging branches): NumPy's
    promotion; Python scalars are weak."""
    if a == b:
        return a
    if a.is_bool() and b.is_bool():
        return a if not a.weak else b
    return result_type(operator.add, a, b)


def parse_dtype(obj):
    """A dtype from np.int32, 'uint8', np.dtype(...), float, int, bool."""
    if obj is float:
        return np.dtype(np.float64)
    if obj is int:
        return np.dtype(np.int64)
    if obj is bool:
        return np.dtype(np.bool_)
    try:
        return np.dtype(obj)
    except TypeError:
        return None
