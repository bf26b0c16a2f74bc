"""`np.copyto(dst, src, ...)` statements (a rewrite of rewrites.py, order 13,
after the calls of user functions are inlined):

    np.copyto(dst, src)          dst[...] = np.copyto(dst, src)   (the call marked COPYTO_ATTR)

so the write is an assignment like any other (the loop analyses see which
array it writes). The marked call (array_copyto.py) checks NumPy's casting
rule and is src's value; Python evaluates dst and src before writing, as the
assignment does (compiled expressions have no side effects, so evaluating
dst twice reads what Python reads once)."""
from __future__ import annotations

import ast

from .rewrite_registry import register

COPYTO_ATTR = "_pyhalide_copyto"


@register(13)
def copyto_statements(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    _Rewriter().visit(tree)
    return tree


def _is_copyto(call) -> bool:
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else None)
    return name == "copyto" and call.args and not isinstance(call.args[0], ast.Starred)


class _Rewriter(ast.NodeTransformer):
    def visit_Expr(self, node):
        call = node.value
        if not (isinstance(call, ast.Call) and _is_copyto(call)):
            return node
        setattr(call, COPYTO_ATTR, True)
        target = ast.Subscript(value=call.args[0], slice=ast.Constant(Ellipsis),
                               ctx=ast.Store())
        out = ast.Assign(targets=[target], value=call)
        for n in (target, target.slice, out):
            ast.copy_location(n, node)
        return out
