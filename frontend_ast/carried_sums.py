"""A float sum of a whole array in phase mode (carried_phases.py): NumPy's
pairwise order (sum_order.py) as phases of the loop's STATE, for an operand
that NumPy visits as one run of memory (sum_order.memory_order: every axis
merging with the next). The operand's m elements are taken flat in that
memory order, x[f]; lanes: 8 for a real sum, 4 for a part of a complex one
(sum_order.LANES, complex_sums.COMPLEX_LANES), blocks of 16 chunks of lanes.

NumPy splits a run of more than a block in halves (h = m // 2 rounded down
to a multiple of lanes), recursively; sum_order lays the split tree's leaves
on 2**depth slots (a leaf above the last level keeps the first slot of its
subtree, the others hold -0.0, which x + -0.0 leaves exact). Computed at
call time from m (sum_order.pairwise_plan): depth, the most chunks of a
leaf, the rightmost leaf's slot and the number of slots. With q = m // lanes,
the phases (1-D, the slots at constant strides of their points):

  1  each slot's leaf (first chunk, chunks, rightmost?: one int64 member)
     = the root (0, q, 1), then the descent, a level per point: a node that
     splits goes to its half named by the slot's bit of that level, a leaf
     stays in the slot whose bits below it are 0 and leaves the others empty
  2  r[s, j] = -0.0 + x[first * lanes + j] at a leaf's first chunk, then
     r[s, j] += x[(first + c) * lanes + j] for its other chunks c, in turn
     (-0.0 past its chunks; -0.0 + x is x exactly)
  3  r[s, 0] = the accumulators added pairwise ((r0+r1)+(r2+r3))+... (-0.0
     where m < lanes), then r[rightmost, 0] += x[f] for q * lanes <= f < m,
     in turn
  4  the levels of the tree, bottom up: r[i*2w, 0] += r[i*2w + w, 0]
  the sum: +0.0 + r[0, 0] (NumPy starts the result at +0.0).

A run of at most one block is one slot (depth 0). A sum NumPy casts (an
operand of another type than the sum's) is summed in buffer pieces of 8192
elements: more raise NotImplementedError at call time. Another layout, a
sum over some axes only, or an operand with two or more axes made from
arrays whose layout phase mode does not know (the names it rebinds, the
arrays the body makes: PhaseRun.layout_known holds the others) is a
located error, except one axis of a 2-D operand whose other axis is inner
in memory (carried_row_sums.py)."""
from __future__ import annotations

import itertools

import numpy as np

from pyhalide import ir
from pyhalide.buffer import Param
from pyhalide.expr import cast_node as cast

from . import carried_row_sums, ops
from .arrayexpr import ArrayExpr, element_node, size_is
from .carried_writes import lazy
from .context import StaticParam
from .limits import limit
from .types import PY_INT, np_ty
from .values import Val, const_val, fresh, with_type_range

_params = itertools.count()     # names of the call-time parameters
_LEAF = np_ty(np.int64)         # a slot's leaf: first chunk * 2**33 + chunks * 2 + rightmost?


def _L(v) -> ir.Expr:
    return ir.Const(_LEAF.ir(), v)


