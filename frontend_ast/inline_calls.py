"""Calls of the user's own Python functions, inlined at the call site
(rewrite order 10, see rewrites.py).

A called function (module-level, from the closure, imported from another of
the user's modules, or itself @pipeline-decorated) is parsed by the same
frontend (source.parse_function, which runs the rewrites on it first) and
its body is copied in place of the call: its locals renamed apart
(`_ph_<n>_<name>`), its parameters bound to the arguments (a name or a
constant argument is substituted, any other is evaluated once, in order,
into a fresh local), missing arguments taken from its defaults, and its
`return`s turned into assignments of the call's result. The copied nodes
keep the helper's SourceMap (errors.ORIGIN_ATTR), so errors point at the
helper's file and line, and its free names are resolved in the helper's
module and closure (SCOPE_ATTR). Imports at the start of a function
(`import numpy as np`, `from math import sqrt`) bind their names to the
imported objects (VALUE_ATTR).

A call whose code runs before the statement it is in (the statement's other
operands are then evaluated after it) is exact because compiled expressions
have no side effects; a helper that writes into arrays must therefore be
called as a statement or as the whole right-hand side of an assignment. In
a position evaluated only sometimes or once per item (after `and`/`or`, in
a branch of `x if c else y`, in a `while` condition, in the element of a
generator expression) only a helper that is one `return <expression>`,
after assignments of names that fold into it (_folded), is inlined, as that
expression."""
from __future__ import annotations

import ast
import itertools
import threading
import types

from .analyze import names_assigned
from .errors import ORIGIN_ATTR, FrontendError
from .function_imports import bind_imports
from .names import (
    PREFIX,
    RESOLVED_ATTR,
    SCOPE_ATTR,
    VALUE_ATTR,
    is_user_function,
    lookup_global,
)
from .nested_defs import NESTED_ATTR
from .rewrite_registry import register, rewrite
from .source_read import read_function

FIXED_ATTR = "_pyhalide_fixed"    # on the decorated function's tree: {param: (function, call)}
GEN_ATTR = "_pyhalide_generator"  # on a tuple(<generator>) call rewritten by generators.py

_counter = itertools.count(1)
_state = threading.local()        # .stack: the functions being inlined (outermost first);
                                  # .parsed: function -> its ParsedFunction


@register(10)
def inline_calls(tree: ast.FunctionDef, smap, py_fn) -> ast.FunctionDef:
    fn = getattr(py_fn, "py_func", py_fn)
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id.startswith(PREFIX):
            raise smap.error(node, f"names starting with {PREFIX!r} are reserved by @pipeline",
                             hint="rename the variable")
    if not stack:
        _state.parsed = {}
    stack.append(fn)
    try:
        bind_imports(tree, smap, fn)
        inl = _Inliner(tree, smap, fn, top=len(stack) == 1)
        tree.body = inl.block(tree.body, frozenset())
        if inl.fixed:
            setattr(tree, FIXED_ATTR, inl.fixed)
        if inl.resolved:
            setattr(tree, RESOLVED_ATTR, inl.resolved)
    finally:
        stack.pop()
    return tree


def stale_inlined(tree) -> bool:
    """Whether a name whose function this tree inlined names another one now."""
    return any(lookup_global(scope, name) is not obj
               for scope, name, obj in getattr(tree, RESOLVED_ATTR, ()))


