"""Exceptions of the public API."""
from __future__ import annotations

from .ir.errors import CompileError, HalideError

__all__ = ["CompileError", "HalideError", "BufferTypeError", "ConstraintError"]


class BufferTypeError(HalideError, TypeError):
    """A Buffer of the wrong element type (Halide's error; also a TypeError)."""


class ConstraintError(HalideError, ValueError):
    """A buffer's geometry differs from its constraint at realize (Halide's
    HalideError `Constraint violated: ...`; also a ValueError)."""
