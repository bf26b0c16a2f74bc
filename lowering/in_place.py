"""The in-place variant of a kernel whose output is an argument array the
@pipeline function writes into (frontend_ast/arg_writes.py): the caller's
array itself is passed as that output, so the copy-in stage and the copy
back are not needed.

    drop_copy_in(stmt, pairs) -> Stmt        (after bounds inference)
    check_in_place(stmt, pairs)              (on the final Stmt)

`pairs` maps an output Func's name to the input image it copies: the
written argument's local array, whose pure definition (stage s0) is
`a_(x, y) = a(x, y)`. drop_copy_in removes that stage's loop nest from the
Func's produce block, so the kernel never reads the image. check_in_place
then makes sure the variant computes what the copying kernel computes on the
same argument passed as input and output, or raises InPlaceRefused:

- no read of the image is left (only the copy read it: every other read
  would see the array the kernel is changing);
- the stage is dropped after bounds inference, so the kernel keeps the
  check that the region it computes lies within the image (the copy's read
  of it): where that holds, the output's scratch storage over a larger
  region (context.internal_name) is the caller's buffer itself, never
  uninitialized memory, and its stores count as stores into the output;
- nothing can fail after the first store into the output: no AssertStmt and
  no Allocate but small ones of constant size (SMALL_ALLOCATION: on the
  stack; a heap one may raise MemoryError) after a store to it in program
  order, nor
  anywhere in a loop that stores to it (a later iteration runs after an
  earlier one stored). A failed call then has left the caller's array as
  it was, which the callers' failure handling (check_order.raise_first,
  the general path's rerun) relies on.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.errors import InPlaceRefused

from .context import internal_name


def drop_copy_in(stmt: ir.Stmt, pairs: dict) -> ir.Stmt:
    """stmt without the copy-in stage of each output in `pairs`; refused
    where that stage is not a plain copy of its image."""
    dropped = set()

    def fn(n):
        if isinstance(n, ir.ProducerConsumer) and n.is_producer and n.name in pairs:
            body = n.body.stmts if isinstance(n.body, ir.Block) else (n.body,)
            kept = [s for s in body if not _copy_stage(s, n.name, pairs[n.name])]
            if len(kept) == len(body) - 1 and kept:
                dropped.add(n.name)
                return ir.ProducerConsumer(n.name, True, ir.block(*kept))
            raise InPlaceRefused(f"the pure definition of {n.name} is not one copy stage")
        if isinstance(n, ir.Expr):
            return n
        return None
    out = ir.FuncMutator(fn).mutate(stmt)
    if dropped != set(pairs):
        raise InPlaceRefused(f"no copy stage found for {sorted(set(pairs) - dropped)}")
    return out


def _copy_stage(s, name: str, image: str) -> bool:
    """Whether statement s is stage s0 of Func `name`: loops of that stage
    around one Provide storing the image's value at the same point."""
    while isinstance(s, ir.For) and s.name.startswith(f"{name}.s0."):
        s = s.body
    if not isinstance(s, ir.Provide) or s.name != name or len(s.values) != 1:
        return False
    v = s.values[0]
    return isinstance(v, ir.Call) and v.call_type == ir.IMAGE and v.name == image and \
        len(v.args) == len(s.args) and all(ir.equal(x, y) for x, y in zip(v.args, s.args))


def check_in_place(stmt: ir.Stmt, pairs: dict) -> None:
    """InPlaceRefused unless the final Stmt is safe in place (module doc)."""
    reads = NamedNodes((ir.Load, ir.Call), set(pairs.values()))
    reads.visit(stmt)
    if reads.found:
        raise InPlaceRefused(f"the kernel reads {reads.found} besides its copy")
    StoreOrder(set(pairs) | {internal_name(o) for o in pairs}).walk(stmt, False)


class NamedNodes(ir.Visitor):
    """Finds a node of the types `kinds` whose name is in `names` (`found`:
    that name, or None)."""

    def __init__(self, kinds, names):
        super().__init__()
        self.kinds, self.names, self.found = kinds, names, None

    def visit(self, n):
        if self.found is None:
            if isinstance(n, self.kinds) and n.name in self.names:
                self.found = n.name
            else:
                super().visit(n)


# the largest allocation of constant size counted as one that cannot fail
# (bytes): codegen_llvm puts it on the stack (unless the function's stack
# budget is spent: then a heap allocation of at most this size)
SMALL_ALLOCATION = 1024


def _small(s: ir.Allocate) -> bool:
    n = s.type.bytes()
    for e in s.extents:
        if not isinstance(e, ir.Const):
            return False
        n *= max(int(e.value), 0)
    return s.reuse_if is None and n <= SMALL_ALLOCATION


class StoreOrder:
    """Walks statements in program order, knowing whether an output may
    have been stored to already."""

    def __init__(self, outputs):
        self.outputs = outputs
        self.memo = {}

    def stores(self, s) -> bool:
        """Whether s stores to an output."""
        hit = self.memo.get(id(s))
        if hit is None:
            v = NamedNodes((ir.Store, ir.Provide), self.outputs)
            v.visit(s)
            hit = self.memo[id(s)] = v.found is not None
        return hit

    def walk(self, s, stored: bool) -> bool:
        """Refuse a failure point after a store; return whether an output
        may have been stored to after s."""
        if s is None:
            return stored
        if stored and (isinstance(s, ir.AssertStmt) or
                       isinstance(s, ir.Allocate) and not _small(s)):
            raise InPlaceRefused("a check or an allocation after a store into the argument")
        if isinstance(s, ir.Block):
            for x in s.stmts:
                stored = self.walk(x, stored)
            return stored
        if isinstance(s, ir.IfThenElse):
            a = self.walk(s.then_case, stored)
            return self.walk(s.else_case, stored) or a
        if isinstance(s, ir.For):
            if self.stores(s.body):
                return self.walk(s.body, True)
            return self.walk(s.body, stored) or stored
        if isinstance(s, (ir.Store, ir.Provide)):
            return stored or s.name in self.outputs
        body = getattr(s, "body", None)
        if isinstance(body, ir.Stmt):
            return self.walk(body, stored)
        return stored
