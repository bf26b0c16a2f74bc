"""The generic IR mutator and visitor.

Both walk dataclass fields, so a new node kind needs no new traversal code:
the walk of one node class's children is a small function generated from its
fields the first time a node of the class is walked (`_walkers`), as fast as
a handwritten one. `Mutator.mutate` returns the very same object when nothing
below it changed, so an unchanged pass is free and detectable (`result is
stmt`). Results are memoized by node identity (DAGs with shared
subexpressions are walked once); a mutator whose result depends on context
(scopes, enclosing loops) sets `memoize = False` or clears `self.memo` when
its context changes; one that rewrites statements only sets `stmts_only` and
never walks expressions (an unmemoized walk of a DAG of shared
subexpressions would be exponential).
"""
from __future__ import annotations

import dataclasses

from .nodes import Expr, IRNode

_FIELD_CACHE: dict = {}
# Field annotations that never hold an IR node: the walks skip those fields.
_NON_IR_FIELDS = frozenset({"str", "Type", "int", "bool", "float"})
# Field annotations that hold one IR node (or None), never a tuple.
_NODE_FIELDS = frozenset({"Expr", "Stmt", "Optional[Expr]", "Optional[Stmt]"})


def node_fields(cls) -> tuple:
    names = _FIELD_CACHE.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
        _FIELD_CACHE[cls] = names
    return names


def _mutate_tuple(m, v: tuple) -> tuple:
    """A tuple field mutated item by item (the same tuple if no item changed)."""
    items = [m.mutate(x) if isinstance(x, IRNode) else x for x in v]
    for a, b in zip(items, v):
        if a is not b:
            return tuple(items)
    return v


def _walkers(cls) -> tuple:
    """(children, mutate_children, visit_children) for node class `cls`,
    generated from its fields: each IR field read by name, a field annotated
    as one node never tested for a tuple. They do what a loop over
    the fields that can hold IR nodes with isinstance tests would."""
    fields = dataclasses.fields(cls)
    ir = [(i, f) for i, f in enumerate(fields) if f.type not in _NON_IR_FIELDS]
    kids, muts, visits, same = [], [], [], []
    for i, f in ir:
        v, nv = f"v{i}", f"n{i}"
        kids.append(f"    {v} = n.{f.name}")
        kids.append(f"    if isinstance({v}, IRNode):\n        out.append({v})")
        muts.append(f"    {v} = n.{f.name}")
        muts.append(f"    {nv} = m.mutate({v}) if isinstance({v}, IRNode) else {v}")
        visits.append(f"    {v} = n.{f.name}")
        visits.append(f"    if isinstance({v}, IRNode):\n        w.visit({v})")
        if f.type not in _NODE_FIELDS:
            kids.append(f"    elif isinstance({v}, tuple):\n"
                        f"        out.extend(x for x in {v} if isinstance(x, IRNode))")
            muts.append(f"    if {nv} is {v} and isinstance({v}, tuple) and {v}:\n"
                        f"        {nv} = _mutate_tuple(m, {v})")
            visits.append(f"    elif isinstance({v}, tuple):\n"
                          f"        for x in {v}:\n"
                          f"            if isinstance(x, IRNode):\n"
                          f"                w.visit(x)")
        same.append(f"{nv} is {v}")
    args = ", ".join(f"{f.name}=n{i}" if f.type not in _NON_IR_FIELDS else f"{f.name}=n.{f.name}"
                     for i, f in enumerate(fields))
    src = ["def children(n):", "    out = []", *kids, "    return out",
           "def mutate_children(m, n):", *muts,
           f"    if {' and '.join(same) or 'True'}:", "        return n",
           f"    return cls({args})",
           "def visit_children(w, n):", *visits, "    return None"]
    env = {"IRNode": IRNode, "cls": cls, "_mutate_tuple": _mutate_tuple}
    exec("\n".join(src), env)       # noqa: S102 (source built from field names above)
    out = (env["children"], env["mutate_children"], env["visit_children"])
    _WALKERS[cls] = out
    return out


_WALKERS: dict = {}      # node class -> _walkers(class)


def children(n) -> list:
    """The IR nodes directly below `n`, in field order."""
    w = _WALKERS.get(type(n))
    return (w or _walkers(type(n)))[0](n)


# Each walker class holds, as its own `_walk_table` (made by __init_subclass__
# for every subclass, so a class never reads its parent's), node class -> the
# function walking a node of that class: the walker's visit_ method, else its
# children walk. Kept on the class, the table goes away with it: passes that
# define a walker class per call leak nothing.
def _method(walker_cls, node_cls, default):
    fn = getattr(walker_cls, "visit_" + node_cls.__name__, None)
    if fn is None:
        fn = default(walker_cls, node_cls)
    walker_cls._walk_table[node_cls] = fn
    return fn


def _mutate_default(walker_cls, node_cls):
    if walker_cls.mutate_children is Mutator.mutate_children:
        w = _WALKERS.get(node_cls)
        return (w or _walkers(node_cls))[1]
    return walker_cls.mutate_children


def _visit_default(walker_cls, node_cls):
    if walker_cls.visit_children is Visitor.visit_children:
        w = _WALKERS.get(node_cls)
        return (w or _walkers(node_cls))[2]
    return walker_cls.visit_children


class Mutator:
    _walk_table: dict = {}
    memoize = True
    stmts_only = False      # True: a pass that rewrites statements only leaves every
                            # Expr as it is, without walking it

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._walk_table = {}

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
            cls = type(n)
            method = self._walk_table.get(cls) or _method(type(self), cls, _mutate_default)
            result = method(self, n)
            self.memo[id(n)] = (n, result)
            return result
        cls = type(n)
        method = self._walk_table.get(cls) or _method(type(self), cls, _mutate_default)
        return method(self, n)

    def mutate_children(self, n):
        w = _WALKERS.get(type(n))
        return (w or _walkers(type(n)))[1](self, n)


class Visitor:
    """Walks every node once per distinct object (shared subtrees once)."""

    _walk_table: dict = {}
    memoize = True

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._walk_table = {}

    def __init__(self):
        self.seen = set()

    def visit(self, n):
        if n is None:
            return
        if self.memoize:
            seen = self.seen
            i = id(n)
            if i in seen:
                return
            seen.add(i)
        cls = type(n)
        (self._walk_table.get(cls) or _method(type(self), cls, _visit_default))(self, n)

    def visit_children(self, n):
        w = _WALKERS.get(type(n))
        (w or _walkers(type(n)))[2](self, n)


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
