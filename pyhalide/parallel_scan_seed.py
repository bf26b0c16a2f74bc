"""Seeded scans: an update that reads the value before its first point from
an expression instead of from f.

`f(P, r) = V(select(r == lo, seed, f(P, max(r - 1, lo))))` is the scan
`V(f(P, r - 1))` whose value before the scan is `seed` (free of f and of
r): what the frontend makes of `acc += x[i]; out[i] = acc`, where out is
the scan Func and acc's value before the loop the seed
(frontend_ast/scan_outputs.py). The read at `max(r - 1, lo)` keeps f's
region inside the points the scan writes (the clamped read at lo is the
point's old value, never used).
"""
from __future__ import annotations

from . import ir


def unseed(values, fn, r, lo, prev_args, axis):
    """(values with each seeded read replaced by the plain read of the
    previous point, {value index: seed}), or (values, {}) when there is no
    seeded read; None when the seeds of one value index differ or a seeded
    read sits beside a plain read of the previous point (the first point
    would then read two different values before the scan)."""
    clamped = list(prev_args)
    clamped[axis] = ir.Max(prev_args[axis], lo)
    m = _Unseed(fn, r, lo, tuple(clamped), prev_args)
    out = tuple(m.mutate(v) for v in values)
    if m.conflict or (m.seeds and _reads(values, fn, prev_args)):
        return None
    return out, m.seeds


class _Unseed(ir.Mutator):
    def __init__(self, fn, r, lo, clamped, prev_args):
        super().__init__()
        self.fn, self.r, self.lo = fn, r, lo
        self.clamped, self.prev_args = clamped, prev_args
        self.seeds, self.conflict = {}, False

    def visit_Select(self, s):
        c, read = s.condition, s.false_value
        if isinstance(c, ir.EQ) and _is_var(c.a, self.r) and ir.equal(c.b, self.lo) and \
                _is_call(read, self.fn, self.clamped) and not _mentions(s.true_value, self.fn,
                                                                        self.r):
            k = read.value_index
            old = self.seeds.setdefault(k, s.true_value)
            if old is not s.true_value and not ir.equal(old, s.true_value):
                self.conflict = True
            return ir.Call(read.type, read.name, self.prev_args, ir.FUNC, k, read.func)
        return self.mutate_children(s)


def _is_var(e, name: str) -> bool:
    return isinstance(e, ir.Variable) and e.name == name


def _is_call(e, fn, args) -> bool:
    return isinstance(e, ir.Call) and e.call_type == ir.FUNC and \
        (e.func is fn or e.name == fn.name) and len(e.args) == len(args) and \
        all(ir.equal(a, b) for a, b in zip(e.args, args))


def _mentions(e, fn, r: str) -> bool:
    return r in ir.free_vars(e) or any(c.call_type == ir.FUNC and c.name == fn.name
                                       for c in ir.find_calls(e))


def _reads(values, fn, args) -> bool:
    return any(_is_call(c, fn, args) for c in ir.find_calls(list(values)))


def peel_first(fn, d, scan, index: int) -> bool:
    """Moves a seeded scan's first point out of its update, when the scan is
    f's first update (`index` 1): `<f>_scan_first(P)` computes the update's
    value at lo from the seed (an update over [lo, lo + min(n, 1)), so an
    empty scan reads nothing), f's pure definition is that value at lo
    (`select(x == lo && 0 < n, <f>_scan_first(P), pure)`), and the update
    runs over [lo + 1, lo + n) reading the previous point plainly: the form
    of a Func-API scan (`f[x] = ...; f[r] = V(f[r - 1])`, r from 1), whose
    chunks read the previous point without a clamp (the clamp `max(r - 1,
    lo)` of the seeded read kept the running value out of a register: 2x
    slower). False (nothing changed) when the update reads f elsewhere than
    at the previous point, or the scan is not f's first update."""
    import dataclasses

    from .checks import apply as apply_checks
    from .parallel_scan import func_call
    from .parallel_scan_phases import define_update, new_func, pure_zero, scan_rdom
    if index != 1 or not scan.seeds:
        return False
    reads = [c for c in ir.find_calls(list(scan.values))
             if c.call_type == ir.FUNC and (c.func is fn or c.name == fn.name)]
    if not reads or not all(_is_call(c, fn, scan.prev_args) for c in reads):
        return False
    lo, n = scan.rv.min, scan.rv.extent
    one = ir.index(1)
    pargs = tuple(a for k, a in enumerate(fn.args) if k != scan.axis)
    first = new_func(f"{fn.name}_scan_first", pargs, fn.output_types, d.source)
    pure_zero(first, d.source, "")
    r0_rv, r0 = scan_rdom(f"{fn.name}_scan_r0", lo, ir.Min(ir.Max(n, ir.index(0)), one),
                      f"{fn.name}_scan_first$r0")
    seeded = _First(fn, scan.prev_args, scan.seeds)
    values = [ir.substitute(apply_checks(scan.checks, seeded.mutate(v)), {scan.rname: r0})
              for v in scan.values]
    lhs = tuple(a for k, a in enumerate(scan.lhs) if k != scan.axis)
    define_update(first, lhs, values, r0_rv, [], [], [ir.Dim(a) for a in pargs], d.source)
    first.compute_root()
    ffn = first.function()
    at = tuple(ir.Variable(ir.INDEX, a) for a in pargs)
    x = ir.Variable(ir.INDEX, fn.args[scan.axis])
    here = ir.And(ir.EQ(x, lo), ir.LT(ir.index(0), n))
    fn.pure = dataclasses.replace(fn.pure, values=tuple(
        ir.Select(here, func_call(ffn, at, i), p) for i, p in enumerate(fn.pure.values)))
    rvars = [ir.ReductionVariable(rv.name, ir.Add(lo, one), ir.Sub(n, one))
             if rv.name == scan.rname else rv for rv in d.schedule.rvars]
    sched = dataclasses.replace(d.schedule, rvars=rvars)
    values = tuple(apply_checks(scan.checks, v) for v in scan.values)
    fn.updates[index - 1] = dataclasses.replace(d, values=values, schedule=sched)
    return True


class _First(ir.Mutator):
    """Reads of f at the previous point replaced by the seeds."""

    def __init__(self, fn, prev_args, seeds):
        super().__init__()
        self.fn, self.prev_args, self.seeds = fn, prev_args, seeds

    def visit_Call(self, c):
        if _is_call(c, self.fn, self.prev_args):
            return self.seeds[c.value_index]
        return self.mutate_children(c)
