"""The registry of the source-to-source rewrites (see rewrites.py): a rewrite
module registers its function here, and rewrites.py imports the rewrite
modules, so no rewrite module imports rewrites.py (nor source.py: a rewrite
that parses another function uses source_read.py and `rewrite`)."""
from __future__ import annotations

import ast

PASSES: list = []        # (order, name, fn), kept sorted by order


def register(order: float):
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
