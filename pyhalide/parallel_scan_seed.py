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