# resolving a called name ------------------------------------------------------------------
class _Inliner:
    def __init__(self, tree, smap, fn, top):
        self.tree, self.smap, self.fn, self.top = tree, smap, fn, top
        self.locals = names_assigned(tree.body) | {a.arg for a in tree.args.args}
        self.fixed = {}
        self.resolved = []
        self.defaults = _param_defaults(fn, tree)

    def callee(self, func):
        """The user function a call's function expression names, or None."""
        if isinstance(func, ast.Attribute):
            mod = self.callee_module(func.value)
            obj = getattr(mod, func.attr, None) if mod is not None else None
            return obj if is_user_function(obj) else None
        if not isinstance(func, ast.Name):
            return None
        if hasattr(func, VALUE_ATTR):
            obj = getattr(func, VALUE_ATTR)[0]
            return obj if is_user_function(obj) else None
        scope = getattr(func, SCOPE_ATTR, None)
        if scope is None:
            if func.id in self.locals:
                return self.fixed_default(func)
            scope = self.fn
        obj = lookup_global(scope, func.id)
        if is_user_function(obj):
            self.resolved.append((scope, func.id, obj))
            return obj
        return None

    def callee_module(self, node):
        if isinstance(node, ast.Name) and not hasattr(node, VALUE_ATTR) and \
                (hasattr(node, SCOPE_ATTR) or node.id not in self.locals):
            obj = lookup_global(getattr(node, SCOPE_ATTR, self.fn), node.id)
        elif isinstance(node, ast.Name) and hasattr(node, VALUE_ATTR):
            obj = getattr(node, VALUE_ATTR)[0]
        else:
            return None
        if isinstance(obj, types.ModuleType):
            return obj
        return None

    def fixed_default(self, func):
        """A parameter of the decorated function whose default is a function,
        called and never assigned: the call compiles the default (a call
        passing another function is refused when it is specialized)."""
        name = func.id
        fn = self.defaults.get(name)
        if not self.top or not is_user_function(fn) or \
                name in names_assigned(self.tree.body):
            return None
        self.fixed.setdefault(name, (getattr(fn, "py_func", fn), func))
        return fn

    # statements ------------------------------------------------------------------------
    def block(self, stmts, stack) -> list:
        out = []
        for s in stmts:
            out.extend(self.stmt(s, stack))
        return out

    def stmt(self, s, stack) -> list:
        pre = []
        if isinstance(s, (ast.For, ast.While, ast.If)):
            if isinstance(s, ast.For):
                s.iter = self.expr(s.iter, pre, stack)
            elif isinstance(s, ast.If):
                s.test = self.expr(s.test, pre, stack)
            else:
                s.test = self.expr(s.test, pre, stack, conditional="a `while` condition")
            s.body = self.block(s.body, stack)
            s.orelse = self.block(s.orelse, stack)
            return pre + [s]
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            value = self.expr(s.value, pre, stack, whole=True)
            if isinstance(value, (ast.Name, ast.Constant)):
                return pre           # a call as a statement: its result is unused
            s.value = value
            return pre + [s]
        whole = isinstance(s, (ast.Assign, ast.Return, ast.AnnAssign))
        for field in ("value", "test", "msg"):
            e = getattr(s, field, None)
            if isinstance(e, ast.expr):
                setattr(s, field, self.expr(e, pre, stack, whole=whole and field == "value",
                                            conditional="an assert message"
                                            if field == "msg" else None))
        if isinstance(s, ast.Assign):
            s.targets = [self.expr(t, pre, stack) for t in s.targets]
        elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
            s.target = self.expr(s.target, pre, stack)
        if isinstance(s, (ast.With, ast.Try)):      # refused later; not inlined into
            return [s]
        return pre + [s]

    # expressions -----------------------------------------------------------------------
    def expr(self, e, pre, stack, conditional=None, whole=False):
        """e with its calls of user functions inlined; statements that must run
        before it are appended to `pre`. `conditional` names the position
        when e is evaluated only sometimes."""
        if isinstance(e, ast.Call) and hasattr(e, GEN_ATTR):
            # a tuple(<generator>) of an inlined function: the element (the
            # last argument) is evaluated once per item
            e.args = [self.expr(a, pre, stack, conditional) for a in e.args[:-1]] + \
                [self.expr(e.args[-1], pre, stack, conditional or "a generator expression")]
            return e
        if isinstance(e, ast.Call):
            e.func = self.expr(e.func, pre, stack, conditional)
            e.args = [self.expr(a, pre, stack, conditional) for a in e.args]
            for k in e.keywords:
                k.value = self.expr(k.value, pre, stack, conditional)
            fn = self.callee(e.func)
            if fn is None:
                return e
            return self.inline(e, fn, pre, stack, conditional, whole)
        if isinstance(e, ast.BoolOp):
            first = self.expr(e.values[0], pre, stack, conditional)
            where = conditional or f"the operands after `{'and' if isinstance(e.op, ast.And) else 'or'}`"
            e.values = [first] + [self.expr(v, pre, stack, where) for v in e.values[1:]]
            return e
        if isinstance(e, ast.IfExp):
            e.test = self.expr(e.test, pre, stack, conditional)
            where = conditional or "a branch of `x if c else y`"
            e.body = self.expr(e.body, pre, stack, where)
            e.orelse = self.expr(e.orelse, pre, stack, where)
            return e
        if isinstance(e, ast.GeneratorExp) and len(e.generators) == 1:
            # tuple(<generator>) is compiled (generators.py): its element is
            # evaluated once per item, like a position evaluated only sometimes
            comp = e.generators[0]
            comp.iter = self.expr(comp.iter, pre, stack, conditional)
            e.elt = self.expr(e.elt, pre, stack, conditional or "a generator expression")
            return e
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)):
            return e                 # refused later (analyze.py)
        for field, value in ast.iter_fields(e):
            if isinstance(value, ast.expr):
                setattr(e, field, self.expr(value, pre, stack, conditional))
            elif isinstance(value, list):
                setattr(e, field, [self.expr(v, pre, stack, conditional)
                                   if isinstance(v, ast.expr) else v for v in value])
        return e

    def inline(self, call, fn, pre, stack, conditional, whole):
        py = getattr(fn, "py_func", fn)
        name = getattr(py, "__name__", "?")
        if py in _state.stack or py in stack:
            raise self.smap.error(call, f"recursion ({name!r} calls itself, directly or through "
                                        f"other functions) is not supported",
                                  hint="write the recursion as a loop")
        try:
            tree, smap_h = _parsed(py)
        except FrontendError as e:
            if e.loc is not None:
                raise
            raise self.smap.error(call, f"cannot compile the call of {name}(): {e.reason}",
                                  hint=e.hint) from None
        k = next(_counter)
        body = _prepare(tree, smap_h, k, py)
        params = [_renamed(k, a.arg) for a in tree.args.args]
        bound = self.bind(call, tree, py, params)
        subst, assigns = {}, []
        assigned = names_assigned(body)
        for p, arg in zip(params, bound):
            if p not in assigned and (_named(arg) or conditional):
                subst[p] = arg
            else:
                assigns.append(_assign(p, arg, arg))
        result = _renamed(k, "")[:-1]
        body = _returns(body, result, smap_h)
        if conditional:
            return self.as_expression(call, name, body, subst, result, conditional)
        if not whole and _writes_arrays(body):
            raise self.smap.error(call, f"{name}() writes into arrays, so it must be called as "
                                        f"a statement or as the whole value of an assignment",
                                  hint=f"write `r = {name}(...)` on its own line")
        body = [substitute_names(s, subst) for s in assigns + body]
        self.resolved.extend(getattr(tree, RESOLVED_ATTR, ()))
        pre.extend(self.block(body, stack | {py}))
        if not any(isinstance(n, ast.Name) and n.id == result and isinstance(n.ctx, ast.Store)
                   for s in body for n in ast.walk(s)):
            return _at(ast.Constant(None), call)
        return _at(ast.Name(result, ast.Load()), call)

    def as_expression(self, call, name, body, subst, result, where):
        body = _folded(body)
        if len(body) != 1 or not isinstance(body[0], ast.Assign) or \
                body[0].targets[0].id != result:
            raise self.smap.error(call, f"{name}() is called in {where}, which is evaluated "
                                        f"only sometimes or once per item; only a function "
                                        f"that is one `return <expression>` (after "
                                        f"assignments of names) can be called there",
                                  hint=f"assign `{name}(...)` to a variable on a line before")
        value = body[0].value
        uses = unconditional_uses(value, subst)
        for p, arg in subst.items():
            if not _named(arg) and not uses.get(p):
                raise self.smap.error(arg, f"this argument of {name}() would not always be "
                                           f"evaluated in {where}",
                                      hint=f"assign `{name}(...)` to a variable on a line "
                                           f"before")
        return substitute_names(value, subst)

    def bind(self, call, tree, fn, params) -> list:
        """The argument expression of each parameter of the called function."""
        names = [a.arg for a in tree.args.args]
        name = fn.__name__
        if any(isinstance(a, ast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            raise self.smap.error(call, f"`*`/`**` arguments in a call of {name}() are not "
                                        f"supported", hint="pass the arguments one by one")
        if len(call.args) > len(names):
            raise self.smap.error(call, f"{name}() takes {len(names)} positional arguments "
                                        f"but {len(call.args)} were given")
        bound = dict(zip(names, call.args))
        for kw in call.keywords:
            if kw.arg not in names:
                raise self.smap.error(kw, f"{name}() got an unexpected keyword argument "
                                          f"{kw.arg!r}")
            if kw.arg in bound:
                raise self.smap.error(kw, f"{name}() got multiple values for argument "
                                          f"{kw.arg!r}")
            bound[kw.arg] = kw.value
        defaults = _param_defaults(fn, tree)
        out = []
        for p in names:
            if p in bound:
                out.append(bound[p])
            elif p in defaults:
                node = _at(ast.Name(p, ast.Load()), call)
                setattr(node, VALUE_ATTR, (defaults[p],))
                out.append(node)
            else:
                raise self.smap.error(call, f"{name}() missing required argument {p!r}")
        return out


def _named(arg) -> bool:
    """A constant, a name or an attribute of a name (`math.sqrt`, `a.shape`):
    an argument whose evaluation cannot fail nor differ from one use to the
    next, substituted for its parameter (a function stays a function, also
    where a loop's body could not bind it to a variable)."""
    while isinstance(arg, ast.Attribute):
        arg = arg.value
    return isinstance(arg, (ast.Name, ast.Constant))


def _folded(body) -> list:
    """Leading assignments `name = e` of names assigned once are substituted
    into the statements after them, where one of them always evaluates the
    name (or e is a name or a constant, whose evaluation cannot fail):
    `idx = p + o; return f(idx)` is the expression f(p + o)."""
    body = list(body)
    while len(body) > 1 and isinstance(body[0], ast.Assign) and len(body[0].targets) == 1 and \
            isinstance(body[0].targets[0], ast.Name):
        name, value = body[0].targets[0].id, body[0].value
        rest = body[1:]
        if name in names_assigned(rest):
            break
        if not isinstance(value, (ast.Name, ast.Constant)) and \
                not any(unconditional_uses(s.value, {name: None}).get(name)
                        for s in rest if isinstance(s, ast.Assign)):
            break
        body = [substitute_names(s, {name: value}) for s in rest]
    return body


def unconditional_uses(e, names) -> dict:
    """How often each of `names` is read where e always evaluates it (not
    after `and`/`or`, not in a branch of `x if c else y`). Compiled
    expressions have no side effects, so an argument substituted for such
    a parameter gives the value and the errors of evaluating it once."""
    out = {}

    def walk(n):
        if isinstance(n, ast.Name) and n.id in names:
            out[n.id] = out.get(n.id, 0) + 1
        elif isinstance(n, ast.BoolOp):
            walk(n.values[0])
        elif isinstance(n, ast.IfExp):
            walk(n.test)
        else:
            for child in ast.iter_child_nodes(n):
                walk(child)
    walk(e)
    return out


def _parsed(fn):
    """fn's source parsed and rewritten (every registered rewrite, this one
    too), once per rewrite of a decorated function (the tree is copied where
    it is used): (tree, SourceMap)."""
    cache = _state.parsed
    if fn not in cache:
        nested = getattr(fn, NESTED_ATTR, None)      # a def inside the function (nested_defs)
        tree, smap = (clone_node(nested[0]), nested[1]) if nested else read_function(fn)
        cache[fn] = (rewrite(tree, smap, fn), smap)
    return cache[fn]


def _param_defaults(fn, tree) -> dict:
    names = [a.arg for a in tree.args.args]
    values = fn.__defaults__ or ()
    return dict(zip(names[len(names) - len(values):], values))


# the called function's body -----------------------------------------------------------------
def _renamed(k, name):
    return f"{PREFIX}{k}_{name}"


def _prepare(tree, smap, k, fn) -> list:
    """A copy of the helper's body (without its docstring): its locals
    renamed with number k, every node carrying the helper's SourceMap, its
    free names resolved in the helper's module and closure (a nested def's
    in the enclosing function, where it is called: nested_defs.py)."""
    local = names_assigned(tree.body) | {a.arg for a in tree.args.args}
    nested = hasattr(fn, NESTED_ATTR)
    body = [clone_node(s) for s in tree.body]
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        body = body[1:]
    for s in body:
        for n in ast.walk(s):
            if not hasattr(n, ORIGIN_ATTR) and hasattr(n, "lineno"):
                setattr(n, ORIGIN_ATTR, smap)
            if isinstance(n, ast.Name) and not hasattr(n, VALUE_ATTR) and \
                    not hasattr(n, SCOPE_ATTR):
                if n.id in local:
                    n.id = _renamed(k, n.id)
                elif not nested:
                    setattr(n, SCOPE_ATTR, fn)
    return body


def clone_node(node):
    """A deep copy of an AST node that shares the values of its extra
    attributes (SourceMaps, functions)."""
    if isinstance(node, list):
        return [clone_node(x) for x in node]
    if not isinstance(node, ast.AST):
        return node
    new = type(node)()
    fields = {key for key, _ in ast.iter_fields(node)}
    for key, value in vars(node).items():
        setattr(new, key, clone_node(value) if key in fields else value)
    return new


def substitute_names(node, subst):
    """node with the Load names in subst replaced by copies of their values."""
    if not subst:
        return node

    class Sub(ast.NodeTransformer):
        def visit_Name(self, n):
            if n.id in subst and isinstance(n.ctx, ast.Load):
                return clone_node(subst[n.id])
            return n
    return Sub().visit(node)


def _at(new, where):
    """new at where's location (in where's source)."""
    ast.copy_location(new, where)
    if hasattr(where, ORIGIN_ATTR):
        setattr(new, ORIGIN_ATTR, getattr(where, ORIGIN_ATTR))
    return new


def _assign(name, value, where):
    return _at(ast.Assign([_at(ast.Name(name, ast.Store()), where)], value), where)


_FRESH = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like",
          "full_like", "copy", "array"}


def _writes_arrays(body) -> bool:
    """Whether the body writes into an array it did not create (np.zeros,
    .copy(), ...; such an array may be the caller's)."""
    fresh, other = set(), set()
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Assign):
                v = n.value
                made = isinstance(v, ast.Call) and isinstance(v.func, (ast.Attribute, ast.Name)) \
                    and getattr(v.func, "attr", getattr(v.func, "id", None)) in _FRESH
                for t in n.targets:
                    if isinstance(t, ast.Name):
                        (fresh if made else other).add(t.id)
    fresh -= other
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and \
                    not (isinstance(n.value, ast.Name) and n.value.id in fresh):
                return True
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                    n.func.attr == "at":
                return True
    return False


