"""Exceptions of the public API."""
from __future__ import annotations

from .ir.errors import CompileError, HalideError

__all__ = ["CompileError", "HalideError", "BufferTypeError"]


class BufferTypeError(HalideError, TypeError):
    """A Buffer of the wrong element type (Halide's error; also a TypeError)."""
