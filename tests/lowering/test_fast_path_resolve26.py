"""assert_fast_path._Resolver expands each let once (session 26); it must give
what the substitution rounds it replaced gave: the same expression, or None
in the same cases (an unsafe let, lets in a cycle, a let's name bound again
by a Let inside the condition). Random let chains over a few names, pure
IR (no compile)."""
import random

from pyhalide import ir

# _rounds: the algorithm _Resolver replaced (substitute until no let is named),
# kept in the module as its fallback
from pyhalide.lowering.assert_fast_path import _Resolver, _rounds

NAMES = ["a", "b", "c", "d", "e", "x", "y"]     # x, y: never lets (loop variables)


def _expr(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        if rng.random() < 0.25:
            return ir.index(rng.randint(-3, 3))
        return ir.index_var(rng.choice(NAMES))
    k = rng.random()
    if k < 0.1:      # a Let that may bind a let's name again
        return ir.Let(rng.choice(NAMES), _expr(rng, depth - 1), _expr(rng, depth - 1))
    op = rng.choice([ir.Add, ir.Sub, ir.Mul, ir.Min, ir.Max])
    return op(_expr(rng, depth - 1), _expr(rng, depth - 1))


def test_resolve_matches_substitution_rounds():
    rng = random.Random(26)
    counts = {"equal": 0, "none": 0}
    for _ in range(400):
        names = rng.sample(NAMES[:5], rng.randint(1, 5))
        lets = {n: _expr(rng, 3) for n in names}
        safe = {n for n in names if rng.random() < 0.85}
        resolve = _Resolver(lets, safe)
        for _ in range(3):      # conditions of one body share the expansions
            cond = ir.LT(_expr(rng, 3), ir.index(7))
            want = _rounds(cond, lets, safe)
            got = resolve(cond)
            if want is None:
                assert got is None, (cond, lets, safe)
                counts["none"] += 1
            else:
                assert got is not None and ir.equal(got, want), (cond, lets, safe)
                counts["equal"] += 1
    assert counts["equal"] > 200 and counts["none"] > 50, counts
