"""Tuple assignments with element or slice targets (a rewrite of rewrites.py, order 12,
after the calls of user functions are inlined):

    a[i], a[j] = a[j], a[i]          _ph_1_t, _ph_2_t = a[j], a[i]
                                     a[i] = _ph_1_t
                                     a[j] = _ph_2_t
    q[i], (r[i], k) = f(x)           _ph_1_t, _ph_2_t = f(x)
                                     q[i] = _ph_1_t
                                     _ph_3_t, _ph_4_t = _ph_2_t
                                     r[i] = _ph_3_t
                                     k = _ph_4_t

Python evaluates the whole right side first, then assigns the targets from
left to right, each target's own index expressions evaluated when it is
assigned (`i, a[i] = 1, 5` writes a[1]). The rewrite keeps that order: the
right side is unpacked into fresh names (a tuple assignment of names, which
the interpreter compiles, with its own checks of the number of values), then
each target is assigned its value in order. A fresh name holds what Python's
tuple holds (a view stays a view). Assignments whose targets are all names
are left as they are."""
from __future__ import annotations

import ast
import re

from .loop_forms import LoopFormRewriter
from .rewrite_registry import register

# the names of the fresh temporaries (LoopFormRewriter.fresh("t"))
_TEMPORARY = re.compile(r"_*_ph_\d+_t$")


def is_temporary(name: str) -> bool:
    """Whether `name` is a temporary this rewrite made."""
    return _TEMPORARY.match(name) is not None


@register(12)
def tuple_targets(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    _Rewriter(tree).visit(tree)
    return tree


def _needs_rewrite(target) -> bool:
    return isinstance(target, (ast.Tuple, ast.List)) and any(
        not isinstance(e, ast.Name) for e in target.elts)


class _Rewriter(ast.NodeTransformer):
    def __init__(self, tree):
        self.b = LoopFormRewriter(tree, None)      # node builders and fresh names

    def visit_Assign(self, node):
        if len(node.targets) != 1 or not _needs_rewrite(node.targets[0]) or \
                any(isinstance(e, ast.Starred) for e in node.targets[0].elts):
            return node
        self.b.ref = node
        return self._unpack(node.targets[0], node.value)

    def _unpack(self, target, value) -> list:
        b = self.b
        temps = [b.fresh("t") for _ in target.elts]
        unpack = ast.Tuple(elts=[b.name(t, store=True) for t in temps], ctx=ast.Store())
        out = [b.assign(b.node(unpack), value)]
        for elt, temp in zip(target.elts, temps):
            if _needs_rewrite(elt) and not any(isinstance(e, ast.Starred) for e in elt.elts):
                out.extend(self._unpack(elt, b.name(temp)))
            else:
                out.append(b.assign(elt, b.name(temp)))
        return out