def phase_sum(run, operand: ArrayExpr, axes, acc_ty, node, layout, lanes, memory_order,
              plan):
    """operand summed over all its axes in NumPy's order, as phases of run
    (a carried_phases.PhaseRun): a 0-d ArrayExpr of type acc_ty.
    memory_order is sum_order.memory_order and plan sum_order.pairwise_plan
    (passed in: sum_order imports this module)."""
    cx, m_ = run.cx, run.m
    if carried_row_sums.applies(run, operand, axes, acc_ty, layout, memory_order):
        # one axis of a 2-D operand, the other inner: row by row (carried_row_sums.py)
        return carried_row_sums.rows_sum(run, operand, axes[0], acc_ty, node, lanes,
                                         phase_sum, memory_order, plan)
    nd = operand.ndim
    order, merges = memory_order(operand, layout)
    big = [k for k in order if not size_is(operand.shape[k], 1)]
    flags = dict(zip(order, tuple(merges) + (True,)))
    if list(axes) != list(range(nd)) or not all(flags[k] for k in order[:-1]):
        raise cx.err(node, "in a loop that carries arrays from one iteration to the next, "
                           "a float sum compiles only over all axes of an operand that is "
                           "one run of memory (a new array, or a contiguous one)",
                     hint="compute it before the loop, or sum with an element loop")
    if operand.ty != acc_ty:
        # NumPy casts in buffer pieces of 8192 elements, summed one after
        # the other: one piece is one pairwise sum
        cx.static_checks.append(_OnePiece(operand.shape, cx.smap.loc(node)))
    sizes = [cast(ir.INDEX, ops.node_of(cx, s)) for s in operand.shape]
    m = ir.index(1)
    for s in sizes:
        m = ir.Mul(m, s)
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

    def x_at(f, cond=None):
        """x(f) where cond holds and 0 <= f < m, else -0.0 (which adds
        exactly), computed only there (a lazy branch): bounds inference
        bounds the operand's reads by m where it narrows f by the branch's
        condition, not by the RDom's extents (the largest over all phases)."""
        inside = ir.And(ir.GE(f, ir.index(0)), ir.LT(f, m))
        return lazy(inside if cond is None else ir.And(cond, inside), x(f), neg0)
    loc = cx.smap.loc(node)
    # (the number of slots a parameter too: bounds inference does not bound a shift)
    planned = _LastPlan(plan, lanes)
    depth, most, right, slots = (
        _static(cx, operand.shape, lambda n, k=k: planned(n)[k], loc) for k in range(4))
    q, rem = ir.Div(m, ir.index(lanes)), ir.Mod(m, ir.index(lanes))
    one, zero, w = ir.index(1), ir.index(0), ir.index(lanes)
    leaf = m_.member("sum_leaf", _LEAF, [_node_val(slots)])
    r = m_.member("sum_lanes", acc_ty, [_node_val(slots), const_val(lanes)])

    def leaf_of(s):
        """(first chunk, chunks, rightmost?) of slot s's leaf, as indices."""
        v = m_.read(leaf, [s])
        return (cast(ir.INDEX, ir.Div(v, _L(2 ** 33))),
                cast(ir.INDEX, ir.Mod(ir.Div(v, _L(2)), _L(2 ** 32))),
                cast(ir.INDEX, ir.Mod(v, _L(2))))

    def packed(f, c, end):
        return ir.Add(ir.Add(ir.Mul(cast(_LEAF.ir(), f), _L(2 ** 33)),
                             ir.Mul(cast(_LEAF.ir(), c), _L(2))), cast(_LEAF.ir(), end))

    # 1: a slot per 32 points (a constant stride: no division by a parameter
    # at each point; depth < 32): its root at the first, then the descent, a
    # level per point (the points past the depth leave the leaf as it is)
    def descend(p):
        s, lv = ir.Div(p[0], ir.index(32)), ir.Sub(ir.Mod(p[0], ir.index(32)), one)
        f, c, end = leaf_of(s)
        split = ir.GT(ir.Add(ir.Mul(c, w), ir.Select(ir.NE(end, zero), rem, zero)),
                      ir.index(16 * lanes))
        right_half = ir.NE(ir.Mod(ir.Shr(s, _amount(ir.Sub(ir.Sub(depth, one), lv))),
                                  ir.index(2)), zero)
        half = ir.Div(c, ir.index(2))
        down = packed(ir.Select(ir.And(split, right_half), ir.Add(f, half), f),
                      ir.Select(split, ir.Select(right_half, ir.Sub(c, half), half),
                                ir.Select(right_half, zero, c)),
                      ir.Select(right_half, ir.Select(split, end, zero),
                                ir.Select(split, zero, end)))
        down = ir.Select(ir.LT(lv, depth), down, m_.read(leaf, [s]))
        return leaf, [s], {leaf.index: ir.Select(ir.LT(lv, zero), packed(zero, q, one), down)}
    m_.add([_node_val(ir.Add(ir.Mul(ir.Sub(slots, one), ir.index(32)), ir.Add(depth, one)))],
           descend)

    # 2: each slot's chunks into its accumulators, in turn (the first chunk
    # of each slot adds to -0.0: -0.0 + x is x exactly); a slot per 16 chunks
    # (a leaf has at most 16: a constant stride), those past its own adding -0.0
    def accumulate(p):
        g, j = ir.Div(p[0], w), ir.Mod(p[0], w)
        s, c = ir.Div(g, ir.index(16)), ir.Mod(g, ir.index(16))
        f, n, _ = leaf_of(s)
        chunk = ir.Max(ir.Min(ir.Add(f, c), ir.Sub(q, one)), zero)
        v = x_at(ir.Add(ir.Mul(chunk, w), j), ir.LT(c, n))
        acc = ir.Select(ir.EQ(c, zero), neg0, m_.read(r, [s, j]))
        return r, [s, j], {r.index: ir.Add(acc, v)}
    m_.add([_node_val(ir.Mul(ir.Add(ir.Mul(ir.Sub(slots, one), ir.index(16)), most), w))],
           accumulate)

    # 3: each slot's accumulators added pairwise into r[s, 0] (p < slots; -0.0
    # where no slot has a chunk, m < lanes), then the m % lanes rest into the
    # rightmost leaf, in turn
    def combine(p):
        ends = ir.LT(p[0], slots)
        s = ir.Select(ends, p[0], right)
        lane = [m_.read(r, [s, ir.index(j)]) for j in range(lanes)]
        while len(lane) > 1:
            lane = [ir.Add(a, b) for a, b in zip(lane[::2], lane[1::2])]
        rest = ir.Add(m_.read(r, [s, zero]), x_at(ir.Add(ir.Mul(q, w), ir.Sub(p[0], slots))))
        total = ir.Select(ir.GT(most, zero), lane[0], neg0)
        return r, [s, zero], {r.index: lazy(ends, total, rest)}
    m_.add([_node_val(ir.Add(slots, rem))], combine)

    # 4: the levels, bottom up (level l = p // (slots / 2), pair i = p % (slots / 2),
    # by a shift: slots / 2 is 2**(depth - 1))
    def level(p):
        pairs = ir.Shr(slots, one)
        lv = ir.Shr(p[0], _amount(ir.Sub(depth, one)))
        i = ir.Sub(p[0], ir.Mul(lv, pairs))
        width = ir.Shl(one, _amount(lv))
        here = ir.LT(i, ir.Shr(slots, _amount(ir.Add(lv, one))))
        k = ir.Select(here, ir.Mul(i, ir.Shl(width, one)), zero)
        old = m_.read(r, [k, zero])
        return r, [k, zero], {r.index: ir.Select(here, ir.Add(old, m_.read(r, [ir.Add(k, width),
                                                                              zero])), old)}
    m_.add([_node_val(ir.Mul(ir.Shr(slots, one), depth))], level)
    return ArrayExpr([], acc_ty, lambda i: with_type_range(Val(
        ir.Add(ir.Const(t, 0.0), m_.read(r, [zero, zero])), acc_ty)), node)


