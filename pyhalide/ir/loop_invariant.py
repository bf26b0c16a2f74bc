"""The `loop_invariant(x)` intrinsic: x, a read whose value the frontend
proved the same at every iteration of the loops of its update deeper
than the loop whose variable its index uses (frontend_ast/
invariant_reads.py). lowering/hoist_invariant_if.py moves a test of it
out of such loops; lowering/drop_invariant_marks.py then removes the
marks (codegen and the reference evaluator take it as x)."""
from __future__ import annotations

from . import nodes as N

NAME = "loop_invariant"


def loop_invariant(x):
    return N.Call(x.type, NAME, (x,), N.INTRINSIC)


def is_loop_invariant(e) -> bool:
    return isinstance(e, N.Call) and e.call_type == N.INTRINSIC and e.name == NAME
