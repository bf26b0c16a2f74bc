"""Builtin `sum`, `min` and `max` of an iterable (a rewrite of rewrites.py,
order 16, before loop_forms.py turns the loops it makes into range loops):
the call becomes a loop, placed before the statement that holds it, that
does what Python's builtin does, in its order:

    s = sum(f(i) for i in range(n) if c(i))      ?s = 0
                                                 for ?i in range(n):
                                                     if c(?i):
                                                         ?s = ?s + f(?i)
                                                 s = ?s
    m = min(a)                                   ?m = 0
                                                 ?first = True
                                                 for ?x in a:
                                                     if ?first or ?x < ?m:
                                                         ?m = ?x; ?first = False
                                                 if ?first:
                                                     raise ValueError("min() arg is an empty sequence")
                                                 m = ?m

(`?` names are fresh `_ph_K_` names here, which messages spell as the user
does.) `sum` adds left to right from `start` (0 by default): a float sum is
Python's sequential sum, bit for bit. `min` keeps the first of equal items
and replaces only where `item < current` (`>` for max), so a NaN is kept only
as the first item, as in Python; `default=` is returned for an empty
iterable. A generator's loop variables are renamed (they do not leak, as in
Python).

Only calls evaluated exactly once when their statement starts are moved
(the value of an assignment, return or expression statement, an `if` test,
a `for` loop's iterable), and not inside a conditional expression, the
later operands of `and`/`or`, a lambda or another generator's element;
elsewhere the interpreter's located error stays. `min`/`max` with several
positional arguments are the scalar builtins (calls.py), and `key=` is
refused."""
from __future__ import annotations

import ast
import builtins

from .loop_seqs import NodeBuilder, local_names
from .names import MISSING, SCOPE_ATTR, VALUE_ATTR, lookup_global
from .rewrite_registry import register


def _empty_message(fn) -> str:
    try:
        fn(())
    except ValueError as e:
        return str(e)
    raise AssertionError(fn)


# Python's message for an empty iterable ("min() iterable argument is empty")
_EMPTY = {"min": _empty_message(min), "max": _empty_message(max)}
_EAGER = {ast.Assign: "value", ast.AugAssign: "value", ast.AnnAssign: "value",
          ast.Return: "value", ast.Expr: "value", ast.If: "test", ast.For: "iter"}


