"""The PLDI 2013 blur schedules, each equal to the reference evaluator, and
what they lower to (sliding window, storage folding); the partitioned tail
of a GuardWithIf split is in test_core_partition_loops.py."""
import re

import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check

A = np.random.default_rng(5).integers(0, 60000, size=(37, 45), dtype=np.uint16)


def blur():
    x, y = ph.Var("x"), ph.Var("y")
    inp = ph.Buffer(A, "inp")
    bx, by = ph.Func("bx"), ph.Func("by")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) // 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) // 3
    return x, y, bx, by


def _breadth_first(x, y, bx, by):
    bx.compute_root()


def _fused(x, y, bx, by):
    bx.compute_at(by, x)


def _sliding(x, y, bx, by):
    bx.store_root().compute_at(by, y)


def _tiled(x, y, bx, by):
    xo, yo, xi, yi = (ph.Var(n) for n in ("xo", "yo", "xi", "yi"))
    by.tile(x, y, xo, yo, xi, yi, 8, 8)
    bx.compute_at(by, xo)


def _strips(x, y, bx, by):
    yo, yi = ph.Var("yo"), ph.Var("yi")
    by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8)
    bx.store_at(by, yo).compute_at(by, yi).vectorize(x, 8)


def _guarded_update_and_fuse(x, y, bx, by):
    xy = ph.Var("xy")
    bx.compute_root().fuse(x, y, xy).parallel(xy)
    by.split(x, ph.Var("xo"), ph.Var("xi"), 5, ph.TailStrategy.GuardWithIf)


_SCHEDULED = {}


def _scheduled(schedule):
    """One scheduled blur per schedule, realized at every size: the kernel
    takes the output size as an argument, so the sizes share one compile (and
    check that one kernel serves them all)."""
    if schedule not in _SCHEDULED:
        x, y, bx, by = blur()
        schedule(x, y, bx, by)
        _SCHEDULED[schedule] = by
    return _SCHEDULED[schedule]


@pytest.mark.parametrize("schedule", [_breadth_first, _fused, _sliding, _tiled, _strips,
                                      _guarded_update_and_fuse])
@pytest.mark.parametrize("size", [(43, 35), (5, 3), (1, 1)])
def test_blur_schedules_match_reference(schedule, size):
    check(_scheduled(schedule), list(size))


def test_sliding_window_folds_storage():
    x, y, bx, by = blur()
    _sliding(x, y, bx, by)
    text = ph.Pipeline([by]).lower("final")
    b, c = bx.name().replace("$", r"\$"), by.name().replace("$", r"\$")
    assert re.search(rf"allocate {b}\[uint16 \* {b}.b0.extent \* 4\]", text), text
    assert re.search(rf"select\(\({c}.s0.y > 0\)", text), text


def test_update_split_and_rvar_rules():
    x = ph.Var("x")
    a = ph.Buffer(np.arange(20, dtype=np.int32), "a20")
    r = ph.RDom([(0, 20)])
    f = ph.Func("red")
    f[x] = 0
    f[x] = f[x] + a[r.x] * x
    f.update(0).split(r.x, ph.RVar("ro"), ph.RVar("ri"), 6)
    check(f, [3], [np.arange(3) * np.arange(20).sum()])
    g = ph.Func("race")
    g[()] = 0
    g[()] += a[r.x]
    with pytest.raises(ph.CompileError, match="rfactor"):
        g.update(0).parallel(r.x)
    with pytest.raises(ph.CompileError, match="GuardWithIf"):
        g.update(0).split(r.x, ph.RVar("o"), ph.RVar("i"), 4, ph.TailStrategy.RoundUp)


def test_compute_at_unknown_loop_names_the_loops():
    x, y, bx, by = blur()
    bx.compute_at(by, ph.Var("nope"))
    with pytest.raises(ph.CompileError, match="no loop nope"):
        by.realize([4, 4])
