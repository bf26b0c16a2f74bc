"""The state Func of a loop that carries several argument arrays names and
orders them as the function's arguments do, not as a set of arrays happens
to iterate (which differed from process to process: the auto schedule's
source, the kernel fingerprint and so the disk cache with it)."""
import re

import numpy as np

import pyhalide as ph


def step_uv(u, v, n):
    for _ in range(n):
        u[1:-1] = u[1:-1] + 0.5 * v[:-2]
        v[1:-1] = v[1:-1] - 0.25 * u[2:]
    return u[0] + v[0]


def step_vu(v, u, n):
    for _ in range(n):
        u[1:-1] = u[1:-1] + 0.5 * v[:-2]
        v[1:-1] = v[1:-1] - 0.25 * u[2:]
    return u[0] + v[0]


def _state_names(p):
    """The state Funcs' names, without the `$N` that makes a name unique in
    the process (another test may have made the same name before)."""
    names = [re.sub(r"\$\d+$", "", k) for k in p.funcs]
    return [k for k in names if k.endswith("_steps")]


def test_state_follows_argument_order():
    rng = np.random.default_rng(7)
    u0, v0 = rng.standard_normal(50), rng.standard_normal(50)
    for fn, first, names in ((step_uv, True, ["u_v_steps"]), (step_vu, False, ["v_u_steps"])):
        p = ph.pipeline(fn, schedule="auto")
        wu, wv, gu, gv = u0.copy(), v0.copy(), u0.copy(), v0.copy()
        want = fn(wu, wv, 6) if first else fn(wv, wu, 6)
        got = p(gu, gv, 6) if first else p(gv, gu, 6)
        assert got == want
        assert gu.tobytes() == wu.tobytes() and gv.tobytes() == wv.tobytes()
        assert _state_names(p) == names
