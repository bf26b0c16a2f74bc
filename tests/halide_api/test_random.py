"""hl.random_float / random_int / random_uint: Halide 21's hash of the call
counter, the definition counter and the free variables. Compiled code is
compared with the reference evaluator, a plain-Python model of Random.cpp, and
the values the Halide 21.0.0 wheel printed for the same program in a fresh
process (both counters start at 0 there; the test restarts them)."""
import itertools

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import halide_random
from tests.core.jitcheck import check

M = 2 ** 32


def _rng32(x):
    return ((1040796640 * x + 1121052041) * x + 576942909) % M


def _hash(args):
    r = _rng32(args[0] % M)
    for a in args[1:]:
        r = _rng32((r + a) % M)
    return r ^ (r >> 16)


def _as_int32(u):
    return u - M if u >= 2 ** 31 else u


@pytest.fixture
def fresh_counters(monkeypatch):
    monkeypatch.setattr(halide_random, "_calls", itertools.count())
    monkeypatch.setattr(halide_random, "_definitions", itertools.count())


def test_values_equal_halide_21(fresh_counters):
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("rand_f")
    f[x, y] = ph.random_float()                      # call 0, definition 0
    g = ph.Func("rand_g")
    g[x] = ph.random_int(x * 3)                      # call 1, definition 1
    h = ph.Func("rand_h")
    h[x] = 0                                         # definition 2
    h[x] += ph.random_uint() % 7                     # call 2, definition 3
    assert type(ph.random_int(x)) is ph.Expr         # call 3 (unused)
    got_f = check(f, [3, 2])[0]
    np.testing.assert_array_equal(got_f, np.array(
        [[0.7811659574508667, 0.7098022699356079, 0.12307953834533691],
         [0.43948423862457275, 0.06147778034210205, 0.16812241077423096]], np.float32))
    # [call id, definition tag, free variables last to first]
    model = [[(_hash([0, 0, yy, xx]) >> 9) * 2.0 ** -23 for xx in range(3)] for yy in range(2)]
    np.testing.assert_array_equal(got_f, np.array(model, np.float32))
    got_g = check(g, [4])[0]
    assert got_g.tolist() == [-1992914088, -1949800142, 147148803, -1217928011]
    assert got_g.tolist() == [_as_int32(_hash([3 * i, 1, 1, i])) for i in range(4)]
    got_h = check(h, [3])[0]
    assert got_h.tolist() == [2, 1, 2] == [_hash([2, 3, i]) % 7 for i in range(3)]


def test_random_in_an_update_over_an_rdom(fresh_counters):
    x = ph.Var("x")
    r = ph.RDom([(0, 4)], "r")
    f = ph.Func("rand_sum")
    f[x] = 0.0                                        # definition 0
    f[x] += ph.random_float(r.x)                      # call 0 (seed r.x), definition 1
    got = check(f, [3])[0]
    # free variables: x, then r.x; the seed first
    want = [sum(np.float32((_hash([k, 0, 1, k, i]) >> 9) * 2.0 ** -23) for k in range(4))
            for i in range(3)]
    np.testing.assert_allclose(got, np.array(want, np.float32), rtol=1e-6)
    np.testing.assert_array_equal(got, np.array(       # the Halide 21 wheel's
        [1.9584192037582397, 2.2859082221984863, 2.55203914642334], np.float32))


def test_seed_type_is_checked():
    with pytest.raises(TypeError, match="Int\\(32\\)"):
        ph.random_float(ph.Expr(1.5))
