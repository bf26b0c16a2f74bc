"""Keep accumulators in registers.

A serial loop nest that reads and writes a buffer only at one loop-invariant
index (a 0-dimensional reduction's state, argmin's tuple, one histogram bin)
gets a one-element scratch copy of it: loaded before the loop, used inside,
stored back after (only if the loop stores to it: an input that is only read
is never written). A vector index (a vector of iterations' states, each
reducing serially: their elements of an input) gets a scratch of its lanes,
when the loop only reads the buffer or the index is a ramp of a constant
nonzero stride (distinct lanes: a store's lanes land in distinct elements). The scratch is a small constant-size Allocate, which codegen
places on the stack, where LLVM promotes it to a register; the buffer itself
(reached through the argument array, so not known to be dereferenceable)
could not be kept in a register across a conditional store."""
from __future__ import annotations

from pyhalide import ir

from .cold_copies import cold_copies, then_only


class _Accesses(ir.Visitor):
    """Per buffer: the index expressions used in a loop nest, whether it
    holds a non-serial loop, and the names bound inside it (shared
    subexpressions are visited once: their indices are the same)."""

    def __init__(self):
        super().__init__()
        self.indices = {}          # buffer -> list of index Exprs
        self.types = {}            # buffer -> the element type of its first access
        self.stored = set()        # buffers stored to
        self.inner_names = set()
        self.lets = {}             # let-bound name -> its value (LetStmts of the nest)
        self.rebound = set()       # names bound more than once in the nest
        self.conditional = set()   # buffers loaded under an if (or a lazy if_then_else)
        self.parallel = False
        self._depth = 0

    def visit_Load(self, e):
        self.indices.setdefault(e.name, []).append(e.index)
        self.types.setdefault(e.name, e.type)
        if self._depth:
            self.conditional.add(e.name)
        self.visit_children(e)

    def _under_condition(self, nodes):
        self._depth += 1
        for n in nodes:
            self.visit(n)
        self._depth -= 1

    def visit_IfThenElse(self, s):
        self.visit(s.condition)
        self._under_condition((s.then_case, s.else_case))

    def visit_Call(self, e):
        if e.name == "if_then_else":
            self.visit(e.args[0])
            self._under_condition(e.args[1:])
        else:
            self.visit_children(e)

    def visit_Store(self, s):
        self.indices.setdefault(s.name, []).append(s.index)
        self.types.setdefault(s.name, s.value.type)
        self.stored.add(s.name)
        self.visit_children(s)

    def visit_For(self, s):
        if s.kind != ir.ForKind.SERIAL:
            self.parallel = True
        if s.name in self.inner_names:
            self.rebound.add(s.name)
        self.inner_names.add(s.name)
        if isinstance(s.extent, ir.Const) and s.extent.value == 1:
            # a loop of one iteration (vectorization leaves `for (l$1, 0, 1)`
            # around a vector's lanes): its Var is its min, as a let's name
            self.lets[s.name] = s.min
        self.visit_children(s)

    def visit_LetStmt(self, s):
        if s.name in self.inner_names:
            self.rebound.add(s.name)
        self.inner_names.add(s.name)
        self.lets[s.name] = s.value
        self.visit_children(s)

    def visit_Let(self, e):
        self.rebound.add(e.name)
        self.inner_names.add(e.name)
        self.visit_children(e)

    def visit_Allocate(self, s):
        self.inner_names.add(s.name)
        self.visit_children(s)


def _outside(index, acc):
    """`index` with the nest's let-bound names replaced by their values
    (a vectorized Var's base, bound inside the reduction loop), or None when
    it still depends on a name bound inside the nest."""
    for _ in range(4):
        used = set(ir.free_vars(index)) & acc.inner_names
        if not used:
            return index
        if not used <= set(acc.lets) or used & acc.rebound:
            return None
        index = ir.substitute(index, {n: acc.lets[n] for n in used})
    return None


def _distinct_lanes(index, stored) -> bool:
    """Whether a vector access at `index` may live in a scratch of its lanes:
    a buffer only read, or a ramp of a constant nonzero stride."""
    if not stored:
        return True
    return isinstance(index, ir.Ramp) and isinstance(index.stride, ir.Const) \
        and index.stride.value != 0


