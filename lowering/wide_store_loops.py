"""Loops LLVM should not unroll: an innermost loop of a small constant trip
count whose body already stores vectors of at least WIDE_BITS bits (four
512-bit registers: a schedule vectorized it 64 float32 lanes wide) into
buffers the stored values do not read (no accumulation).

    wide_store_loop(body, trip) -> bool

LLVM partially unrolls such a loop (conv5x5 at Halide's parameters: the
tile's row of 4 vectors of 64 lanes, in both passes, unrolled 2x). Halide 21
leaves LLVM's loop unrolling off (its EnableLLVMLoopOpt feature is not set
by default); on the AVX-512 host of session 25 (1 thread, CPU time, 2048^2
float32, alternating in one process, load 10-17) the unrolled loops ran
conv5x5 1.10x Halide strict_float's time, not unrolled 0.94-0.99x
(docs/issue14_25.md). Folds and accumulations (a stored value reading its
own buffer) keep LLVM's unrolling: at 64 lanes it gained 12 % on suite 1's
max (session 13). Statement-level walk down to the stores, then the stored
values' loads."""
from __future__ import annotations

from pyhalide import ir

__all__ = ["MAX_TRIP", "WIDE_BITS", "wide_store_loop"]

WIDE_BITS = 2048
MAX_TRIP = 8


def wide_store_loop(body: ir.Stmt, trip: int | None) -> bool:
    """Whether the loop of constant trip count `trip` (None: not constant)
    over `body` is such a loop."""
    if trip is None or trip > MAX_TRIP:
        return False
    stores = []
    stack = [body]
    while stack:
        s = stack.pop()
        if isinstance(s, ir.For):
            return False
        if isinstance(s, ir.Store):
            stores.append(s)
            continue
        stack.extend(c for c in ir.children(s) if isinstance(c, ir.Stmt))
    return bool(stores) and all(_wide(s) and not _reads(s.value, s.name) for s in stores)


def _wide(s: ir.Store) -> bool:
    t = s.value.type
    return t.lanes > 1 and t.lanes * t.bits >= WIDE_BITS


def _reads(e: ir.Expr, name: str) -> bool:
    """Whether expression `e` loads from buffer `name`."""
    v = _LoadsOf(name)
    v.visit(e)
    return v.found


class _LoadsOf(ir.Visitor):
    def __init__(self, name: str):
        super().__init__()
        self.name, self.found = name, False

    def visit_Load(self, x):
        self.found = self.found or x.name == self.name
        self.visit_children(x)
