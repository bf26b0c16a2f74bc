"""A float sum of a whole array in phase mode (carried_phases.py): NumPy's
pairwise order (sum_order.py) as phases of the loop's STATE, for an operand
that NumPy visits as one run of memory (sum_order.memory_order: every axis
merging with the next) of at most one pairwise block (128 floats: 128
elements of a real sum, 64 of a part of a complex one). The operand's m
elements are taken flat in that memory order, x[f]:

  lanes (8 for a real sum, 4 for a part of a complex one: sum_order.LANES,
  complex_sums.COMPLEX_LANES), L = m - m % lanes where m >= lanes, else 0;
  phase 1: the accumulators r[j] = -0.0 (j < lanes; -0.0 + x is x exactly)
  phase 2: r[f % lanes] += x[f] for f < L, in turn
  phase 3: s = the accumulators added pairwise ((r0+r1)+(r2+r3))+... where
           m >= lanes, else -0.0
  phase 4: s += x[f] for L <= f < m, in turn
  the sum: +0.0 + s (NumPy starts the result at +0.0).

A larger operand (NumPy splits it in halves, recursively) raises
NotImplementedError when the function is called; another layout, a sum
over some axes only, or an operand with two or more axes made from arrays
whose layout phase mode does not know (the names it rebinds, the arrays
the body makes: PhaseRun.layout_known holds the others) is a located
error."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.expr import cast_node as cast

from . import ops
from .arrayexpr import ArrayExpr, element_node, size_is
from .types import PY_INT
from .values import Val, const_val, fresh, with_type_range

BLOCK_FLOATS = 128      # sum_order.BLOCK: one pairwise block, in floats


def phase_sum(run, operand: ArrayExpr, axes, acc_ty, node, layout, lanes, memory_order):
    """operand summed over all its axes in NumPy's order, as phases of run
    (a carried_phases.PhaseRun): a 0-d ArrayExpr of type acc_ty.
    memory_order is sum_order.memory_order (passed in: sum_order imports this
    module)."""
    cx, m_ = run.cx, run.m
    nd = operand.ndim
    order, merges = memory_order(operand, layout)
    big = [k for k in order if not size_is(operand.shape[k], 1)]
    flags = dict(zip(order, tuple(merges) + (True,)))
    if list(axes) != list(range(nd)) or not all(flags[k] for k in order[:-1]):
        raise cx.err(node, "in a loop that carries arrays from one iteration to the next, "
                           "a float sum compiles only over all axes of an operand that is "
                           "one run of memory (a new array, or a contiguous one)",
                     hint="compute it before the loop, or sum with an element loop")
    block = BLOCK_FLOATS * lanes // 8
    cx.static_checks.append(_BlockCheck(operand.shape, block, cx.smap.loc(node)))
    sizes = [cast(ir.INDEX, ops.node_of(cx, s)) for s in operand.shape]
    m = ir.index(1)
    for s in sizes:
        m = ir.Mul(m, s)
    L = ir.Select(ir.GE(m, ir.index(lanes)), ir.Sub(m, ir.Mod(m, ir.index(lanes))),
                  ir.index(0))
    t = acc_ty.ir()
    neg0 = ir.Const(t, -0.0)

    # the element once, at placeholders (NumPy's visiting order of an operand
    # with two or more axes follows its memory layout, which phase mode
    # knows only for arrays named before the loop and written in place)
    at = [ir.Variable(ir.INDEX, fresh(f"flat{k}")) for k in range(nd)]
    saved = set(m_.reads)
    m_.reads.clear()
    cx.cur_node = node
    elem = element_node(cx, ops.cast_to(cx, operand.elem(at), acc_ty), acc_ty)
    made = m_.reads - run.layout_known
    m_.reads |= saved
    if len(big) > 1 and made:
        raise cx.err(node, "in a loop that carries arrays from one iteration to the next, "
                           "a float sum of an array value with two or more axes made from "
                           "arrays the loop makes or rebinds is not supported yet (NumPy "
                           "sums it in its memory order, which follows theirs)",
                     hint="sum a 1-D array (.ravel()), or compute it before the loop")

    def x(f):
        idx, rest = [ir.index(0)] * nd, f
        for j, k in enumerate(reversed(order)):     # innermost in memory first
            idx[k] = ir.Mod(rest, sizes[k]) if j < len(order) - 1 else rest
            rest = ir.Div(rest, sizes[k])
        return ir.substitute(elem, {a.name: i for a, i in zip(at, idx)})
    r = m_.member("sum_lanes", acc_ty, [const_val(lanes)])
    s = m_.member("sum", acc_ty, [])
    m_.add([const_val(lanes)], lambda p: (r, p, {r.index: neg0}))
    m_.add([_node_val(L)], lambda p: (r, [ir.Mod(p[0], ir.index(lanes))], {
        r.index: ir.Add(m_.read(r, [ir.Mod(p[0], ir.index(lanes))]), x(p[0]))}))
    lane = [m_.read(r, [ir.index(j)]) for j in range(lanes)]
    while len(lane) > 1:
        lane = [ir.Add(a, b) for a, b in zip(lane[::2], lane[1::2])]
    m_.add([], lambda p: (s, [], {s.index: ir.Select(ir.GE(m, ir.index(lanes)), lane[0],
                                                       neg0)}))
    m_.add([_node_val(ir.Sub(m, L))], lambda p: (s, [], {
        s.index: ir.Add(m_.read(s, []), x(ir.Add(L, p[0])))}))
    return ArrayExpr([], acc_ty, lambda i: with_type_range(Val(
        ir.Add(ir.Const(t, 0.0), m_.read(s, [])), acc_ty)), node)


def _node_val(n) -> Val:
    return Val(n, PY_INT, 0, None)


class _BlockCheck:
    """Call-time check that the operand has at most `block` elements:
    NotImplementedError otherwise (NumPy's recursive halves of a larger
    pairwise sum are not built in phase mode)."""

    def __init__(self, shape, block, loc):
        self.shape, self.block, self.loc = shape, block, loc

    def __call__(self, env):
        m = 1
        for s in self.shape:
            m *= int(s.static(env)) if s.static is not None else int(s.const)
        if m > self.block:
            where = f"{self.loc.file}:{self.loc.line}: " if self.loc is not None else ""
            raise NotImplementedError(
                f"{where}a float sum of {m} elements in a loop that carries arrays from one "
                f"iteration to the next: only {self.block} or fewer are supported yet")
