"""The sign of a float identity 0.

The tables prove operators over values without signed zeros, so a float sum's
identity is stored as 0.0; but +0.0 is no identity of IEEE addition:
`+0.0 + -0.0` is +0.0, so a partial result started from +0.0 turns a sum of
negative zeros (Python: -0.0) into +0.0. `signed_zero_identities` gives each
float slot whose identity is a zero the sign that keeps both zeros on the
sides the operator has an identity (for `x + y`: -0.0)."""
from __future__ import annotations

import numpy as np

from pyhalide import ir

from .npeval import evaluate


def signed_zero_identities(ops, ids, types, side: str) -> list:
    """`ids` with each float zero identity given the sign that keeps +0.0
    and -0.0 bit for bit under `ops` (ops over x<i>, y<i>; `side`: which
    identities the operator has: both, left, right or none)."""
    out = list(ids)
    for g, (e, t) in enumerate(zip(ids, types)):
        if not (t.is_float() and isinstance(e, ir.Const) and e.value == 0):
            continue
        for sign in (-0.0, 0.0):
            if _keeps_zeros(ops, out, types, g, sign, side):
                out[g] = ir.Const(t, sign)
                break
    return out


def _keeps_zeros(ops, ids, types, g, e, side) -> bool:
    dt = types[g].to_numpy()
    base = {}
    for j, (i, t) in enumerate(zip(ids, types)):
        if not isinstance(i, ir.Const):
            return False
        base[f"x{j}"] = base[f"y{j}"] = np.array(i.value, t.to_numpy())
    if set(ir.free_vars(ops[g])) - set(base):
        return False                # an operator with constants bound at the update
    checks = []
    for z in (0.0, -0.0):
        if side in ("both", "right"):        # op(x, e) == x
            checks.append(({f"x{g}": z, f"y{g}": e}, z))
        if side in ("both", "left"):         # op(e, y) == y
            checks.append(({f"x{g}": e, f"y{g}": z}, z))
    for binding, want in checks:
        env = dict(base)
        env.update({k: np.array(v, dt) for k, v in binding.items()})
        got = np.asarray(evaluate(ops[g], env, exact_floats=False), dt)
        if not (got == want and np.signbit(got) == np.signbit(np.array(want, dt))):
            return False
    return bool(checks)
