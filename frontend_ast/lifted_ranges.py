"""Run-time checks inside array code lifted over loops (lifted.py) made to
pass outside the iterations the loops run. A lifted Func is computed over
the bounding box of the iterations that read it, which is wider than the
loops' iteration space where an inner loop's range depends on an outer
loop's variable: in

    for i in range(M):
        for k in range(M - i):
            cov[i, i + k] = data[:, i] @ data[:, i + k]

the dot is a Func over (k, i) realized for k and i in [0, M - 1], so the
check of `data[:, i + k]` saw column 2M - 2 where Python reads only the
triangle k < M - i (a false IndexError). Each check read whose condition
reads a loop's placeholder, `img(likely(select(ok, 0, bad)))`, becomes
`img(likely(select(ok || !in_range, 0, bad)))`, where `in_range` is the
conjunction of the loops' `start <= v < stop` (`stop < v <= start` for a
negative step; `(v - start) % step == 0` for a step other than +-1), of the
loops whose bounds read an enclosing loop's variable (the others add no
term: their dimension of the box is their range, as before this pass, and
a gate costs: the dot over a triangle runs ~2.4x slower with it); a loop
whose variable `ok` does not read gives `start < stop` instead (its range
is not empty: invariant in its variable). Every iteration the loops run
satisfies each term, so no check Python makes is lost.
A bound that cannot be read by the lifted Func (it reads a scalar a loop
carries, or an array the nest writes) or that holds a check of its own is
left out of the conjunction (a wider gate: a false error, never a lost
one)."""
from __future__ import annotations

from pyhalide import ir
from pyhalide.ir.mutator import Mutator

from .errors import CompileError
from .lifted_checks import check_select, passing_where_not
from .values import node_of

_I64 = ir.Int(64)


def gate_loop_ranges(cx, nodes, loops, check):
    """nodes with each check read whose condition reads a loop's
    placeholder passing outside the loops' ranges (`loops`: the enclosing
    values.Loop objects; `check(nodes)`: the lifted Func's check of what
    it may read, raising CompileError)."""
    if cx.typing or not cx.check_images or not loops:
        return nodes
    named = cx.check_named
    if not any(c.name in named for c in ir.find_calls(list(nodes))):
        return nodes
    syms = {l.sym for l in loops}
    terms = {}
    for loop in loops:
        t = _in_range(cx, loop, check, named, syms)
        if t is not None:
            terms[loop.sym] = t
    if not terms:
        return nodes
    m = _Gate(terms, frozenset(syms), named)
    return [m.mutate(n) for n in nodes]


def _in_range(cx, loop, check, named, syms):
    """(`loop.var` in the loop's range, the range not empty) as bool
    nodes, or None where a bound cannot be read here or neither bound
    reads another loop's variable (`syms`: the loops' symbols; the
    bounding box then spans that range only, as without this pass)."""
    try:
        start, stop = node_of(cx, loop.start), node_of(cx, loop.stop)
    except Exception:       # noqa: BLE001 (a union or an unknown value: no term)
        return None
    if syms.isdisjoint(ir.free_vars([start, stop])):
        return None
    for b in (start, stop):
        if not (b.type.is_int() or b.type.is_uint() or b.type.is_bool()) or \
                any(c.name in named for c in ir.find_calls(b)):
            return None
    try:
        check([start, stop])
    except CompileError:
        return None
    v, lo, hi = _wide(loop.var), _wide(start), _wide(stop)
    k = loop.step
    if k > 0:
        out, some = ir.And(ir.LE(lo, v), ir.LT(v, hi)), ir.LT(lo, hi)
    else:
        out, some = ir.And(ir.LT(hi, v), ir.LE(v, lo)), ir.LT(hi, lo)
    if abs(k) != 1:
        # (v - start) is within +-2**33: no int64 wrap
        rem = ir.Mod(ir.Sub(v, lo), ir.const(_I64, abs(k)))
        out = ir.And(out, ir.EQ(rem, ir.const(_I64, 0)))
    return out, some


def _wide(n):
    return n if n.type == _I64 else ir.Cast(_I64, n)


class _Gate(Mutator):
    """A check read `img(likely(select(ok, 0, bad)))` whose `ok` reads a
    loop's placeholder made `img(likely(select(ok || !in_range, 0, bad)))`:
    `in_range` holds the membership terms of the loops whose placeholder
    `ok` reads, and for the others that their range is not empty (true at
    every iteration Python runs, and free of the loop's variable: a check
    of `data[:, i]` inside `for k in range(M - i)` stays invariant in k).
    `terms`: loop symbol -> (membership, not empty)."""

    def __init__(self, terms, placeholders, named):
        super().__init__()
        self.terms, self.placeholders, self.named = terms, placeholders, named

    def visit_Call(self, e):
        e = self.mutate_children(e)
        sel = check_select(e) if e.name in self.named else None
        if sel is None:
            return e
        read = set(ir.free_vars([sel.condition]))
        if self.placeholders.isdisjoint(read):
            return e
        in_range = ir.conjunction([t[0] if s in read else t[1] for s, t in self.terms.items()])
        return passing_where_not(e, sel, in_range)
