"""A balanced tree of scalar float adds over consecutive elements of one
buffer, as one dense load and a pairwise horizontal add.

NumPy's pairwise_sum combines its 8 accumulators as
((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)); the sum order's name_tree
(frontend_ast/sum_order.py) reads them from name_lanes, where they sit
side by side: 8 scalar loads and 7 adds per row. `pairwise_leaves` finds
such a tree (any power of two of leaves from 4 to 16); `emit_pairwise`
loads the leaves as one vector and adds its even lanes to its odd lanes,
level by level: each add has the same two operands, in the same order, as
the scalar tree's, so the result is the same bit for bit. Vectorized
across rows (L rows of the leaves side by side), the L rows are one dense
load of L x leaves lanes and the same levels leave one lane per row: an
in-register transpose."""
from __future__ import annotations

from llvmlite import ir as ll

from pyhalide import ir

from . import codegen_ops as ops

MIN_LEAVES, MAX_LEAVES = 4, 16
MAX_DEPTH = 4           # 2**4 = MAX_LEAVES
MAX_WIDTH = 64          # lanes of the one load across rows


def _leaves(e, out, depth=MAX_DEPTH):
    """The leaves of a balanced Add tree at most `depth` deep, left to
    right, into out; False when e is not one (the depth bounds the walk:
    each Add of a long chain is looked at once per codegen visit)."""
    if isinstance(e, ir.Add):
        if depth == 0:
            return False
        before = len(out)
        if not _leaves(e.a, out, depth - 1):
            return False
        left = len(out) - before
        if not _leaves(e.b, out, depth - 1):
            return False
        return len(out) - before == 2 * left
    out.append(e)
    return True


def _offset(index, base):
    """k when index is `base + k` (k a constant), 0 when it is base."""
    if ir.equal(index, base):
        return 0
    i, b = ir.const_value(index), ir.const_value(base)
    if isinstance(i, int) and isinstance(b, int):
        return i - b
    if isinstance(index, ir.Add) and ir.equal(index.a, base):
        return ir.const_value(index.b)
    return None


def pairwise_leaves(e):
    """(buffer name, first index, leaves) when e (a float Add) is a balanced
    tree whose leaves are loads of one buffer at first index + 0, 1, 2, ...
    in order; else None. A vector e of L lanes matches when its leaves are
    loads at ramp(first + k, leaves, L): the L rows of leaves side by side
    (the combine vectorized across rows)."""
    if not (isinstance(e, ir.Add) and e.type.is_float() and e.type.bits in (32, 64)):
        return None
    leaves = []
    if not _leaves(e, leaves) or not MIN_LEAVES <= len(leaves) <= MAX_LEAVES:
        return None
    n = len(leaves)
    if not all(isinstance(leaf, ir.Load) and leaf.name == leaves[0].name
               and leaf.type == e.type for leaf in leaves):
        return None
    at = [leaf.index for leaf in leaves]
    if e.type.lanes > 1:
        if n * e.type.lanes > MAX_WIDTH or not all(isinstance(i, ir.Ramp) and ir.const_value(i.stride) == n for i in at):
            return None
        at = [i.base for i in at]
    if all(_offset(i, at[0]) == k for k, i in enumerate(at)):
        return leaves[0].name, at[0], n
    return None


def emit_pairwise(b: ll.IRBuilder, v, out_lanes=1):
    """The pairwise sums of v's rows (out_lanes rows side by side, a power
    of two of lanes each): lanes 2i + 2i+1 at each level, the even lane the
    left operand, down to one lane per row (a vector when out_lanes > 1)."""
    n = v.type.count
    while n > out_lanes:
        half = n // 2
        even = ops.shuffle(b, v, [2 * i for i in range(half)])
        odd = ops.shuffle(b, v, [2 * i + 1 for i in range(half)])
        v = b.fadd(even, odd)
        n = half
    return v if out_lanes > 1 else b.extract_element(v, ll.Constant(ops.I32, 0))
