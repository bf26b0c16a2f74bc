"""The generic IR mutator and visitor.

Both walk dataclass fields, so a new node kind needs no new traversal code.
`Mutator.mutate` returns the very same object when nothing below it changed,
so an unchanged pass is free and detectable (`result is stmt`). Results are
memoized by node identity (DAGs with shared subexpressions are walked once);
a mutator whose result depends on context (scopes, enclosing loops) sets
`memoize = False` or clears `self.memo` when its context changes; one that
rewrites statements only sets `stmts_only` and never walks expressions (an
unmemoized walk of a DAG of shared subexpressions would be exponential).
"""
from __future__ import annotations

import dataclasses

from .nodes import Expr, IRNode

_FIELD_CACHE: dict = {}
_IR_FIELD_CACHE: dict = {}
# Field annotations that never hold an IR node: the walks skip those fields.
_NON_IR_FIELDS = frozenset({"str", "Type", "int", "bool", "float"})


def node_fields(cls) -> tuple:
    names = _FIELD_CACHE.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELD_CACHE[cls] = names
    return names


def _ir_fields(cls) -> tuple:
    """The fields of `cls` that can hold an IR node or a tuple of them."""
    names = _IR_FIELD_CACHE.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.type not in _NON_IR_FIELDS)
        _IR_FIELD_CACHE[cls] = names
    return names


def children(n) -> list:
    """The IR nodes directly below `n`, in field order."""
    out = []
    names = _IR_FIELD_CACHE.get(type(n))
    for name in names if names is not None else _ir_fields(type(n)):
        v = getattr(n, name)
        if isinstance(v, IRNode):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, IRNode))
    return out


_DISPATCH: dict = {}     # (walker class, node class) -> its visit_ function or None
_UNSET = object()


def _method(walker_cls, node_cls):
    fn = getattr(walker_cls, "visit_" + node_cls.__name__, None)
    _DISPATCH[(walker_cls, node_cls)] = fn
    return fn


class Mutator:
    memoize = True
    stmts_only = False      # True: a pass that rewrites statements only leaves every
                            # Expr as it is, without walking it

    def __init__(self):
        self.memo = {}

    def mutate(self, n):
        if n is None:
            return None
        if self.stmts_only and isinstance(n, Expr):
            return n
        if self.memoize:
            hit = self.memo.get(id(n))
            if hit is not None and hit[0] is n:
                return hit[1]
        key = (type(self), type(n))
        method = _DISPATCH.get(key, _UNSET)
        if method is _UNSET:
            method = _method(*key)
        result = method(self, n) if method is not None else self.mutate_children(n)
        if self.memoize:
            self.memo[id(n)] = (n, result)
        return result

    def mutate_children(self, n):
        changes = None
        names = _IR_FIELD_CACHE.get(type(n))
        for name in names if names is not None else _ir_fields(type(n)):
            v = getattr(n, name)
            if isinstance(v, IRNode):
                nv = self.mutate(v)
            elif isinstance(v, tuple) and v:
                items = [self.mutate(x) if isinstance(x, IRNode) else x for x in v]
                nv = v if all(a is b for a, b in zip(items, v)) else tuple(items)
            else:
                continue
            if nv is not v:
                if changes is None:
                    changes = {}
                changes[name] = nv
        if changes is None:
            return n
        return type(n)(**{f: changes[f] if f in changes else getattr(n, f)
                          for f in node_fields(type(n))})


class Visitor:
    """Walks every node once per distinct object (shared subtrees once)."""

    memoize = True

    def __init__(self):
        self.seen = set()

    def visit(self, n):
        if n is None:
            return
        if self.memoize:
            if id(n) in self.seen:
                return
            self.seen.add(id(n))
        key = (type(self), type(n))
        method = _DISPATCH.get(key, _UNSET)
        if method is _UNSET:
            method = _method(*key)
        if method is not None:
            method(self, n)
        else:
            self.visit_children(n)

    def visit_children(self, n):
        for c in children(n):
            self.visit(c)


class FuncMutator(Mutator):
    """A Mutator built from a function `fn(node) -> node or None`; None means
    recurse into the children."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def mutate(self, n):
        if n is None:
            return None
        hit = self.memo.get(id(n))
        if hit is not None and hit[0] is n:
            return hit[1]
        r = self.fn(n)
        if r is None:
            r = self.mutate_children(n)
        self.memo[id(n)] = (n, r)
        return r