def _node_val(n) -> Val:
    return Val(n, PY_INT, 0, None)


class _OnePiece:
    """Call-time check that a sum NumPy casts in buffer pieces (sum_order.
    BUFSIZE elements, summed in turn) has at most one piece:
    NotImplementedError otherwise (the pieces are not built in phase mode)."""

    PIECE = 8192

    def __init__(self, shape, loc):
        self.shape, self.loc = shape, loc

    def __call__(self, env):
        m = 1
        for s in self.shape:
            m *= int(s.static(env)) if s.static is not None else int(s.const)
        if m > self.PIECE:
            where = f"{self.loc.file}:{self.loc.line}: " if self.loc is not None else ""
            raise limit(NotImplementedError(
                f"{where}a float sum of {m} elements cast to another type in a loop that "
                f"carries arrays from one iteration to the next: NumPy sums it in pieces of "
                f"{self.PIECE}, which are not built yet; cast the array before the sum"))


class _LastPlan:
    """plan(n, lanes) and the number of slots, 2**depth, for the last n
    asked: the four call-time parameters of a sum compute the plan once
    per call (a plan takes ~7 us in Python; cma_pt has four sums)."""

    def __init__(self, plan, lanes):
        self.plan, self.lanes, self.last = plan, lanes, None

    def __call__(self, n):
        last = self.last
        if last is None or last[0] != n:
            p = self.plan(n, self.lanes)
            last = self.last = (n, p + (1 << p[0],))
        return last[1]


def _amount(n) -> ir.Expr:
    """A shift amount clamped into [0, 30]: the phases' coordinates are
    computed at every point of STATE's update (their selects keep the
    phase's own), where an unclamped amount may leave the type's width."""
    return ir.Max(ir.Min(n, ir.index(30)), ir.index(0))


def _static(cx, shape, fn, loc) -> ir.Expr:
    """fn(the number of elements of `shape`), computed in Python at call
    time (a Param of type index)."""
    fns = [(lambda env, v=v: v.const) if v.static is None else v.static for v in shape]

    def value(env):
        n = 1
        for f in fns:
            n *= int(f(env))
        return fn(n)
    p = Param(ir.INDEX, f"__pyhalide_psum{next(_params)}")
    cx.static_params.append(StaticParam(p, value, ir.INDEX, loc))
    return p.node
