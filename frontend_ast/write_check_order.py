"""The order of the run-time checks of an element assignment `a[i] = v`:
Python evaluates v before it stores, so v's own checks fail first (`b[i] =
a[i] + 1` with i past both arrays raises a's IndexError). The index checks
of the write are put around v (Context.guard), and lowering asserts the
checks of a statement outermost first (lowering/access_checks.py, reads in
post-order); so v's checks are moved outermost, the write's after them.
An augmented assignment's value starts with the element's read, whose check
is the write's (made once: Context.guard), so nothing moves there."""
from __future__ import annotations

from pyhalide import checks, ir

from .values import Val


def value_checks_first(v: Val, plain: ir.Expr) -> Val:
    """v, which is `plain` (the assigned value's node) with the write's
    checks around it, with plain's eager checks outermost."""
    if plain is None or v.node is plain:      # (a value known at call time: no checks)
        return v
    own = checks.eager(plain)
    if not own:
        return v
    (stripped,), found = checks.strip([v.node])
    new = [c for c in found if not any(ir.equal(c, o) for o in own)]
    out = Val(checks.apply(own + new, stripped), v.ty, risky=v.risky, static=v.static,
              const=v.const, facts=v.facts)
    return out.set_range(v.lo, v.hi, v.lbs, v.ubs)
