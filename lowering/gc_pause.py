"""Python's cyclic garbage collector paused while a compile runs.

Lowering and code generation build hundreds of thousands of objects (IR
nodes: frozen dataclasses and memos of (node, result) pairs; llvmlite
objects, alive until the module is printed) with no cycles among them; the
collections they trigger traverse all of them again and again (a fifth of
interpolate's lowering time, half of its codegen time). Reference counting
still frees what is dropped, and whatever cycles remain are collected after.
A caller that disabled the collector keeps it disabled."""
from __future__ import annotations

import contextlib
import gc


@contextlib.contextmanager
def cycle_collection_paused():
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
