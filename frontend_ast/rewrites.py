"""Source-to-source rewrites of the decorated function's AST, run once after
parsing and before the supported-subset check (analyze.check_supported):
each turns a Python construct into ones the interpreter (builder.py)
compiles, keeping Python's semantics exactly and the user's source
locations (a node built from another node copies its location; a node taken
from another function's source carries that function's SourceMap, see
errors.ORIGIN_ATTR).

A rewrite is `fn(tree: ast.FunctionDef, smap: SourceMap, py_fn) -> ast.FunctionDef`
(py_fn is the decorated Python function, for its globals and closure),
registered with `register(order)`; they run in increasing order. Errors are
located FrontendErrors (smap.error)."""
from __future__ import annotations

from .rewrite_registry import PASSES, register, rewrite

# a rewrite module registers with `from .rewrite_registry import register`
# (importing this module from it would make an import cycle)
__all__ = ["PASSES", "register", "rewrite"]


# The rewrite modules register themselves with rewrite_registry.register when
# imported (one line each):
from . import (  # noqa: E402,F401,E501
    copyto_statements,
    element_regions,
    gather_dots,
    generators,
    inline_calls,
    lambdas,
    list_swaps,
    loop_builtins,
    loop_exit_carries,
    loop_exits,
    loop_forms,
    loop_merge,
    loop_prologue,
    loop_steps,
    loop_write_slots,
    moving_slices,
    nested_defs,
    slice_dots,
    slice_steps,
    swap_temps,
    tuple_targets,
    while_exit_write,
)
