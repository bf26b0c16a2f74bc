"""Run-time checks in a loop's bounds, made to raise only where Python
evaluates the bounds.

A compiled loop's bounds are computed where its definition's loop nest
starts (the RDom's extents), outside the `if`s that enclose the `for`
statement in Python. A check inside a bound (`range(n // s)`: s == 0;
a count past 2**31 - 1) would then raise where Python never reaches the
loop:

    if s != 0:
        for j in range(a.shape[0] // s):     # Python: no division when s == 0

`reached_only` makes each such check pass where an enclosing condition
(Context.assumed) fails: the index of its check image read becomes
`select(ok || !reached, 0, bad)`. The bound's value there is computed all
the same (integer division by zero gives 0 in compiled code, never a trap)
and does not matter: the body runs under those conditions.

The conditions are evaluated with the bound, so they must be computable
there, from arguments, sizes and loop variables. Under a condition that
reads array contents or a value computed in a loop (`if a[i] > 0:`,
`if s > 0:` after a loop summing s) the bound's checks leave the bound
and are computed where the `for` statement runs, under the conditions of
the enclosing `if`s, as an unused assignment's are (`sink`,
Builder.sink_bound_checks): outside loops a scalar output of their own
(Builder.sinks), inside loops a hidden 0-d array written at every
iteration (check_order.LoopSinks' way). The bound itself is then computed
without them (what it is where a check fails does not matter: the call
raises)."""
from __future__ import annotations

import dataclasses

import numpy as np

from pyhalide import checks, ir
from pyhalide.checks import is_check_read

from . import ops
from .types import np_ty
from .unions import lazy_alternative
from .values import Arr, Val


def reached_only(cx, v: Val, sink=None) -> Val:
    """v (a loop bound), its run-time checks passing where the conditions
    enclosing the loop fail. Under a condition that reads data, v without
    its checks, which `sink(Val)` computes where the loop statement runs
    (unchanged without `sink`)."""
    if not v.risky or v.node is None:
        return v
    reached = reached_condition(cx)
    if reached is None:
        return v
    if reads_data(cx, reached):
        if sink is None:
            return v
        # typing runs make the same writes as the compiling run (no checks)
        (node,), found = checks.strip([v.node]) if not cx.typing else ((v.node,), [])
        sink(_checks_value(found))
        # still risky: its node, not its call-time value, is the bound (index_param)
        out = Val(node, v.ty, risky=True, static=v.static, const=v.const, facts=v.facts)
        return out.set_range(v.lo, v.hi, v.lbs, v.ubs)
    if cx.typing or not any(is_check_read(c) for c in ir.find_calls(v.node)):
        return v
    node = _PassUnreached(reached).mutate(v.node)
    out = Val(node, v.ty, risky=True, static=v.static, const=v.const, facts=v.facts)
    return out.set_range(v.lo, v.hi, v.lbs, v.ubs)


def _checks_value(found) -> Val:
    """A uint8 zero that raises where any of the checks `found` fails."""
    return Val(checks.apply(found, ir.Const(ir.UInt(8), 0)), np_ty(np.dtype(np.uint8)),
               risky=True)


def reads_data(cx, n) -> bool:
    """Whether node n reads array contents or a value computed in a loop
    (anything but arguments, sizes, loop variables and check images)."""
    return any(not is_check_read(c) and c.call_type != ir.INTRINSIC for c in ir.find_calls(n)) \
        or any(var.kind == "" and name not in cx.syms.loops
               for name, var in ir.free_vars(n).items())


def reached_condition(cx):
    """The conjunction of the conditions enclosing the code being
    evaluated, as an IR bool node (None: always reached)."""
    terms = []
    for c, when in cx.assumed:
        if c is None:
            continue
        t = ops.truth(cx, c)
        if t.is_const:
            if bool(t.const) != when:
                return ir.Const(ir.Bool(), False)
            continue
        terms.append(t.node if when else ir.Not(t.node))
    if not terms:
        return None
    out = terms[0]
    for t in terms[1:]:
        out = ir.And(out, t)
    return out


class _PassUnreached(ir.Mutator):
    """Check image reads whose index is 0 (passing) where `reached` is false."""

    def __init__(self, reached):
        super().__init__()
        self.reached = reached

    def visit_Call(self, e):
        if not is_check_read(e):
            return self.mutate_children(e)
        (idx,) = e.args
        inner = idx.args[0] if isinstance(idx, ir.Call) and idx.name == "likely" else idx
        passed = ir.Select(self.reached, inner, ir.Const(inner.type, 0))
        if inner is not idx:
            passed = ir.Call(idx.type, "likely", (passed,), ir.INTRINSIC)
        return dataclasses.replace(e, args=(passed,))


def sink(b, node, v: Val):
    """Compute v (the checks of loop `node`'s bounds) where Python
    evaluates the bounds, in the interpreter b (builder.Builder): inside
    loops stored at every iteration into a hidden 0-d array (one per loop
    statement, check_order.LoopSinks' way), outside loops an unreturned
    scalar output under the enclosing conditions (Builder.sinks)."""
    if b.state.loops:
        store = vars(b).setdefault("_bound_sinks", {})
        arr = store.get(id(node))
        if arr is None:
            arr = store[id(node)] = Arr("loop_bound_checks", v.ty, [], "local",
                                        b.cx.smap.loc(node))
        b.arrays.write(arr, [], v, node)
        frame = b.state.frames[-1] if b.state.frames else None
        if frame is not None and not frame.top:
            # emitted before the loop, as the statements before it are
            b.defs.flush_frame(frame, partial=True)
    elif not b.cx.typing:
        b.sinks.append(lazy_alternative(b.scope.current_condition(), v))
