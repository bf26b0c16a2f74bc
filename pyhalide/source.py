"""Source locations of user code, for error messages."""
from __future__ import annotations

import linecache
import os
import sys

from .ir import SourceLoc
from .ir import at as at  # (re-exported: the message suffix of a location)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_ROOT_DIR = os.path.dirname(_PACKAGE_DIR)
INTERNAL_DIRS = tuple(os.path.join(_ROOT_DIR, d) + os.sep
                  for d in ("pyhalide", "frontend_ast", "lowering", "tables"))


def user_location() -> SourceLoc | None:
    """The innermost calling frame outside pyhalide's own code."""
    f = sys._getframe(1)
    while f is not None:
        path = os.path.abspath(f.f_code.co_filename)
        if not path.startswith(INTERNAL_DIRS):
            line = f.f_lineno
            text = linecache.getline(path, line).rstrip("\n")
            return SourceLoc(f.f_code.co_filename, line, 0, text)
        f = f.f_back
    return None
