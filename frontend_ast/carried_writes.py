"""A store into a complex array in phase mode (carried_phases.py): the
array is carried as two float members, its parts (PhaseRun.of maps each
part Arr to its member). The value is computed once per point and both
parts are written by ONE phase, so that a part's value never sees the
other part already written (a phase's point reads STATE before it writes
it); where the value reads the array it is stored into, both parts go
through two scratch members first (NumPy evaluates the right side before
storing), as PhaseRun.write does for a real array."""
from __future__ import annotations

from pyhalide import ir

from . import complex_values as C
from . import ops
from .array_index import guard
from .arrayexpr import element_node
from .values import fresh

WHAT = "in a loop that carries arrays from one iteration to the next"


def stored(cx, v, ty) -> ir.Expr:
    """The node of v stored into a member of type ty (a Python int's
    constant node widened to the member's type)."""
    n = element_node(cx, v, ty)
    return n if n.type == ty.ir() else ir.Cast(ty.ir(), n)


def lazy(cond, a, b) -> ir.Expr:
    """a where cond holds, else b, evaluating only the one chosen: a
    phase's value runs its run-time checks (an index, a division, an
    overflow) only at the phase's own points, as Python runs them."""
    return ir.Call(a.type, "if_then_else", (cond, a, b), ir.INTRINSIC)


def write_complex(run, dest, value, node):
    """`dest = value(p)` for a complex dest.arr whose parts are members of
    run (a carried_phases.PhaseRun)."""
    cx, machine = run.cx, run.m
    arr = dest.arr
    if dest.pred is not None:
        raise cx.err(node, f"a masked store into a complex array is not supported yet {WHAT}",
                     hint="write the parts (z.real[mask] = ..., z.imag[mask] = ...)")
    ms = [run.of[part] for part in arr.parts()]
    p = [ir.Variable(ir.INDEX, fresh(f"region{k}")) for k in range(len(dest.shape))]
    at, checks = dest.place(p)
    machine.reads.clear()
    cx.cur_node = node
    v = guard(cx, ops.cast_to(cx, value(p), arr.ty), checks)
    vals = [stored(cx, part, m.ty) for part, m in zip(C.parts(cx, v, arr.ty), ms)]
    names = [q.name for q in p]
    cond = run.condition()

    def sub(n, idx):
        return ir.substitute(n, dict(zip(names, idx)))
    if any(m.index in machine.reads for m in ms):
        tmps = [machine.member(arr.name, m.ty, dest.shape) for m in ms]
        tv = [n if cond is None else lazy(cond, n, ir.Const(n.type, 0)) for n in vals]
        machine.add(dest.shape, lambda idx: (tmps[0], idx, {
            t.index: sub(n, idx) for t, n in zip(tmps, tv)}))
        vals = [machine.read(t, p) for t in tmps]
    if cond is not None:
        # under an `if`: where its test fails, the element keeps its value
        vals = [lazy(cond, n, machine.read(m, at)) for n, m in zip(vals, ms)]
    machine.add(dest.shape, lambda idx: (ms[0], [sub(a, idx) for a in at], {
        m.index: sub(n, idx) for m, n in zip(ms, vals)}))
    run.written.update(arr.parts())
