"""Exceptions of the public API."""
from __future__ import annotations

from .ir.errors import CompileError, HalideError

__all__ = ["CompileError", "HalideError"]
