"""A loop whose computed bounds leave 32 bits where its range is empty.

`for j in range(i + lo, max(i + lo, 2 - i))` with lo = 2**40: both bounds
are computed in the nest, and the call-time check that they fit int32
(loops.certified_bound, context.require) fails although Python's range is
empty at every outer iteration. `empty_or_fits` replaces the checks that
building the bounds added by one that passes where the range is empty for
every value of the enclosing loops (affine forms of the bounds, expanded
over the loops' bounds into argument symbols, checked at call time) and
otherwise runs them as before; the bounds given to the loop are clamped to
int32 (in their own type, before the cast), which keeps every range that
is empty empty and changes no range whose bounds fit. loops.py applies it
only to innermost loops of step 1 or -1 whose bounds are both computed in
the nest: a clamped bound of a loop with nested loops, or of a step-2 loop
(emit.relative_rdom), reaches the hulls of inner ranges and reads, whose
index arithmetic then spans int32 (a false OverflowError where the
unclamped bound passed its checks). On a kernel it does not change it costs
nothing; where it applies, one min and one max per bound and per outer
iteration, and at call time one more affine check.
"""
from __future__ import annotations

from pyhalide import ir

from .loop_bounds import BoundCheck, affine_bounds
from .ranges import INT32, INT64


class EmptyOrFits:
    """At call time: nothing where `empty` holds (the range is empty at
    every outer iteration), else each of `checks`."""

    def __init__(self, empty: BoundCheck, checks: list):
        self.empty, self.checks = empty, checks

    def __call__(self, env):
        if self.empty.holds(env):
            return
        for c in self.checks:
            c(env)


def _parts(node, cls):
    """The operands of a nest of `cls` (ir.Max or ir.Min) nodes."""
    if isinstance(node, cls):
        return _parts(node.a, cls) + _parts(node.b, cls)
    return [node]


def _static(cx, affs, upper: bool) -> list:
    """The Affs expanded over the enclosing loops' bounds into argument
    symbols (upper or lower bounds)."""
    return [c for a in affs for c in cx.syms.expand(a, upper)
            if all(s in cx.sym_static for s in c.terms)]


def _forms(cx, node, sym_of, upper: bool, reqs: list):
    """node's upper (lower) affine forms; the call-time requirements that
    make them exact (no subexpression wraps in its type) added to reqs.
    None where some requirement has no form over argument symbols."""
    found = affine_bounds(node, sym_of, INT64[0], INT64[1])
    if found is None:
        return None
    lbs, ubs, constraints = found
    for ls, us, lo, hi in constraints:
        lows, highs = _static(cx, ls, False), _static(cx, us, True)
        if not lows or not highs:
            return None
        reqs += [(lows, lo, None), (highs, None, hi)]
    return ubs if upper else lbs


def _requirements(cx, low, high, sym_of):
    """Call-time requirements that low >= high for every value of the
    enclosing loops: for each operand of a max in `high` (a min in `low`),
    some lower form of low minus upper form of high is >= 0; and the
    requirements that make those forms exact."""
    reqs = []
    for lo_part in _parts(low, ir.Min):
        for hi_part in _parts(high, ir.Max):
            lbs = _forms(cx, lo_part, sym_of, False, reqs)
            ubs = _forms(cx, hi_part, sym_of, True, reqs)
            cands = _static(cx, [a - b for a in lbs or [] for b in ubs or []], False)
            if not cands:
                return None
            reqs.append((cands, 0, None))
    return reqs


def _clamped(node):
    """node clamped to int32 (unchanged if its type holds only int32 values)."""
    t = node.type
    if t.min_value() >= INT32[0] and t.max_value() <= INT32[1]:
        return node
    return ir.Min(ir.Max(node, ir.Const(t, INT32[0])), ir.Const(t, INT32[1]))


def empty_or_fits(cx, sym_of, start, stop, k: int, mark: int, line: int):
    """(start node, stop node) clamped to int32, with the call-time checks
    added since `mark` (all BoundChecks) made to pass where the range
    start..stop (step k) is empty at every outer iteration; None (nothing
    changed) where there are none or that emptiness has no affine form."""
    checks = cx.static_checks
    added = list(checks[mark:])
    if not added or not all(isinstance(c, BoundCheck) for c in added):
        return None
    reqs = _requirements(cx, start, stop, sym_of) if k > 0 else \
        _requirements(cx, stop, start, sym_of)
    if reqs is None:
        return None
    locs = checks.locs[mark:]
    del checks[mark:]
    del checks.locs[mark:]
    list.append(checks, EmptyOrFits(BoundCheck(reqs, cx.sym_static, line), added))
    checks.locs.append(locs[0])
    return _clamped(start), _clamped(stop)


def unclamped(node):
    """node without the int32 clamp that empty_or_fits puts on a bound (the
    hull of a loop's range is that of its bound: the clamp changes a value
    only where the range is empty)."""
    if isinstance(node, ir.Min) and isinstance(node.a, ir.Max) and \
            _is_const(node.b, INT32[1]) and _is_const(node.a.b, INT32[0]):
        return node.a.a
    return node


def _is_const(e, v) -> bool:
    return isinstance(e, ir.Const) and e.value == v
