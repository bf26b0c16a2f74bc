"""pyhalide: Halide's algorithm/schedule separation for Python.

Re-exports only, lazily (module __getattr__), so `import pyhalide.ir` does not
pull in the whole package.
"""
from __future__ import annotations

import importlib

__version__ = "0.1.0"

# public name -> module that defines it
_EXPORTS = {}


def _register(module: str, names: str):
    for n in names.split():
        _EXPORTS[n] = module


def __getattr__(name):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pyhalide' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