def _slot(t):
    """The scratch index of an access of type t: element 0, or the lanes."""
    return ir.index(0) if t.is_scalar() else ir.Ramp(ir.index(0), ir.index(1), t.lanes)


class _Rename(ir.Mutator):
    """Accesses of each buffer of `scratch` (buffer -> scratch name) become
    accesses of its scratch (element 0, or its lanes; one walk for all of
    them)."""

    def __init__(self, scratch: dict):
        super().__init__()
        self.scratch = scratch

    def visit_Load(self, e):
        to = self.scratch.get(e.name)
        if to is not None:
            return ir.Load(e.type, to, _slot(e.type))
        return self.mutate_children(e)

    def visit_Store(self, s):
        value = self.mutate(s.value)
        to = self.scratch.get(s.name)
        if to is not None:
            return ir.Store(to, value, _slot(s.value.type))
        return ir.Store(s.name, value, self.mutate(s.index))


class _Promote(ir.Mutator):
    memoize = False
    stmts_only = True

    def __init__(self, vectors, tag="", cold=None):
        super().__init__()
        self.count = 0
        self.vectors = vectors
        self.tag = tag
        self.cold = cold or {}      # cold_copies: else branches left as they are

    def visit_IfThenElse(self, s):
        if id(s) in self.cold:          # (cold_copies: left as it is)
            return then_only(self, s)
        return self.mutate_children(s)

    def visit_For(self, s):
        if s.kind != ir.ForKind.SERIAL:
            return self.mutate_children(s)
        acc = _Accesses()
        acc.visit(s)
        if acc.parallel:
            return self.mutate_children(s)
        loop = s
        promoted = []                         # (scratch, buffer, type, index)
        for buf, indices in sorted(acc.indices.items()):
            if buf in acc.inner_names or ".acc" in buf:
                continue
            first = indices[0]
            if any(not ir.equal(first, i) for i in indices[1:]):
                continue
            first = _outside(first, acc) if self.vectors else \
                (None if set(ir.free_vars(first)) & acc.inner_names else first)
            if first is None or ir.reads_memory(first):
                continue
            t = acc.types.get(buf)
            if t is None or t.is_scalar() == self.vectors:
                continue
            if not t.is_scalar() and not _distinct_lanes(first, buf in acc.stored):
                continue
            if buf in acc.conditional and buf not in acc.stored:
                continue        # (an input read only where a condition holds: maybe out of
                                # bounds elsewhere, as `a[k] if a.size else 0` of an empty a)
            # (the vector pass's names differ from the scalar pass's: a
            # vector scratch may wrap a loop holding a scalar pass's scratch
            # of the same buffer, whose copy in and out then reads and
            # writes it; ".acc" in both keeps either from being promoted)
            scratch = f"{buf}.acc{'v' if self.vectors else ''}{self.tag}{self.count}"
            self.count += 1
            promoted.append((scratch, buf, t, first, buf in acc.stored))
        if promoted:
            loop = _Rename({buf: scratch for scratch, buf, *_ in promoted}).mutate(loop)
        body = self.mutate(loop.body)         # inner loops, for the other buffers
        out = loop if body is loop.body else ir.For(loop.name, loop.min, loop.extent, loop.kind, body)
        for scratch, buf, t, index, stored in promoted:
            # a buffer the loop only reads is not written back (it may be a
            # read-only input)
            back = [ir.Store(buf, ir.Load(t, scratch, _slot(t)), index)] if stored else []
            out = ir.Allocate(scratch, t.with_lanes(1), (ir.index(t.lanes),), ir.block(
                ir.Store(scratch, ir.Load(t, buf, index), _slot(t)), out, *back))
        if promoted and (self.vectors or any(not stored for *_, stored in promoted)):
            # (the loads moved out of the loop happen only where it runs: an
            # input's region is needed only where its readers run)
            out = ir.IfThenElse(ir.LT(ir.index(0), loop.extent), out, None)
        return out


def promote_accumulators(stmt: ir.Stmt, vectors: bool = False, tag: str = "") -> ir.Stmt:
    """Scalar accesses (before vectorization), or vector ones (`vectors`:
    after it, where the loops over vector lanes are gone); `tag`: a mark
    of the scratch names of a later pass (after unrolling). The copies
    codegen compiles cold (cold_copies) are left as they are."""
    return _Promote(vectors, tag, cold_copies(stmt)).mutate(stmt)
