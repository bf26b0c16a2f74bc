"""Compile time of schedules whose bounds nest: Funcs computed inside the
split loops of Funcs computed inside split loops, with ShiftInwards, RoundUp
and unrolling. Each level's bounds use the next level's several times; bounds
inference names big ones in lets, so they stay small (they used to grow
exponentially: 7 s and 70 KB of loop nest for this pipeline, 18 s for the
fuzzer's program it was cut from)."""
import time

import numpy as np

import pyhalide as ph
from tests.core.jitcheck import check


def nested_pipeline():
    x = ph.Var("x")
    inp = ph.Buffer(np.random.default_rng(3).integers(-60, 60, 200).astype(np.int32), "inp")
    f0, f1, f2, f3, f4 = (ph.Func(f"f{i}") for i in range(5))
    f0[x] = inp[x + 60]
    f1[x] = f0[x - 2] - f0[x - 1]
    f2[x] = f1[x + 1] + x
    f3[x] = f2[x + 1] + 3 * f2[x - 2]
    f4[x] = f3[x] / (x % 7 + 1)
    S, R = ph.TailStrategy.ShiftInwards, ph.TailStrategy.RoundUp
    xo1, xi2, xi2o5, xo1o6, xi2i3, xo1i4 = (ph.Var(n) for n in
                                          ("xo1", "xi2", "xi2o5", "xo1o6", "xi2i3", "xo1i4"))
    f4.split(x, xo1, xi2, 5, S)
    f4.tile(xi2, xo1, xi2o5, xo1o6, xi2i3, xo1i4, 3, 5, S)
    f3.compute_at(f4, xi2i3).store_root().unroll(x, 2, R)
    xo7, xi8, xo9, xi10 = (ph.Var(n) for n in ("xo7", "xi8", "xo9", "xi10"))
    f2.compute_at(f3, ph.Var("x$unr")).split(x, xo7, xi8, 2, R).unroll(xi8)
    f1.compute_at(f2, xo7).split(x, xo9, xi10, 2, R).unroll(xi10)
    f0.compute_at(f1, xo9).store_root()
    return f4


def test_nested_compute_levels_lower_fast():
    out = nested_pipeline()
    t0 = time.thread_time()            # CPU time of this thread, where lowering runs
    text = ph.Pipeline([out]).lower("final")
    seconds = time.thread_time() - t0
    assert seconds < 5.0, f"lowering took {seconds:.1f} s of CPU time"
    longest = max(len(line) for line in text.splitlines())
    assert longest < 5000, f"a line of the lowered code has {longest} characters"


def test_nested_compute_levels_results():
    out = nested_pipeline()
    for n in (1, 4, 17, 100):
        check(out, [n])
