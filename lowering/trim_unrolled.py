"""An unrolled loop of a few iterations whose body holds serial loops that
only a known value of its variable lets trim_no_ops trim, unrolled there.

    unrolled_copies(loop, trim) -> [stmt, ...] or None

Phase mode (frontend_ast/carried_phases.py) runs each array statement of
a Python loop as one phase of an update whose RDom is (points, phase,
iteration), the phase loop unrolled; the point loops span the largest
region over the phases and each phase's guard (`select(phase == 0, x < n
&& y == 0, select(phase == 1, y < n && x < m, ...))`) keeps its own points.
The unroll pass runs after trim_no_ops, so the trimmer saw the selects on
the phase and trimmed nothing: `out += a.min(axis=1)` of a (3000, 4) `a`
ran 4 x 3000 x 3000 guarded iterations per Python iteration.

Here a loop of kind `unrolled` with a constant extent of at most
MAX_COPIES, whose body holds a serial loop of symbolic extent, becomes its
copies (copy i under `LetStmt(var, min + i)`, simplified, as unroll.py
makes them), each passed to `trim`; the copies are kept only when `trim`
changed one of them, else the loop stays (the unroll pass makes the same
copies later). The copies run in the loop's order, so the result is the
loop's."""
from __future__ import annotations

from pyhalide import ir

from .simplify import simplify

MAX_COPIES = 16


class _SerialLoop(ir.Visitor):
    def __init__(self):
        super().__init__()
        self.found = False

    def visit(self, n):
        if not self.found and not isinstance(n, ir.Expr):     # (expressions hold no loops)
            super().visit(n)

    def visit_For(self, s):
        if s.kind == ir.ForKind.SERIAL and not isinstance(simplify(s.extent), ir.Const):
            self.found = True
        else:
            self.visit_children(s)


def _has_serial_loop(s) -> bool:
    v = _SerialLoop()
    v.visit(s)
    return v.found


def unrolled_copies(loop: ir.For, trim):
    """The trimmed copies of the unrolled `loop`, or None (see the module
    doc)."""
    if loop.kind != ir.ForKind.UNROLLED:
        return None
    extent = simplify(loop.extent)
    if not isinstance(extent, ir.Const) or not 0 < extent.value <= MAX_COPIES or \
            not _has_serial_loop(loop.body):
        return None
    lo = simplify(loop.min)
    copies = [simplify(ir.LetStmt(loop.name, simplify(ir.Add(lo, ir.index(i))), loop.body))
              for i in range(extent.value)]
    trimmed = [trim(c) for c in copies]
    if all(t is c for t, c in zip(trimmed, copies)):
        return None
    return trimmed
