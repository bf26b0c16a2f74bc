"""Keep a tile of accumulators in registers across an innermost serial loop.

After unrolling, the blocked product's serial k loop adds into a tile of
result vectors (rows x vectors of columns): one buffer, several indices,
each the same at every iteration. promote_accumulators keeps one index of
a buffer in a register; this pass keeps several: each index gets a scratch
of its lanes, loaded before the loop, used inside it and stored back after
it, so the loop reads and writes no memory of the buffer. Every access then
still happens in the loop's order on its own element (the same values, bit
for bit).

A buffer's accesses qualify when the innermost serial loop (no loop inside
it, no early exit, no assertion) loads and stores it, no store is an
atomic() update (other threads update the element too), every access is
outside any condition, every index (with the lets bound inside the loop substituted:
unrolling binds each copy's variables by LetStmts) depends on no name the
loop binds and reads no memory, there are 2 to 16 distinct indices of one
type, each a scalar or a ramp of stride 1. Their lanes must not overlap:
where a pair's distance is a constant it must be at least the lanes, else
the promoted loop runs only where every such distance is (a condition on
the outer names; the loop as it was runs otherwise). The loads before the
loop run only where it runs at least once."""
from __future__ import annotations

from pyhalide import ir

from . import atomic_updates
from .index_difference import pairwise_differences
from .linear import atom_key
from .simplify import simplify

_MAX_TILE = 16            # scratch vectors: the register file holds 32
_MAX_NODES = 40000        # the walk of a loop gives up past this many nodes


class _Resolve:
    """The lets bound inside a loop: name -> value over outer names, and the
    names that depend on the loop (its variable, lets of them, Let names)."""

    def __init__(self, loop_var):
        self.env = {}
        self.inner = {loop_var}

    def bind(self, name, value):
        """Bind `name` for a body; returns what to restore."""
        saved = (self.env.get(name), name in self.inner)
        v = self.resolve(value)
        if v is None:
            self.env.pop(name, None)
            self.inner.add(name)
        else:
            self.env[name] = v
            self.inner.discard(name)
        return saved

    def unbind(self, name, saved):
        value, inner = saved
        if value is None:
            self.env.pop(name, None)
        else:
            self.env[name] = value
        if inner:
            self.inner.add(name)
        else:
            self.inner.discard(name)

    def resolve(self, e):
        """e over outer names, or None. (Not simplified: two accesses of
        one element through differently written indices count as two
        indices, which then overlap: nothing is promoted.)"""
        used = set(ir.free_vars(e))
        if used & self.inner:
            return None
        subst = {n: self.env[n] for n in used if n in self.env}
        return ir.substitute(e, subst) if subst else e


class _Accesses(ir.Visitor):
    """Per buffer, the resolved indices of its accesses in a loop body."""

    memoize = False

    def __init__(self, loop_var, names):
        super().__init__()
        self.res = _Resolve(loop_var)
        self.names = names       # the buffers to look at
        self.indices = {}        # buffer -> {key: (index, type)} (distinct indices)
        self.stored = set()
        self.rejected = set()    # a buffer with an access that does not qualify
        self.allocated = set()
        self.blocked = False     # a loop, an exit or an assertion inside
        self.nodes = 0
        self._cond = 0

    def visit(self, n):
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            self.blocked = True
            return
        super().visit(n)

    def _access(self, name, index, t):
        if name not in self.names or name in self.rejected:
            return
        r = None if self._cond or ir.reads_memory(index) else self.res.resolve(index)
        if r is None:
            self.rejected.add(name)
            return
        seen = self.indices.setdefault(name, {})
        if seen.setdefault(atom_key(r), (r, t))[1] != t:
            self.rejected.add(name)

    def visit_Load(self, e):
        self._access(e.name, e.index, e.type)
        self.visit_children(e)

    def visit_Store(self, s):
        self.stored.add(s.name)
        if isinstance(s.value, ir.Call) and s.value.name == atomic_updates.ATOMIC:
            self.rejected.add(s.name)      # (other threads update it too)
        self._access(s.name, s.index, s.value.type)
        self.visit_children(s)

    def visit_LetStmt(self, s):
        self.visit(s.value)
        saved = self.res.bind(s.name, s.value)
        self.visit(s.body)
        self.res.unbind(s.name, saved)

    def visit_Let(self, e):
        self.visit(e.value)
        saved = self.res.bind(e.name, e.value)
        self.visit(e.body)
        self.res.unbind(e.name, saved)

    def visit_IfThenElse(self, s):
        self.visit(s.condition)
        self._cond += 1
        self.visit(s.then_case)
        self.visit(s.else_case)
        self._cond -= 1

    def visit_Call(self, e):
        if e.name != "if_then_else":
            self.visit_children(e)
            return
        self.visit(e.args[0])
        self._cond += 1
        for a in e.args[1:]:
            self.visit(a)
        self._cond -= 1

    def visit_Allocate(self, s):
        self.allocated.add(s.name)
        self.visit_children(s)

    def _stop(self, s):
        self.blocked = True

    visit_For = visit_LoopExit = visit_AssertStmt = _stop


def _lanes(t) -> int:
    return 1 if t.is_scalar() else t.lanes


