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

import ast

PASSES: list = []        # (order, name, fn), kept sorted by order


def register(order: int):
    """Register a rewrite; lower orders run first."""
    def deco(fn):
        PASSES.append((order, fn.__name__, fn))
        PASSES.sort(key=lambda p: p[0])
        return fn
    return deco


def rewrite(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """Run every registered rewrite over the function's tree."""
    for _, _, fn in PASSES:
        tree = fn(tree, smap, py_fn)
        ast.fix_missing_locations(tree)
    return tree


# The rewrite modules register themselves when imported (one line each):
from .loop_exits import loop_exits  # noqa: E402

register(30)(loop_exits)
