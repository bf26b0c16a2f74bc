"""Whether a kernel's top-level function is bookkeeping (codegen_llvm).

    is_bookkeeping(stmt) -> bool

A pipeline whose stages are computed in parallel loops or below compute_at
levels leaves in the kernel's `.body` function mostly straight-line code run
once per call: the bounds of every stage, the allocation sizes and the
checks of each (local Laplacian's: 6,400 lines of LLVM IR, 1,100 compares
and 935 selects, three small serial loops). LLVM's full pipeline spent a
third of that module's optimization time on it (1.27 of 3.57 s CPU on one
thread) for code that runs once per call. For such a body codegen marks the
function `noinline optnone` and outlines each serial loop at its top level
into a function of its own, optimized as before (codegen_llvm
_emit_outlined_loop): the loops keep their code, the straight-line code is
only translated.

The test is the size of the statement outside every loop: the IR nodes of
stmt that are not inside the body of a For. Kernels below BOOKKEEPING_NODES
(the small kernels of the NumPy frontend, whose top level is a few lets and
one loop nest) are compiled as before.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import children

from .codegen_math import WIDE

__all__ = ["is_bookkeeping", "share_attributes", "BOOKKEEPING_NODES"]

# IR nodes outside every loop from which the body counts as bookkeeping
# (bilateral grid 633, the larger apps above it: docs/apps_compile28.md);
# most @pipeline kernels of the loop-heavy frontend tests stay below it (their
# compile time does not change at 500 or 600)
BOOKKEEPING_NODES = 600


def nodes_outside_loops(stmt, limit: int | None = None) -> int:
    """The number of IR nodes of stmt not inside the body of a For (a For's
    min and extent count), shared nodes once; stops counting at `limit`."""
    seen = set()
    stack = [stmt]
    n = 0
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        n += 1
        if limit is not None and n >= limit:
            break
        if isinstance(node, ir.For):
            stack.append(node.min)
            stack.append(node.extent)
        else:
            stack.extend(c for c in children(node) if isinstance(c, ir.IRNode))
    return n


def is_bookkeeping(stmt) -> bool:
    """Whether stmt has at least BOOKKEEPING_NODES nodes outside its loops."""
    return nodes_outside_loops(stmt, BOOKKEEPING_NODES) >= BOOKKEEPING_NODES


def share_attributes(body_fn, loops):
    """Give the functions of the outlined loops the 512-bit vector preference
    of the body they came from (codegen_math.prefer_wide_vectors marks the
    functions defined before each math call: a loop outlined after the last
    one would otherwise be vectorized at 256 bits, as it was not inside the
    body)."""
    if WIDE in body_fn.attributes:
        for fns in loops:
            for fn in fns:
                if WIDE not in fn.attributes:
                    set.add(fn.attributes, WIDE)
