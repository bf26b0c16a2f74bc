"""Random guarded updates (issue 20 item 1): conditions that mix x-free
guards with comparisons of the partial result, negated forms, `elif`
chains and argmax pairs, over int32 and float64. Where the matcher proves an
operator, the rfactored definitions equal the serial algorithm (reference
evaluator, bit for bit); a refusal is allowed. The seed of each program is
in its test id."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.rfactor_util import same_definitions

N = (6, 7)
SEEDS = range(40)


def _program(seed):
    rng = np.random.default_rng(seed)
    dtype = [np.int32, np.float64][seed % 2]

    def buf(name):
        if dtype == np.int32:
            return ph.Buffer(rng.integers(-3, 4, N[::-1]).astype(np.int32), name)
        v = rng.integers(-3, 4, N[::-1]).astype(np.float64)
        v[rng.random(N[::-1]) < 0.15] = np.nan
        v[rng.random(N[::-1]) < 0.15] = -0.0
        return ph.Buffer(v, name)

    bufs = [buf(n) for n in "abc"]

    def build(schedule):
        r = ph.RDom([(0, N[0]), (0, N[1])], "r")
        a, b, c = (q[r.x, r.y] for q in bufs)
        pick = np.random.default_rng(seed + 1000)
        guards = [b > 0, c < 1, b == c, ~(b > 1), (b > -2) & (c != 0)]
        g1, g2 = (guards[k] for k in pick.choice(len(guards), 2, replace=False))
        kind = pick.integers(0, 5)
        f = ph.Func("f")
        if kind == 4:                      # argmax pair under a guard
            f[()] = (ph.cast(dtype, -1000), ph.cast(np.int32, -1))
            x, k = f[()][0], f[()][1]
            better = [a > x, a >= x][pick.integers(0, 2)]
            cond = g1 & better if pick.integers(0, 2) else better & g1
            f[()] = (ph.select(cond, a, x), ph.select(cond, r.x + N[0] * r.y, k))
        else:
            f[()] = ph.cast(dtype, 0 if pick.integers(0, 2) else 1)
            x = f[()]
            cores = [x + a, ph.max(x, a), ph.select(a < x, a, x), x + 2 * a]
            if dtype == np.int32:
                cores += [x * a, x ^ a]
            core = cores[pick.integers(0, len(cores))]
            if kind == 0:                  # guard and a comparison of x
                f[()] = ph.select(g1 & (a != x) if pick.integers(0, 2) else g1, core, x)
            elif kind == 1:                # two guards around a compare-and-copy
                f[()] = ph.select(g1 & (a > x) & g2, a, x)
            elif kind == 2:                # negated: the no-op in the true branch
                f[()] = ph.select(~g1 | (a <= x), x, a)
            else:                          # an elif chain of one operator
                f[()] = ph.select(g1, x + a, ph.select(g2, x + 3 * a, x))
        if schedule:
            f.update().rfactor(r.y, ph.Var("u")).compute_root()
        return f

    return build


@pytest.mark.parametrize("seed", SEEDS)
def test_random_guarded_update_rfactored_equals_serial(seed):
    build = _program(seed)
    op = ph.prove_associativity(build(False).update())
    if not op.associative:
        with pytest.raises(ph.CompileError):
            build(True)
        return
    try:
        build(True)
    except ph.CompileError as e:          # rfactor's own NaN/sign checks may refuse
        assert "cannot rfactor" in str(e)
        return
    same_definitions(build, [])
