"""Scalar and vector types of the IR: bool, int8..64, uint8..64, float32/64."""
from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

_CODES = ("int", "uint", "float", "bool", "handle")


class TypeCode(enum.Enum):
    """Halide's hl.TypeCode (what Type.code() returns)."""
    Int = "int"
    UInt = "uint"
    Float = "float"
    Handle = "handle"
    BFloat = "bfloat"


class _Bits(int):
    """An int that Halide's spelling can also call: t.bits and t.bits() agree."""
    __slots__ = ()

    def __call__(self) -> int:
        return int(self)


class _Code(str):
    """The type code as a string; t.code() gives Halide's hl.TypeCode (bool is
    UInt(1) there)."""
    __slots__ = ()

    def __call__(self) -> TypeCode:
        return TypeCode.UInt if self == "bool" else TypeCode(str(self))


# memos of the NumPy conversions (per-call paths convert every buffer's dtype)
_TO_NUMPY: dict = {}
_FROM_NUMPY: dict = {}


_CODE_OF = {c: _Code(c) for c in _CODES}
_CODE_OF.update({tc: _CODE_OF[tc.value] for tc in TypeCode if tc.value in _CODES})
_VALID_BITS = {"int": (8, 16, 32, 64), "uint": (8, 16, 32, 64), "float": (32, 64),
               "bool": (1,), "handle": (0, 64)}
_BITS = {n: _Bits(n) for n in (0, 1, 8, 16, 32, 64)}
_LANES = {n: _Bits(n) for n in range(0, 65)}
_HALF = {n: 1 << (n - 1) for n in (8, 16, 32, 64)}       # 2**(bits - 1) of the integer types


@dataclass(frozen=True, slots=True)
class Type:
    """A scalar type (lanes == 1) or a vector of `lanes` scalars."""

    code: str = "handle"        # Type() is Halide's default: a Handle of 0 bits, 0 lanes
    bits: int = 0
    lanes: int = 1

    def __post_init__(self):
        code = _CODE_OF.get(self.code)
        if code is None:
            raise ValueError(f"unknown type code {self.code!r}")
        bits = self.bits
        if code == "uint" and bits == 1:
            code = _CODE_OF["bool"]          # Halide's Type(UInt, 1, n) is Bool(n)
        if bits not in _VALID_BITS[code]:
            raise ValueError(f"{code} cannot have {bits} bits")
        lanes = self.lanes
        if code == "handle":
            lanes = 0 if bits == 0 else lanes
        elif lanes < 1:
            raise ValueError("lanes must be >= 1")
        # Halide's t.code(), t.bits(), t.lanes() are methods; here also plain values
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "bits", _BITS[bits])
        object.__setattr__(self, "lanes", _LANES.get(lanes) or _Bits(lanes))

    def __reduce__(self):
        return (Type, (str(self.code), int(self.bits), int(self.lanes)))

    # ---- predicates -------------------------------------------------------
    def is_int(self) -> bool:
        return self.code == "int"

    def is_uint(self) -> bool:
        return self.code == "uint"

    def is_float(self) -> bool:
        return self.code == "float"

    def is_bool(self) -> bool:
        return self.code == "bool"

    def is_handle(self) -> bool:
        return self.code == "handle"

    def same_handle_type(self, other: "Type") -> bool:
        return self.is_handle() and other.is_handle()

    def is_integer(self) -> bool:
        """int or uint (bool excluded)."""
        return self.code in ("int", "uint")

    def is_scalar(self) -> bool:
        return self.lanes == 1

    def is_vector(self) -> bool:
        return self.lanes > 1

    # ---- derived types ----------------------------------------------------
    def with_lanes(self, lanes: int) -> "Type":
        return _type(self.code, self.bits, lanes)

    def element_of(self) -> "Type":
        return _type(self.code, self.bits, 1)

    def with_code(self, code) -> "Type":
        return _type(code, self.bits, self.lanes)

    def with_bits(self, bits: int) -> "Type":
        return _type("uint" if self.is_bool() else self.code, bits, self.lanes)

    def _halide_code(self) -> tuple:
        """(code, bits) as Halide sees them: bool is uint of 1 bit."""
        return ("uint", 1) if self.is_bool() else (str(self.code), int(self.bits))

    def is_max(self, x: int) -> bool:
        """Whether x is this integer type's largest value (Halide's Type::is_max)."""
        code, bits = self._halide_code()
        return code in ("int", "uint") and x == (1 << (bits - (code == "int"))) - 1

    def is_min(self, x: int) -> bool:
        code, bits = self._halide_code()
        return code in ("int", "uint") and x == (-(1 << (bits - 1)) if code == "int" else 0)

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
        """Whether a Python number fits this type exactly; for a Type, whether
        every value of it does (Halide's Type::can_represent)."""
        if isinstance(value, Type):
            return self._represents_type(value)
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

    def _represents_type(self, other: "Type") -> bool:
        if self.lanes != other.lanes:
            return False
        (code, bits), (ocode, obits) = self._halide_code(), other._halide_code()
        if code == "int":
            return (ocode == "int" and obits <= bits) or (ocode == "uint" and obits < bits)
        if code == "uint":
            return ocode == "uint" and obits <= bits
        if code == "float":
            return (ocode == "float" and obits <= bits) or (bits == 64 and obits <= 32) or \
                (bits == 32 and obits <= 16)
        return False

    def wrap(self, value):
        """Reduce a Python int modulo 2**bits into this integer type's range."""
        code = self.code
        if type(value) is int and (code == "int" or code == "uint"):
            # (the common case first: a value already in range is itself)
            half = _HALF[self.bits]
            if (-half <= value < half) if code == "int" else (0 <= value < 2 * half):
                return value
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
        return f"<halide.Type {self}>"     # Halide 21's repr (str is the bare name)


_expr_wrapper = None


def set_expr_wrapper(fn):
    """The user API passes in its Expr constructor (ir imports nothing above)."""
    global _expr_wrapper
    _expr_wrapper = fn


def _wrap_expr(node):
    return _expr_wrapper(node) if _expr_wrapper is not None else node


_TYPES: dict = {}


def _type(code, bits, lanes) -> Type:
    """Type(code, bits, lanes), one object per distinct argument triple
    (Types are immutable; the compiler's passes ask for the same few types
    very often, and building one validates its fields)."""
    key = (code, bits, lanes)
    t = _TYPES.get(key)
    if t is None:
        t = _TYPES[key] = Type(code, bits, lanes)
    return t


def Int(bits: int, lanes: int = 1) -> Type:
    return _type("int", bits, lanes)


def UInt(bits: int, lanes: int = 1) -> Type:
    return _type("uint", bits, lanes)


def Float(bits: int, lanes: int = 1) -> Type:
    return _type("float", bits, lanes)


def Bool(lanes: int = 1) -> Type:
    return _type("bool", 1, lanes)


def Handle(lanes: int = 1) -> Type:
    """Halide's opaque pointer type: a Type to inspect (64 bits), never a value's."""
    return Type("handle", 64, lanes)


def as_type(t) -> Type:
    """Accept a Type, a NumPy dtype, or anything np.dtype understands; a
    Handle is refused (no value has that type here)."""
    if isinstance(t, Type):
        if t.is_handle():
            raise NotImplementedError(
                "hl.Handle (Halide's opaque pointer type) cannot be the type of a value, "
                "a Buffer or a Param here: pyhalide values are numbers and booleans only")
        return t
    return Type.from_numpy(t)


INDEX = Int(32)
ALL_SCALAR_TYPES = (Bool(), Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16),
                    UInt(32), UInt(64), Float(32), Float(64))
