"""The synthesis time targets of issue 20, in CPU time (minimum of three
runs; z3 runs in this process; scaled by the load average per core when
that exceeds 1, for what sharing a core costs beyond CPU time): a
synthesized single-element operator <= 500 ms, a 4-element polynomial one
<= 1 s, a 3-word carry chain <= 1 s (tables/wide_words.py), a refusal <= 2 s
(the default bound), a cache hit <= 5 ms; and the identity search beyond
the candidate constants."""
import os
import time

import pytest

from pyhalide import ir
from pyhalide.ir.config import override
from pyhalide.tables import synth, synth_cache
from pyhalide.tables.match_canon import self_var

I32, U8, U32 = ir.Int(32), ir.UInt(8), ir.UInt(32)


def _var(t, name):
    return ir.Variable(t, name)


def _saturating_add():
    x, a = self_var(U8, 0), _var(U8, "a")
    top = ir.Const(U8, 255)
    return [ir.Select(ir.LT(ir.Sub(top, a), x), top, ir.Add(x, a))]


def _matrix_product():
    x = [self_var(I32, i) for i in range(4)]
    a, b, c, d = (_var(I32, n) for n in "abcd")

    def dot(p, q, r, s):
        return ir.Add(ir.Mul(p, q), ir.Mul(r, s))
    return [dot(x[0], a, x[1], c), dot(x[0], b, x[1], d), dot(x[2], a, x[3], c),
            dot(x[2], b, x[3], d)]


def _near_miss():
    x = [self_var(I32, i) for i in range(2)]
    a, b = _var(I32, "a"), _var(I32, "b")
    return [ir.Add(ir.Mul(x[0], a), ir.Mul(x[1], b)), ir.Add(ir.Mul(x[0], b), ir.Mul(x[1], b))]


def _three_word_sum():
    x = [self_var(U32, i) for i in range(3)]
    a, b, c = (_var(U32, n) for n in "abc")
    one, zero = ir.Const(U32, 1), ir.Const(U32, 0)
    t0 = ir.Add(x[0], a)
    c0 = ir.Select(ir.LT(t0, x[0]), one, zero)
    t1 = ir.Add(ir.Add(x[1], b), c0)
    c1 = ir.Select(ir.Or(ir.LT(t1, x[1]), ir.And(ir.EQ(t1, x[1]), ir.EQ(c0, one))), one, zero)
    return [t0, t1, ir.Add(ir.Add(x[2], c), c1)]


def _limit(seconds: float) -> float:
    return seconds * max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def _best(cores, runs=3):
    best, result = float("inf"), None
    for _ in range(runs):
        synth.forget()
        start = time.process_time()
        result = synth.synthesize(cores, [c.type for c in cores])
        best = min(best, time.process_time() - start)
    return best, result


@pytest.mark.parametrize("make, limit, source", [
    (_saturating_add, 0.5, "synthesized"),
    (_matrix_product, 1.0, "polynomial"),
    (_three_word_sum, 1.0, "synthesized"),
])
def test_synthesis_time(make, limit, source):
    with override(cache_dir=""):
        seconds, r = _best(make())
    assert r and r.source == source
    assert seconds <= _limit(limit)


def test_refusal_time():
    with override(cache_dir=""):
        seconds, r = _best(_near_miss(), runs=2)
    assert not r and "for example at" in r.reason
    assert seconds <= _limit(2.0)


def test_cache_hit_time(tmp_path):
    synth_cache._keys.clear()
    synth.forget()
    with override(cache_dir=str(tmp_path)):
        first = synth.synthesize(_matrix_product(), [I32] * 4)
        synth.forget()                       # the disk cache, not this process's memo
        seconds, r = _best(_matrix_product())
    synth_cache._keys.clear()
    assert first and not first.cached and r.cached
    assert [ir.expr_to_str(o) for o in r.ops] == [ir.expr_to_str(o) for o in first.ops]
    assert seconds <= _limit(0.005)


def test_identity_outside_the_candidates_is_solved_for():
    """x + a + 7 has the identity -7 (not among 0, +-1, 7, the extremes)."""
    x, a = self_var(I32, 0), _var(I32, "a")
    with override(cache_dir=""):
        r = synth.synthesize([ir.Add(ir.Add(x, a), ir.Const(I32, 7))], [I32])
    assert r and r.identity_side == "both" and r.identities[0].value == -7
