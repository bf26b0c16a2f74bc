"""Exceptions of the public API."""
from __future__ import annotations


class CompileError(Exception):
    """An invalid algorithm or schedule. The message names the Func, stage or
    variable at fault and, where known, the user's source line."""
