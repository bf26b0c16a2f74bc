"""Flat reads of contiguous arguments: an array value whose elements read
argument arrays at their own indices, summed over axes that are one dense
block of each argument's memory, is read along that block by its flat
position (ir/flat_index.py): one vector stream over the block, with no
division of the position into indices.

`FlatReader.of(cx, operand, run, element)` checks, with probe variables for
the `run` axes (the reduced axes innermost in memory, outermost first; the
operand's size-1 axes are never among them), that the element expression
`element(probes)` uses each probe only as the matching coordinate of reads
of argument images (no Func, no arithmetic on it, no other image) and that
each such argument is C- or Fortran-contiguous (its call key's layout), has
the run axes as its innermost axes in memory in the same order, and has the
operand's sizes along all of them but the outermost (provably, or by
broadcasting's call-time check of sizes never 1) (so the block of the
operand's run axes is a dense block of its memory). `reader.element(pos,
sizes)` is then the element at flat position `pos` of the block: the
innermost run axis at flat_index(pos, 0, n - 1), the others at
flat_index(0, 0, size - 1), so bounds inference sees the block's region."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.flat_index import flat_index

from .arrayexpr import Broadcastable, never_one, same_size, size_is


class FlatReader:
    def __init__(self, node, probes, run):
        self.node, self.probes, self.run = node, probes, run

    @staticmethod
    def of(cx, operand, run, element):
        """A FlatReader of `operand`'s elements over the `run` axes, or None
        where they are not one dense block of every argument it reads.
        element(at) builds the element with the run axes at the index nodes
        `at` (axis -> node)."""
        if len(run) < 2:
            return None
        probes = {k: ir.Variable(ir.INDEX, f"%flat{k}") for k in run}
        node = element(probes)
        if not _reads_block(cx, node, operand, run, probes):
            return None
        return FlatReader(node, probes, run)

    def element(self, pos, sizes):
        """The element at flat position `pos` (an int32 node) of the block
        (sizes: the run axes' size nodes, outermost first)."""
        zero = ir.index(0)
        inner = self.run[-1]
        mapping = {}
        for k, n in zip(self.run, sizes):
            last = ir.Sub(n, ir.index(1))
            mapping[self.probes[k].name] = flat_index(pos if k == inner else zero, zero, last)
        return ir.substitute(self.node, mapping)


def _reads_block(cx, node, operand, run, probes) -> bool:
    nd = operand.ndim
    names = {p.name: k for k, p in probes.items()}
    ok = [True]
    images = {}

    class _Check(ir.Visitor):
        def visit_Variable(self, v):
            if v.name in names:
                ok[0] = False           # a probe outside an image coordinate

        def visit_Call(self, c):
            if c.call_type == ir.IMAGE and any(isinstance(a, ir.Variable) and a.name in names
                                               for a in c.args):
                if len(c.args) != nd or not _identity(c.args, names, nd):
                    ok[0] = False
                    return
                images[id(c.func)] = c.func
                for a in c.args:
                    if not (isinstance(a, ir.Variable) and a.name in names):
                        self.visit(a)
                return
            self.visit_children(c)

    _Check().visit(node)
    if not ok[0] or not images:
        return False
    return all(_dense_block(cx, img, operand, run) for img in images.values())


def _identity(args, names, nd) -> bool:
    """Whether every probe is among the coordinates, each its own axis's
    (dimension d: axis nd-1-d)."""
    seen = set()
    for d, a in enumerate(args):
        if isinstance(a, ir.Variable) and a.name in names:
            if names[a.name] != nd - 1 - d:
                return False
            seen.add(a.name)
    return len(seen) == len(names)


def _dense_block(cx, img, operand, run) -> bool:
    """Whether the run axes of the argument behind image `img` are the
    innermost of its memory, in run's order, one dense block whose sizes
    but the outermost are the operand's."""
    arr = getattr(img, "arg_array", None)
    if arr is None or arr.ndim != operand.ndim:
        return False
    layout = getattr(arr, "layout", None)
    nd = arr.ndim
    if layout == "C":
        order = list(range(nd))
    elif layout == "F":
        order = list(reversed(range(nd)))
    else:
        return False
    big = [k for k in order if not size_is(arr.shape[k], 1)]
    if big[len(big) - len(run):] != list(run):
        return False
    return all(_equal_sizes(cx, arr.shape[k], operand.shape[k]) for k in run[1:])


def _equal_sizes(cx, a, b) -> bool:
    """Whether two sizes are equal: provably, or by a call-time broadcasting
    check of two sizes that are never 1 (it raises where they differ)."""
    if same_size(cx, a, b):
        return True
    if not (never_one(a) and never_one(b)):
        return False
    return any(isinstance(c, Broadcastable) and
               ((same_size(cx, c.a, a) and same_size(cx, c.b, b)) or
                (same_size(cx, c.a, b) and same_size(cx, c.b, a)))
               for c in cx.static_checks)
