"""Scalar and vector types of the IR: bool, int8..64, uint8..64, float32/64."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_CODES = ("int", "uint", "float", "bool")


# memos of the NumPy conversions (per-call paths convert every buffer's dtype)
_TO_NUMPY: dict = {}
_FROM_NUMPY: dict = {}


@dataclass(frozen=True, slots=True)
class Type:
    """A scalar type (lanes == 1) or a vector of `lanes` scalars."""

    code: str
    bits: int
    lanes: int = 1

    def __post_init__(self):
        if self.code not in _CODES:
            raise ValueError(f"unknown type code {self.code!r}")
        valid = {"int": (8, 16, 32, 64), "uint": (8, 16, 32, 64),
                 "float": (32, 64), "bool": (1,)}[self.code]
        if self.bits not in valid:
            raise ValueError(f"{self.code} cannot have {self.bits} bits")
        if self.lanes < 1:
            raise ValueError("lanes must be >= 1")

    # ---- predicates -------------------------------------------------------
    def is_int(self) -> bool:
        return self.code == "int"

    def is_uint(self) -> bool:
        return self.code == "uint"

    def is_float(self) -> bool:
        return self.code == "float"

    def is_bool(self) -> bool:
        return self.code == "bool"

    def is_integer(self) -> bool:
        """int or uint (bool excluded)."""
        return self.code in ("int", "uint")

    def is_scalar(self) -> bool:
        return self.lanes == 1

    def is_vector(self) -> bool:
        return self.lanes > 1

    # ---- derived types ----------------------------------------------------
    def with_lanes(self, lanes: int) -> "Type":
        return Type(self.code, self.bits, lanes)

    def element_of(self) -> "Type":
        return Type(self.code, self.bits, 1)

    def with_code(self, code: str) -> "Type":
        return Type(code, self.bits, self.lanes)

    # ---- ranges -----------------------------------------------------------
    def min_value(self):
        if self.is_int():
            return -(1 << (self.bits - 1))
        if self.is_uint():
            return 0
        if self.is_bool():
            return False
        return float("-inf")

    def max_value(self):
        if self.is_int():
            return (1 << (self.bits - 1)) - 1
        if self.is_uint():
            return (1 << self.bits) - 1
        if self.is_bool():
            return True
        return float("inf")

    def can_represent(self, value) -> bool:
        """Whether a Python number fits this type exactly."""
        if self.is_float():
            return True
        if self.is_bool():
            return value in (0, 1)
        if isinstance(value, float):
            if value != value or value in (float("inf"), float("-inf")):
                return False
            if value != int(value):
                return False
            value = int(value)
        return self.min_value() <= value <= self.max_value()

    def wrap(self, value):
        """Reduce a Python int modulo 2**bits into this integer type's range."""
        if self.is_bool():
            return bool(value)
        if self.is_float():
            return float(value)
        value = int(value) & ((1 << self.bits) - 1)
        if self.is_int() and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value

    # ---- NumPy ------------------------------------------------------------
    def to_numpy(self) -> np.dtype:
        key = (self.code, self.bits)         # (a tuple hashes in C; a Type in Python)
        dt = _TO_NUMPY.get(key)
        if dt is None:
            if self.is_bool():
                dt = np.dtype(np.bool_)
            else:
                dt = np.dtype({"int": "i", "uint": "u", "float": "f"}[self.code]
                              + str(self.bits // 8))
            _TO_NUMPY[key] = dt
        return dt

    @staticmethod
    def from_numpy(dtype) -> "Type":
        dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        t = _FROM_NUMPY.get(dt)
        if t is None:
            if dt.kind == "b":
                t = Type("bool", 1)
            else:
                kind = {"i": "int", "u": "uint", "f": "float"}.get(dt.kind)
                if kind is None or (kind == "float" and dt.itemsize not in (4, 8)):
                    raise TypeError(f"unsupported dtype {dt}")
                t = Type(kind, dt.itemsize * 8)
            _FROM_NUMPY[dt] = t
        return t

    def min(self):
        """The smallest value, as an Expr (a user-level Expr once the API
        layer has registered its wrapper)."""
        from .nodes import Const
        return _wrap_expr(Const(self.element_of(), self.min_value()))

    def max(self):
        from .nodes import Const
        return _wrap_expr(Const(self.element_of(), self.max_value()))

    def bytes(self) -> int:
        return 1 if self.is_bool() else self.bits // 8

    def __str__(self) -> str:
        base = "bool" if self.is_bool() else f"{self.code}{self.bits}"
        return base if self.lanes == 1 else f"{base}x{self.lanes}"

    def __repr__(self) -> str:
        return str(self)


_expr_wrapper = None


def set_expr_wrapper(fn):
    """The user API passes in its Expr constructor (ir imports nothing above)."""
    global _expr_wrapper
    _expr_wrapper = fn


def _wrap_expr(node):
    return _expr_wrapper(node) if _expr_wrapper is not None else node


def Int(bits: int, lanes: int = 1) -> Type:
    return Type("int", bits, lanes)


def UInt(bits: int, lanes: int = 1) -> Type:
    return Type("uint", bits, lanes)


def Float(bits: int, lanes: int = 1) -> Type:
    return Type("float", bits, lanes)


def Bool(lanes: int = 1) -> Type:
    return Type("bool", 1, lanes)


def as_type(t) -> Type:
    """Accept a Type, a NumPy dtype, or anything np.dtype understands."""
    if isinstance(t, Type):
        return t
    return Type.from_numpy(t)


INDEX = Int(32)
ALL_SCALAR_TYPES = (Bool(), Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16),
                    UInt(32), UInt(64), Float(32), Float(64))
