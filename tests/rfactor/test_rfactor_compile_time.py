"""Compile time of a tuple reduction tiled over its pure Vars and rfactored
twice (Halide's rfactor.cpp tuple cases with the update tiled too). Every
GuardWithIf split of the nest, and of the intermediate computed inside it,
used to double the loop nest in loop synthesis, and the copies multiplied
through the compute_at levels: 12,700 lines of lowered code and 270 s to
compile. Loop synthesis now leaves GuardWithIf guards to loop partitioning,
whose copies are bounded per path, and a guard of a Func computed inside a
loop partitions that Func's own loops, not its consumer's."""
import re
import time

import numpy as np
import pytest
from rfactor_util import realize, reference

import pyhalide as ph

x, y = ph.Var("x"), ph.Var("y")


def build(schedule, keep_second):
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = (x + y, x - y)
    f.compute_root()
    r = ph.RDom([(10, 20), (30, 40)], "r")
    g[x, y] = (1, 3)
    second = g[x, y][1] if keep_second else ph.min(g[x, y][1], f[r.x, r.y][1])
    g[x, y] = (g[x, y][0] + f[r.x, r.y][0] + 3, second)
    if schedule:
        g.reorder(y, x)
        xi, yi = ph.Var("xi"), ph.Var("yi")
        g.update(0).tile(x, y, xi, yi, 4, 4)
        u, v = ph.Var("u"), ph.Var("v")
        intm1 = g.update(0).rfactor(r.y, u)
        rxi, rxo = ph.RVar("rxi"), ph.RVar("rxo")
        intm1.tile(x, y, xi, yi, 4, 4)
        intm1.update(0).split(r.x, rxo, rxi, 2)
        intm2 = intm1.update(0).rfactor(rxo, v)
        intm2.compute_at(intm1, rxo)
        intm1.update(0).parallel(u, 2)
        intm1.compute_root()
    return g


@pytest.mark.parametrize("keep_second", [False, True], ids=["min", "unchanged"])
def test_twice_rfactored_tiled_tuple_compiles_fast(keep_second):
    g = build(True, keep_second)
    pipe = ph.Pipeline([g])
    t0 = time.thread_time()            # CPU time of this thread: lowering and LLVM run here
    pipe.compile_jit()
    seconds = time.thread_time() - t0
    assert seconds < 6.0, f"compiling took {seconds:.1f} s of CPU time (Halide: under 1 s)"
    for sizes in ([24, 16], [23, 14], [3, 2]):
        got = realize(g, sizes)
        want = reference(build(False, keep_second), sizes)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_lowered_nest_stays_small():
    g = build(True, False)
    text = ph.Pipeline([g]).lower("final")
    # one realization of the innermost intermediate per copy of its
    # consumer's nest: full tiles, and the x and y tails
    copies = len(re.findall(rf"produce {re.escape(g.name())}\S*_intm_intm\b", text))
    assert 1 <= copies <= 3, copies
    assert len(text.splitlines()) < 1000, len(text.splitlines())
