"""The `flat_index(c, lo, hi)` intrinsic: coordinate c of a read of a
buffer whose elements, over the region the read covers, lie in one dense run
of memory, which bounds inference takes to be in [lo, hi].

A read whose coordinates are flat_index calls reads the element at the
address its coordinates give (sum of c * stride over the dimensions, as
storage flattening computes it), which may lie past the end of a row: the
next row's element, where the rows follow each other in memory. So a dense
block of a C-ordered buffer is read as one vector stream, `a(f, 0, 0)` with
f = flat_index(f, 0, W - 1) for its W-wide rows and flat_index(0, 0, H - 1)
for the others, while bounds inference sees the block's region [0, W) x
[0, H) x ... and checks that it is inside the buffer. Whoever builds the
read guarantees that every address is that of an element inside the region
the coordinates promise (frontend_ast/flat_reads.py).

Storage flattening replaces each call by c; the reference evaluator reads by
address (reference/funcs.py)."""
from __future__ import annotations

from . import nodes as N

NAME = "flat_index"


def flat_index(c, lo, hi):
    """The coordinate c, promised to be bounded by [lo, hi] (IR nodes)."""
    return N.Call(c.type, NAME, (c, lo, hi), N.INTRINSIC)


def is_flat_index(e) -> bool:
    return isinstance(e, N.Call) and e.call_type == N.INTRINSIC and e.name == NAME
