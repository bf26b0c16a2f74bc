"""NumPy's element among ±0 ties of a float max/min reduction in phase mode
(a loop that carries arrays, carried_phases.py), as numpy_zero_ties.py
gives it outside such loops.

After the reduction's phases (its identity over the kept points, then the
operator over every point: the serial rule), two more phases of the same
loop, each writing only where the result is a zero:

- over every point of the operand, where the result at its kept point is
  a zero and the element is a zero: the member KEY (int64, the kept
  shape) takes the greatest numpy_zero_ties.choice_key;
- over the kept points, where the result is a zero: the result becomes the
  zero of KEY's sign bit, and KEY goes back to NONE (its value before the
  loop), ready for the next iteration.

On the fast path (no zero result) the first phase tests the result once
per kept point (lowering/hoist_invariant_if.py moves the test out of the
loop over the reduced axes: the phase stores only KEY,
lowering/drop_self_stores.py) and the second once per kept point; neither
stores. An element is read only where the reduction read it."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from . import types as T
from .arrayexpr import element_node
from .carried_writes import lazy
from .numpy_zero_keys import NONE, const, vector_lanes
from .numpy_zero_ties import (
    NOT_MODELLED,
    choice_key,
    choice_rule,
    signed_zero,
    strided_read,
)
from .values import Val, fresh

INT64 = T.np_ty(np.int64)


def phase_choice(run, ac, operand, out, axes, fm, name, node):
    """`out` (a view of the member the phase reduction of `operand` over
    `axes` just made, by the serial rule) with NumPy's zero among ties:
    two phases of `run` (carried_phases.PhaseRun). `out` itself where the
    rule is not modelled (choice_rule)."""
    cx = run.cx
    rule = choice_rule(cx, operand, axes, fm)
    if rule is NOT_MODELLED or out.view is None or out.view[0] not in run.of or \
            (operand.ndim > 1 and _layout_unknown(run, operand)):
        return out
    res = run.of[out.view[0]]
    machine = run.m
    kept = [k for k in range(operand.ndim) if k not in axes]
    kshape = [operand.shape[k] for k in kept]
    key_m = machine.member(name + "_zeros", INT64, kshape, Val(const(NONE), INT64))
    t = operand.ty.ir()
    zero = ir.Const(t, 0.0)
    order = kept + list(axes)
    sizes = [machine.size(s) for s in operand.shape]
    needed = _needed(operand, axes, rule, sizes)

    def full(idx):
        f = [None] * operand.ndim
        for k, i in zip(order, idx):
            f[k] = i
        return f

    def keyed(idx):
        f = full(idx)
        at = [f[k] for k in kept]
        cx.cur_node = node
        key, _ = choice_key(cx, operand, axes, fm, rule, f, sizes)
        return key_m, at, {key_m.index: ir.Max(machine.read(key_m, at), key)}

    def zero_here(idx):
        f = full(idx)
        at = [f[k] for k in kept]
        cx.cur_node = node
        x = element_node(cx, operand.elem(f), operand.ty)
        # (the element read at the phase's own points only: a test of the
        # result first, plain, that lowering/hoist_invariant_if.py can move
        # out of the loop over the reduced axes)
        own = None
        for i, k in zip(idx, order):
            c = ir.LT(i, sizes[k])
            own = c if own is None else ir.And(own, c)
        return ir.And(ir.And(needed, ir.EQ(machine.read(res, at), zero)),
                      lazy(own, ir.EQ(x, zero), ir.Const(ir.Bool(), False)))
    machine.add([operand.shape[k] for k in order], keyed, zero_here)

    def fixed(idx):
        v = machine.read(res, idx)
        return res, idx, {res.index: signed_zero(v, machine.read(key_m, idx), t),
                          key_m.index: const(NONE)}
    machine.add(kshape, fixed, lambda idx: ir.And(needed, ir.EQ(machine.read(res, idx), zero)))
    return out



def _needed(operand, axes, rule, sizes):
    """The condition (read when the loop runs; no memory) under which the
    serial rule may differ from NumPy's: for lines of one axis NumPy reduces
    contiguously (contiguous_key), more elements than its vector's lanes
    (n - 1 < V: no lane, every element in the tail serially: the later for
    max/min, the earlier for fmax/fmin, the serial loop's zero); else
    true. Where it is false the two phases' loops do not run
    (lowering/trim_no_ops.py)."""
    if rule is not None or len(axes) != 1 or operand.ndim == 1 and strided_read(operand, 0):
        return ir.Const(ir.Bool(), True)
    lanes = vector_lanes(operand.ty.dtype.itemsize)
    return ir.LT(ir.index(lanes), sizes[axes[0]])


def _layout_unknown(run, operand) -> bool:
    """Whether operand's elements read a member whose memory layout phase
    mode does not know (a name the loop rebinds, an array the body makes:
    NumPy makes those in their operands' layout, F for F-ordered arguments;
    PhaseRun.layout_known holds the others), as carried_sums.phase_sum
    asks: the layout, and so NumPy's loop, is not known there."""
    machine = run.m
    saved = set(machine.reads)
    machine.reads.clear()
    operand.elem([ir.Variable(ir.INDEX, fresh(f"zero_probe{k}")) for k in range(operand.ndim)])
    made = machine.reads - run.layout_known
    machine.reads |= saved
    return bool(made)
