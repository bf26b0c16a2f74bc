"""Loads a piece of a split loop makes at one element no iteration stores.

    hoist_invariant_loads(loop) -> stmt

Row normalisation's `a[i, j] *= 1 / a[i, i]`, split at j* = i
(split_permuted_loops.py), loads `a[i, i]` at every iteration of the
pieces j < i and j > i, which store into the same buffer: LLVM must assume
the store may change it, so it reloads and divides per element and does
not vectorize. A load whose index does not read the loop variable v (nor
a name bound in the body) is proven never to be an element the loop
stores to where every store to its buffer is at `index(v)` with
`index(v) - load index` equal to `v + r` (r not reading v) and the one
meeting point v = -r outside [min, min + extent) (simplified to a constant
distance from an end). Such a load is made once before the loop, which
then runs only where the extent is positive (the load's first use was
then at the first iteration, with the same index and memory). Only for
loop bodies of stores, lets and no asserts (a load made before an assert
that would have stopped the first iteration could read out of bounds),
and only loads outside any conditional part of the body."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.ops import reads_memory

from .simplify import simplify


def hoist_invariant_loads(loop: ir.For, tag: str) -> ir.Stmt:  # noqa: C901
    """The loop, with the loads it makes at one element no iteration stores
    bound before it (as `<loop>.<tag>.<k>`) where its extent is positive."""
    walk = _Body(loop.name)
    walk.visit(loop.body)
    if not walk.ok or not walk.loads or len(walk.stores) != 1:
        return loop     # (a store to another buffer may alias the loaded one)
    v = loop.name
    end = ir.Add(loop.min, loop.extent)
    lets, by = [], {}
    for load in walk.loads:
        index = inline_lets(load.index, walk.lets)
        index = None if index is None or reads_memory(index) else simplify(index)
        if index is None or any(ir.equal(load, k) for k, _, _ in lets) or \
                v in ir.free_vars(index) or any(n in walk.bound for n in ir.free_vars(index)):
            continue
        stores = walk.stores.get(load.name)
        if stores and all(_never_meets(inline_lets(s.index, walk.lets), index, v, loop.min, end)
                          for s in stores):
            name = f"{loop.name}.{tag}.{len(lets)}"
            lets.append((load, name, index))
    if not lets:
        return loop
    for load in walk.loads:
        for k, name, _ in lets:
            if ir.equal(load, k):
                by[id(load)] = ir.Variable(load.type, name)
    body = ReplaceById(by).mutate(loop.body)
    out = ir.For(loop.name, loop.min, loop.extent, loop.kind, body)
    for load, name, index in reversed(lets):
        out = ir.LetStmt(name, ir.Load(load.type, load.name, index), out)
    return ir.IfThenElse(ir.GT(loop.extent, ir.Const(loop.extent.type, 0)), out, None)


def inline_lets(e, lets):
    """e with the lets of `lets` (name -> value) substituted, through their
    values too (None: deeper than the lets)."""
    for _ in range(len(lets) + 1):
        names = [n for n in ir.free_vars(e) if n in lets]
        if not names:
            return e
        e = ir.substitute(e, {n: lets[n] for n in names})
    return None


def _never_meets(store_index, load_index, v, lo, hi) -> bool:
    if store_index is None or reads_memory(store_index):
        return False
    var = ir.Variable(store_index.type, v)
    r = simplify(ir.Sub(ir.Sub(store_index, load_index), var))
    if v in ir.free_vars(r):
        return False
    # the meeting point is v = -r: below lo (lo + r > 0) or at or past hi (-r - hi >= 0)
    below = simplify(ir.Add(lo, r))
    above = simplify(ir.Sub(ir.Sub(ir.Const(r.type, 0), r), hi))
    return (isinstance(below, ir.Const) and below.value > 0) or \
        (isinstance(above, ir.Const) and above.value >= 0)


class LetWalk(ir.Visitor):
    """A loop body's let bindings, name -> value; ok turns False when a name
    is bound twice or the body holds a loop."""

    def __init__(self):
        super().__init__()
        self.lets, self.ok = {}, True

    def visit_LetStmt(self, op):
        self._bind(op)

    def visit_Let(self, op):
        self._bind(op)

    def _bind(self, op):
        self.ok = self.ok and op.name not in self.lets
        self.lets[op.name] = op.value
        self.visit_children(op)

    def visit_For(self, op):
        self.ok = False


class _Body(LetWalk):
    """The loads made at every iteration (outside conditional parts), the
    stores by buffer, the names the body binds; ok: only stores and lets."""

    def __init__(self, v):
        super().__init__()
        self.loads, self.stores = [], {}
        self.bound = {v}
        self.arms = 0       # > 0 inside a select's value (a load there may not be made)

    def visit_Load(self, op):
        if not self.arms:
            self.loads.append(op)
        self.visit_children(op)

    def visit_Store(self, op):
        if op.index.type.lanes != 1:
            self.ok = False
        self.stores.setdefault(op.name, []).append(op)
        self.visit_children(op)

    def visit_Call(self, op):
        if op.name == "if_then_else" or op.call_type != ir.INTRINSIC:
            self.ok = False
        self.visit_children(op)

    def visit_Select(self, op):
        self.visit(op.condition)
        self.arms += 1
        self.visit(op.true_value)
        self.visit(op.false_value)
        self.arms -= 1

    def visit_AssertStmt(self, op):
        self.ok = False

    def visit_IfThenElse(self, op):
        self.ok = False


class ReplaceById(ir.Mutator):
    """Each load or select whose id is a key of `by` replaced by its value."""

    def __init__(self, by):
        super().__init__()
        self.by = by

    def visit_Load(self, op):
        got = self.by.get(id(op))
        return got if got is not None else self.mutate_children(op)

    def visit_Select(self, op):
        got = self.by.get(id(op))
        return got if got is not None else self.mutate_children(op)
