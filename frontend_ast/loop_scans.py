"""The positions of a scan: a group of scalars whose running value other
definitions read inside the loops that carry it has one value per
iteration of its loop chain (loop_state.Group.scan).

The group's Func has one dimension per chain loop (innermost first, as
Halide orders dimensions), then its enclosing loops'. Position
(v_0, ..., v_{n-1}) holds the state after that iteration of the nest; a
position outside the loops' ranges holds the initial value (the pure
definition). The members are assigned only in the innermost loop's body,
so with loop bounds that do not depend on each other (a rectangular nest):

- the state at the start of the current iteration of chain loop d is
  S(d) = g(v_0, ..., v_d - s_d, last_{d+1}, ..., last_{n-1}) where v_d is
  not loop d's first value, else S(d - 1); S(0) reads before the first
  outer iteration (the initial value) at v_0's first value;
- after chain loop d (d >= 1) ends inside an iteration of loop d - 1, the
  state is g(v_0, ..., v_{d-1}, last_d, ..., last_{n-1}). When a chain loop
  is empty it is empty for every outer iteration: no update ever runs, and
  last_k = start_k - s_k reads the initial value.
"""
from __future__ import annotations

from pyhalide import ir
from pyhalide.expr import Expr

from . import ops


def chain_loops(state, g) -> list:
    """The Loops of g's chain, outermost first (the latest made for each
    header: inner loops not running yet come from the nest's typing runs,
    whose bound nodes are the same)."""
    return [state.headers[id(n)] for n in g.chain_nodes]


def rectangular(state, g) -> bool:
    """Whether no bound of a chain loop depends on another chain loop."""
    return state.ran_condition_known(g)


def last_value(cx, l) -> ir.Expr:
    """The loop variable's last value (start - step for an empty loop)."""
    start = ops.cast(ir.INDEX, ops.node_of(cx, l.start))
    stop = ops.cast(ir.INDEX, ops.node_of(cx, l.stop))
    if l.step == 1:
        return ir.Sub(ir.Max(stop, start), ir.index(1))
    s = abs(l.step)
    span = ir.Sub(stop, start) if l.step > 0 else ir.Sub(start, stop)
    trip = ir.Max(ir.Div(ir.Add(span, ir.index(s - 1)), ir.index(s)), ir.index(0))
    return ir.Add(start, ir.Mul(ir.index(l.step), ir.Sub(trip, ir.index(1))))


def _at(g, positions, k) -> ir.Expr:
    """Member k of g at chain positions (outermost first) and the current
    iteration of the enclosing loops."""
    args = [Expr.wrap(p) for p in reversed(positions)] + \
        [Expr.wrap(l.var) for l in reversed(g.ctx)]
    ref = g.func[tuple(args)]
    return ref[k].node if len(g.names) > 1 else ref.node


def state_at_start(cx, state, g, depth: int, k: int) -> ir.Expr:
    """Member k at the start of the running iteration of chain loop `depth`."""
    loops = chain_loops(state, g)
    lasts = [last_value(cx, l) for l in loops]
    out = None
    for d in range(depth + 1):
        l = loops[d]
        prev = [x.var for x in loops[:d]] + [ir.Sub(l.var, ir.index(l.step))] + lasts[d + 1:]
        here = _at(g, prev, k)
        if out is None:
            out = here
        else:
            start = ops.cast(ir.INDEX, ops.node_of(cx, l.start))
            out = ir.Select(ir.NE(l.var, start), here, out)
    return out


def state_after(cx, state, g, depth: int, k: int) -> ir.Expr:
    """Member k after chain loop `depth` ran (inside the running iteration
    of the loop enclosing it; depth 0: after the whole nest)."""
    loops = chain_loops(state, g)
    return _at(g, [x.var for x in loops[:depth]] +
               [last_value(cx, l) for l in loops[depth:]], k)


def scan_key(g, mapping) -> list:
    """The update's chain positions in the key (innermost first)."""
    return [Expr.wrap(ir.substitute(l.var, mapping)) for l in reversed(g.chain)]