def _tile(indices):
    """The conditions under which the indices' lanes are disjoint (Exprs
    over outer names; none where they always are), or None where two of
    them overlap or an index is not a scalar or a ramp of stride 1."""
    types = {t for _, t in indices}
    if len(types) != 1:
        return None
    lanes = _lanes(next(iter(types)))
    bases = []
    for i, _ in indices:
        if lanes == 1:
            bases.append(i)
        elif isinstance(i, ir.Ramp) and ir.is_const(i.stride, 1) and i.lanes == lanes:
            bases.append(i.base)
        else:
            return None
    diffs = pairwise_differences(bases)
    if diffs is None:
        return None
    consts, others = diffs
    if any(not lanes <= abs(d) < 2**31 for d in consts):
        return None
    conds = []
    for d in others:
        c = simplify(ir.Or(ir.GE(d, ir.index(lanes)), ir.LE(d, ir.index(-lanes))))
        if ir.is_const(c, 0):
            return None
        if not ir.is_const(c, 1):
            conds.append(c)
    return conds


def _slot(t):
    return ir.index(0) if t.is_scalar() else ir.Ramp(ir.index(0), ir.index(1), t.lanes)


class _Rename(ir.Mutator):
    """The accesses of the tiles' buffers become accesses of their scratch
    (tiles: buffer -> {the key of an index: its scratch})."""

    memoize = False

    def __init__(self, loop_var, tiles):
        super().__init__()
        self.res = _Resolve(loop_var)
        self.tiles = tiles

    def _scratch(self, name, index):
        return self.tiles[name][atom_key(self.res.resolve(index))]

    def visit_Load(self, e):
        if e.name in self.tiles:
            return ir.Load(e.type, self._scratch(e.name, e.index), _slot(e.type))
        return self.mutate_children(e)

    def visit_Store(self, s):
        value = self.mutate(s.value)
        if s.name in self.tiles:
            return ir.Store(self._scratch(s.name, s.index), value, _slot(s.value.type))
        return ir.Store(s.name, value, self.mutate(s.index))

    def _scoped(self, n):
        """A LetStmt or Let with its value and body renamed (the body with
        its name bound)."""
        value = self.mutate(n.value)
        saved = self.res.bind(n.name, n.value)
        body = self.mutate(n.body)
        self.res.unbind(n.name, saved)
        return type(n)(n.name, value, body)

    visit_LetStmt = visit_Let = _scoped


class _Candidates(ir.Visitor):
    """A quick look at an innermost loop's body (each node once): the
    buffers it both loads and stores."""

    def __init__(self):
        super().__init__()
        self.loaded, self.stored = set(), set()

    def visit_Load(self, e):
        self.loaded.add(e.name)
        self.visit_children(e)

    def visit_Store(self, s):
        self.stored.add(s.name)
        self.visit_children(s)


class _Promote(ir.Mutator):
    memoize = False
    stmts_only = True

    def __init__(self):
        super().__init__()
        self.count = 0
        self.loop = False         # whether the walk met a loop (since reset)
        self.done = {}            # id of a For -> (the For, its result): unrolled copies share it

    def visit_For(self, s):
        hit = self.done.get(id(s))
        if hit is not None and hit[0] is s:
            self.loop = True
            return hit[1]
        result = self._loop(s)
        self.done[id(s)] = (s, result)
        self.loop = True
        return result

    def _loop(self, s):
        self.loop = False
        body = self.mutate(s.body)
        inner = self.loop
        if inner or s.kind != ir.ForKind.SERIAL:
            return s if body is s.body else ir.For(s.name, s.min, s.extent, s.kind, body)
        quick = _Candidates()
        quick.visit(s.body)
        names = {b for b in quick.loaded & quick.stored if ".acc" not in b}
        if not names:
            return s
        acc = _Accesses(s.name, names)
        acc.visit(s.body)
        if acc.blocked:
            return s
        tiles, conds, found_of = {}, [], {}
        for buf, found in sorted(acc.indices.items()):
            indices = list(found.values())
            if buf in acc.rejected or buf in acc.allocated or not 2 <= len(indices) <= _MAX_TILE:
                continue
            cond = _tile(indices)
            if cond is None:
                continue
            tiles[buf] = {key: f"{buf}.acct{self.count}.{n}" for n, key in enumerate(found)}
            found_of[buf] = found
            self.count += 1
            conds += cond
        if not tiles:
            return s
        out = _Rename(s.name, tiles).mutate(s)
        loads, stores = [], []
        scratches = [(buf, simplify(i), t, tiles[buf][key]) for buf, found in found_of.items()
                     for key, (i, t) in found.items()]
        for buf, i, t, scratch in scratches:
            loads.append(ir.Store(scratch, ir.Load(t, buf, i), _slot(t)))
            stores.append(ir.Store(buf, ir.Load(t, scratch, _slot(t)), i))
        out = ir.block(*loads, out, *stores)
        for buf, i, t, scratch in scratches:
            out = ir.Allocate(scratch, t.with_lanes(1), (ir.index(_lanes(t)),), out)
        # (the loads happen only where the loop runs; overlapping lanes run
        # the loop as it was)
        cond = simplify(ir.LT(ir.index(0), s.extent))
        for c in conds:
            cond = ir.And(cond, c)
        cond = simplify(cond)
        if ir.is_const(cond, 1):
            return out
        if ir.is_const(cond, 0):
            return s
        return ir.IfThenElse(cond, out, s if conds else None)


def promote_tile_accumulators(stmt: ir.Stmt) -> ir.Stmt:
    """Innermost serial loops' tiles of accumulators in scratch (registers)."""
    return _Promote().mutate(stmt)
