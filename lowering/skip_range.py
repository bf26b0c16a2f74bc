"""A pure definition that skips a range of one of its Vars: the predicate
`x < lo || hi < x` (parallel_scan gives it to f's pure definition, whose
values at the points its scan overwrites are never read) becomes, at the
loop over x, two loops around the range instead of a test per point."""
from __future__ import annotations

from pyhalide import ir


def skip_ranges(preds: list, loop_vars: set) -> tuple:
    """({loop variable: (lo, hi)}, the other predicates) for the predicates
    `v < lo || hi < v` over a loop variable v of the stage."""
    skips, rest = {}, []
    for p in preds:
        got = _skip(p)
        if got is not None and got[0] in loop_vars and got[0] not in skips:
            skips[got[0]] = got[1:]
        else:
            rest.append(p)
    return skips, rest


def _skip(p):
    if not (isinstance(p, ir.Or) and isinstance(p.a, ir.LT) and isinstance(p.b, ir.LT)):
        return None
    v, w = p.a.a, p.b.b
    if not (isinstance(v, ir.Variable) and isinstance(w, ir.Variable) and v.name == w.name):
        return None
    if v.name in ir.free_vars(p.a.b) or v.name in ir.free_vars(p.b.a):
        return None
    return v.name, p.a.b, p.b.a


def around(loop: ir.For, lo: ir.Expr, hi: ir.Expr) -> ir.Stmt:
    """The loop over [min, lo) and over (hi, end), its body unchanged."""
    zero = ir.index(0)
    end = ir.Add(loop.min, loop.extent)
    below = ir.Max(ir.Sub(ir.Min(lo, end), loop.min), zero)
    start = ir.Max(ir.Add(hi, ir.index(1)), loop.min)
    above = ir.Max(ir.Sub(end, start), zero)
    return ir.block(ir.For(loop.name, loop.min, below, loop.kind, loop.body),
                    ir.For(loop.name, start, above, loop.kind, loop.body))
