"""The names whose elements or attributes a piece of code assigns."""
from __future__ import annotations

import ast


def written_names(nodes) -> set:
    """The names whose elements or attributes the AST nodes `nodes` (an
    iterable) assign anywhere inside them (`a[i, j] = ...`, `a[i] += ...`,
    `a.x = ...`)."""
    return {n.value.id for node in nodes for n in ast.walk(node)
            if isinstance(n, (ast.Subscript, ast.Attribute)) and
            isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name)}
