"""Expression lambdas bound to a name and called (a rewrite of rewrites.py,
order 5, before the calls of user functions are inlined):

    fprime = lambda x: 1 - power(tanh(x), 2)       (removed)
    y = fprime(a[k]) * fprime(b[i])                y = (1 - power(tanh(a[k]), 2)) *
                                                       (1 - power(tanh(b[i]), 2))

Each call is replaced by the lambda's body with its parameters replaced by
the call's arguments (a lambda's free names are read when it is called, in
Python too, so the body means at the call site what it means in the lambda).
Compiled expressions have no side effects, so an argument substituted in
several places gives the value of evaluating it once; an argument that is
not a name or a constant must be read where the body always evaluates it
(not only after `and`/`or` or in a branch of `x if c else y`), or its errors
(an index out of range) could be missed.

The lambda must be bound once, by a statement `name = lambda ...:` of the
function's top level, and the name only called, by statements after it.
Another lambda (passed as an argument, stored, bound in a loop) is refused
where it is: by this rewrite when it is bound to a name, else by the
supported-subset check."""
from __future__ import annotations

import ast

from .inline_calls import clone_node, substitute_names, unconditional_uses
from .rewrite_registry import register


@register(5)
def lambdas(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    found = _bound_lambdas(tree, smap)
    if not found:
        return tree
    _check_uses(tree, smap, found)
    body = []
    for i, s in enumerate(tree.body):
        if isinstance(s, ast.Assign) and i in {d for d, _ in found.values()}:
            continue
        body.append(_Expand(smap, found, i).visit(s))
    tree.body = body
    return tree


def _bound_lambdas(tree, smap) -> dict:
    """name -> (index of the top-level statement binding it, the Lambda)."""
    found = {}
    for i, s in enumerate(tree.body):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and isinstance(s.value, ast.Lambda):
            name, lam = s.targets[0].id, s.value
            _check_signature(lam, smap, name)
            if name in found:
                raise smap.error(s, f"the lambda name {name!r} is bound twice",
                                 hint="give each lambda its own name")
            found[name] = (i, lam)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda) and \
                not any(node is tree.body[i] for i, _ in found.values()):
            raise smap.error(node.value, "a lambda is compiled only when it is bound to a "
                                         "name at the function's top level",
                             hint="bind it once before the loops (`f = lambda x: ...`), or "
                                  "write a module-level function")
    return found


def _check_signature(lam, smap, name):
    a = lam.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
        raise smap.error(lam, f"the lambda {name!r} has defaults or `*`/`**`/keyword-only "
                              f"parameters, which are not supported",
                         hint="use plain positional parameters, or a module-level function")


def _check_uses(tree, smap, found):
    params = {a.arg for a in tree.args.args + tree.args.kwonlyargs}
    calls = {id(c.func) for c in ast.walk(tree) if isinstance(c, ast.Call)}
    bindings = {id(tree.body[d].targets[0]) for d, _ in found.values()}
    for n in ast.walk(tree):
        if not isinstance(n, ast.Name) or n.id not in found:
            continue
        if n.id in params:
            raise smap.error(n, f"the lambda name {n.id!r} is also a parameter",
                             hint="give the lambda another name")
        if not isinstance(n.ctx, ast.Load) and id(n) not in bindings:
            raise smap.error(n, f"the lambda name {n.id!r} is assigned again",
                             hint="give each lambda its own name")
        if isinstance(n.ctx, ast.Load) and id(n) not in calls:
            raise smap.error(n, f"the lambda {n.id!r} is used other than called",
                             hint=f"call it (`{n.id}(...)`), or write a module-level "
                                  f"function")


class _Expand(ast.NodeTransformer):
    """Calls of the bound lambdas in one top-level statement (number `at`)
    replaced by their bodies, recursively (a lambda may call another)."""

    def __init__(self, smap, found, at):
        self.smap, self.found, self.at, self.stack = smap, found, at, []

    def visit_Lambda(self, node):
        return node                  # bound lambdas are skipped; others are refused later

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if not isinstance(f, ast.Name) or f.id not in self.found:
            return node
        d, lam = self.found[f.id]
        if d >= self.at:
            raise self.smap.error(node, f"the lambda {f.id!r} is called before it is bound",
                                  hint="bind it before this line")
        if f.id in self.stack:
            raise self.smap.error(node, f"recursion ({f.id!r} calls itself) is not supported",
                                  hint="write the recursion as a loop")
        names = [a.arg for a in lam.args.args]
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) or \
                len(node.args) != len(names):
            raise self.smap.error(node, f"the lambda {f.id!r} takes {len(names)} positional "
                                        f"arguments (keywords and `*` are not supported)",
                                  hint="pass each argument by position")
        subst = dict(zip(names, node.args))
        uses = unconditional_uses(lam.body, subst)
        for p, arg in subst.items():
            if not isinstance(arg, (ast.Name, ast.Constant)) and not uses.get(p):
                raise self.smap.error(arg, f"the lambda {f.id!r} does not always read this "
                                           f"argument, so its errors could be missed",
                                      hint="assign the argument to a variable on a line "
                                           "before")
        body = substitute_names(clone_node(lam.body), subst)
        self.stack.append(f.id)
        try:
            body = self.visit(body)
        finally:
            self.stack.pop()
        return body