@register(16)
def loop_builtins(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    """Rewrite the builtin sum/min/max calls of iterables (module doc)."""
    _Reductions(tree, smap, py_fn).run()
    return tree


class _Reductions(NodeBuilder):
    def __init__(self, tree, smap, py_fn):
        self.tree, self.smap, self.py_fn = tree, smap, py_fn
        self.names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
            {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
        self.local = local_names(tree)
        self.ref = tree

    def run(self):
        self.tree.body = self.block(self.tree.body)

    def fresh(self, what):
        k = 1
        while f"_ph_{k}_{what}" in self.names:
            k += 1
        self.names.add(f"_ph_{k}_{what}")
        return f"_ph_{k}_{what}"

    # statements ----------------------------------------------------------------------
    def block(self, stmts):
        out = []
        for s in stmts:
            out += self.stmt(s)
        return out

    def stmt(self, s):
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, self.block(getattr(s, field)))
        field = _EAGER.get(type(s))
        if field is None or getattr(s, field, None) is None:
            return [s]
        before = []
        setattr(s, field, self.expr(getattr(s, field), before))
        # the loops made may hold reductions of their own (a sum of sums)
        return self.block(before) + [s] if before else [s]

    def expr(self, e, before):
        """e with its eagerly evaluated reductions replaced by names whose
        loops are appended to `before` (innermost first: Python's order)."""
        if isinstance(e, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp,
                          ast.DictComp)):
            return e
        if isinstance(e, ast.IfExp):
            e.test = self.expr(e.test, before)
            return e
        if isinstance(e, ast.BoolOp):
            e.values[0] = self.expr(e.values[0], before)
            return e
        for field, value in ast.iter_fields(e):
            if isinstance(value, ast.expr):
                setattr(e, field, self.expr(value, before))
            elif isinstance(value, list):
                setattr(e, field, [self.expr(v, before) if isinstance(v, ast.expr) else v
                                   for v in value])
        if isinstance(e, ast.Call):
            kind = self.reduction(e)
            if kind is not None:
                return self.rewrite(e, kind, before)
        return e

    # the builtins ---------------------------------------------------------------------
    def reduction(self, call):
        """"sum"/"min"/"max" if call is that builtin of one iterable."""
        f = call.func
        if not isinstance(f, ast.Name) or f.id not in ("sum", "min", "max"):
            return None
        if not self.is_builtin(f):
            return None
        if any(isinstance(a, ast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            return None
        if f.id == "sum":
            if not 1 <= len(call.args) <= 2 or any(k.arg != "start" for k in call.keywords) \
                    or (len(call.args) == 2 and call.keywords):
                return None
            return "sum"
        if len(call.args) != 1:
            return None         # min(x, y, ...): the scalar builtin
        for k in call.keywords:
            if k.arg == "key":
                raise self.smap.error(k, f"{f.id}(key=...) is not supported",
                                      hint="compare the keys in a loop")
            if k.arg != "default":
                return None
        return f.id

    def is_builtin(self, f: ast.Name) -> bool:
        fixed = getattr(f, VALUE_ATTR, None)
        if fixed is not None:
            return fixed[0] is getattr(builtins, f.id)
        scope = getattr(f, SCOPE_ATTR, None)
        if scope is None and f.id in self.local:
            return False
        g = lookup_global(scope if scope is not None else self.py_fn, f.id)
        return g is MISSING or g is getattr(builtins, f.id)

    def rewrite(self, call, kind, before):
        self.ref = call
        arg = call.args[0]
        item = self.fresh("x")
        loops, body_at = self.loops(arg, item)
        result = self.fresh(kind)
        if kind == "sum":
            start = call.args[1] if len(call.args) == 2 else next(
                (k.value for k in call.keywords if k.arg == "start"), self.const(0))
            before.append(self.assign(self.name(result, store=True), start))
            body_at.append(self.assign(self.name(result, store=True),
                                       self.binop(self.name(result), ast.Add(),
                                                  self.name(item))))
            before += loops
            return self.name(result)
        first = self.fresh("first")
        # `?m = 0` only gives ?m a value to read where `?first` says it has none
        # (the `or` does not read it then): the loop gives it the items' type
        before.append(self.assign(self.name(result, store=True), self.const(0)))
        before.append(self.assign(self.name(first, store=True), self.const(True)))
        op = ast.Lt() if kind == "min" else ast.Gt()
        better = self.node(ast.Compare(left=self.name(item), ops=[op],
                                       comparators=[self.name(result)]))
        body_at.append(self.node(ast.If(
            test=self.node(ast.BoolOp(op=ast.Or(), values=[self.name(first), better])),
            body=[self.assign(self.name(result, store=True), self.name(item)),
                  self.assign(self.name(first, store=True), self.const(False))],
            orelse=[])))
        before += loops
        default = next((k.value for k in call.keywords if k.arg == "default"), None)
        if default is not None:
            empty = [self.assign(self.name(result, store=True), default)]
        else:
            exc = self.call("ValueError", [self.const(_EMPTY[kind])])
            empty = [self.node(ast.Raise(exc=exc, cause=None))]
        before.append(self.node(ast.If(test=self.name(first), body=empty, orelse=[])))
        return self.name(result)

    def loops(self, arg, item):
        """(the loop statements walking the iterable, assigning each item to
        `item`; the statement list of the innermost body, to append to)."""
        if not isinstance(arg, ast.GeneratorExp):
            body = []
            loop = self.node(ast.For(target=self.name(item, store=True), iter=arg,
                                     body=body, orelse=[], type_comment=None))
            return [loop], body
        renames = {}
        for comp in arg.generators:
            if comp.is_async:
                raise self.smap.error(comp, "async generators are not supported")
            for n in ast.walk(comp.target):
                if isinstance(n, ast.Name):
                    renames[n.id] = self.fresh(n.id)
        sub = _Rename(renames)
        outer, body = [], None
        for comp in arg.generators:
            inner = []
            loop = self.node(ast.For(target=sub.visit(comp.target), iter=sub.visit(comp.iter),
                                     body=inner, orelse=[], type_comment=None))
            (outer if body is None else body).append(loop)
            body = inner
            for cond in comp.ifs:
                nested = []
                body.append(self.node(ast.If(test=sub.visit(cond), body=nested, orelse=[])))
                body = nested
        body.append(self.assign(self.name(item, store=True), sub.visit(arg.elt)))
        return outer, body


class _Rename(ast.NodeTransformer):
    """The generator's target names renamed (its iterables and element are
    taken as they are: the first iterable is read in the enclosing scope,
    where the new names are not bound)."""

    def __init__(self, renames):
        self.renames = renames

    def visit_Name(self, n):
        if n.id in self.renames:
            return ast.copy_location(ast.Name(id=self.renames[n.id], ctx=n.ctx), n)
        return n
