"""Imports among the first statements of a function (`import numpy as np`,
`import math`, `from math import sqrt`, `from numpy import zeros`): each
name they bind stands for the imported object (VALUE_ATTR on its Name
nodes, read by exprs.py) and the statements are removed. Used by the
inline_calls rewrite on the decorated function and on each function it
inlines."""
from __future__ import annotations

import ast
import importlib
import sys

from .analyze import names_assigned
from .names import VALUE_ATTR


def bind_imports(tree, smap, fn):
    """Imports among the function's top-level statements bind their names to
    the imported objects; the statements are removed (an import elsewhere
    stays, and analyze.py refuses it)."""
    bound, body = {}, []
    for stmt in tree.body:
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
            body.append(stmt)
            continue
        for name, value in _imported(stmt, smap, fn):
            if name in bound and bound[name][0] is not value:
                raise smap.error(stmt, f"{name!r} is imported twice, as different objects",
                                 hint="use another name for one of them")
            bound.setdefault(name, (value, stmt))
    if not bound:
        return
    tree.body = body
    assigned = names_assigned(tree.body) | {a.arg for a in tree.args.args}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Name) or node.id not in bound:
            continue
        value, stmt = bound[node.id]
        if node.id in assigned:
            raise smap.error(node, f"{node.id!r} is both imported and assigned in this function",
                             hint="use another name for one of them")
        if (node.lineno, node.col_offset) < (stmt.lineno, stmt.col_offset):
            raise smap.error(node, f"{node.id!r} is used before it is imported",
                             hint="move the import to the start of the function")
        setattr(node, VALUE_ATTR, (value,))


def _imported(stmt, smap, fn):
    """[(local name, object)] an import statement binds."""
    try:
        if isinstance(stmt, ast.Import):
            out = []
            for a in stmt.names:
                mod = importlib.import_module(a.name)
                if a.asname:
                    out.append((a.asname, mod))
                else:
                    top = a.name.split(".")[0]
                    out.append((top, sys.modules[top]))
            return out
        package = fn.__globals__.get("__package__")
        mod = importlib.import_module("." * stmt.level + (stmt.module or ""), package)
        out = []
        for a in stmt.names:
            if a.name == "*":
                raise smap.error(stmt, "`from ... import *` is not supported",
                                 hint="import the names you use")
            if hasattr(mod, a.name):
                value = getattr(mod, a.name)
            else:
                value = importlib.import_module(f"{mod.__name__}.{a.name}")
            out.append((a.asname or a.name, value))
        return out
    except ImportError as e:
        raise smap.error(stmt, f"cannot import: {e}") from None
