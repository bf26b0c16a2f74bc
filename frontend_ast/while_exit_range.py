"""The range predicate of a shifting `while` loop run relative to its start,
as the merged Func's update predicate (loop_cycles.py).

    range_guard(g_preds, member_preds, ren, member_rens) -> predicate or None

emit.relative_rdom runs such a loop (while_exit_write.py) from the
counter's first value over a bound of its trip counts, with the predicate
that the counter is still in the loop's range (`t > min(-1, first) - 1`
for insertion sort's `j >= 0` widened by one step). Every iteration where
it fails comes after the loop's exit: the last iteration in the range
fails the loop's test (the widened bound) and sets the stop or `?done`
flag, and the next one leaves the loop (ir.Definition.exit_moves). In the
merged values the predicate only selected the old values there, so
loop_cycles makes it the update's own predicate instead: the lowering
tests it around the update (`if (t > -2) {...}`), where
lowering/trim_guarded_loop.py turns it into the loop's extent, and
lowering/loop_range_facts.py then proves the clamps of the positions.

It is that predicate only where the carried state's update (G) has exactly
one predicate, reading no memory and calling nothing, and every member
array's update has it first (after renaming to the merged loop's
variables)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.simplify import equal_after_simplify


def range_guard(g_preds, member_preds, ren: dict, member_rens):
    if len(g_preds) != 1 or ir.find_calls(g_preds[0]):
        return None
    g = ir.substitute(g_preds[0], ren)
    for preds, rb in zip(member_preds, member_rens):
        if not preds or not equal_after_simplify(ir.substitute(preds[0], rb), g):
            return None
    return g
