"""Whether a loop whose bounds depend on enclosing loops' variables can have
an iteration in this call (`for j in range(i)` inside `for i in range(m)`
runs nothing with m = 1): the call-time gate of its body's checks
(Context.loops_run_at_call)."""
from __future__ import annotations

from .ranges import Aff


def runs_somewhere(loop, outer, sym_static):
    """fn(StaticEnv) -> bool: whether range(loop.start, loop.stop,
    loop.step) is not empty for some values of the enclosing loops'
    variables in their ranges (outer: the enclosing Loops with call-time
    bounds; sym_static: argument symbol -> its call-time value). False
    means the body runs in no iteration; None where a bound is neither
    known at call time nor an affine form over those symbols."""
    by_sym = {l.sym: l for l in outer}
    known = by_sym.keys() | sym_static.keys()
    parts = [_form(loop.stop, known), _form(loop.start, known)]
    if None in parts:
        return None
    (a, fa), (b, fb) = parts if loop.step > 0 else parts[::-1]
    d = a - b       # the bounds' difference (stop - start, or start - stop)
    if not d.terms and fa is None and fb is None:
        # (the bounds' ranges are points: `range(2 * i - 1)` with i in [0, 0])
        return None if d.c > 0 else _never

    def test(env) -> bool:
        most = d.c + (fa(env) if fa else 0) - (fb(env) if fb else 0)
        for s, k in d.terms.items():
            if s not in by_sym:
                most += k * sym_static[s](env)
                continue
            l = by_sym[s]
            r = range(l.start.static(env), l.stop.static(env), l.step)
            if len(r) == 0:
                return False
            most += k * (max(r[0], r[-1]) if k > 0 else min(r[0], r[-1]))
        return most > 0
    return test


def _form(v, known):
    """(Aff, fn or None): bound v as an affine form over the symbols in
    known (one of its lower bounds that is also an upper bound: its value),
    or (0, v's call-time function); None where it is neither."""
    for a in v.lbs:
        if a in v.ubs and all(s in known for s in a.terms):
            return a, None
    if v.is_static:
        return Aff.const(0), v.static
    return None


def _never(env) -> bool:
    return False