# returns ------------------------------------------------------------------------------------
def _returns(body, result, smap) -> list:
    """The body with each `return v` turned into `result = v`, the statements
    after an `if` that returns on one side moved into its other side; where
    the function can return a value, a path that ends without a return
    assigns None."""
    for s in body:
        for loop in ast.walk(s):
            if isinstance(loop, (ast.For, ast.While)):
                for r in ast.walk(loop):
                    if isinstance(r, ast.Return):
                        raise smap.error(r, "`return` inside a loop of a called function is "
                                            "not supported",
                                         hint="keep the result in a variable and return it "
                                              "after the loop")
    if not any(isinstance(n, ast.Return) for s in body for n in ast.walk(s)):
        return body
    body = _tails(body)
    _assign_result(body, result, body[0])
    return body


def _ends(stmts) -> bool:
    """Whether every path through stmts returns."""
    return any(isinstance(s, ast.Return) or
               (isinstance(s, ast.If) and _ends(s.body) and _ends(s.orelse)) for s in stmts)


def _tails(stmts) -> list:
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            return stmts[:i + 1]
        if isinstance(s, ast.If):
            rest = stmts[i + 1:]
            ends_body, ends_else = _ends(s.body), _ends(s.orelse)
            if rest and (ends_body or ends_else):
                s.body = _tails(s.body + ([] if ends_body else rest))
                s.orelse = _tails(s.orelse + ([] if ends_else else rest))
                return stmts[:i + 1]
            s.body, s.orelse = _tails(s.body), _tails(s.orelse)
    return stmts


def _assign_result(stmts, result, where):
    """Returns (all at the ends of paths now) become assignments; a path
    without one assigns None (located at its last statement, else `where`)."""
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.Return):
        value = last.value if last.value is not None else _at(ast.Constant(None), last)
        stmts[-1] = _assign(result, value, last)
    elif isinstance(last, ast.If):
        _assign_result(last.body, result, last)
        _assign_result(last.orelse, result, last)
    else:
        at = last if last is not None else where
        stmts.append(_assign(result, _at(ast.Constant(None), at), at))
