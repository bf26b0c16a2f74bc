"""Compile time of a tuple reduction tiled over its pure Vars and rfactored
twice (Halide's rfactor.cpp tuple cases with the update tiled too). Every
GuardWithIf split of the nest, and of the intermediate computed inside it,
used to double the loop nest in loop synthesis, and the copies multiplied
through the compute_at levels: 12,700 lines of lowered code and 270 s to
compile. Loop synthesis now leaves GuardWithIf guards to loop partitioning,
whose copies are bounded per path; a test on extents alone for a Func
computed inside a loop is made by that Func's own loops, not by a copy of
its consumer's nest; and a Func computed at a point of its consumer's
guarded variables gets that point as its region (the guards are tested at
its compute loop), not a clamp of symbolic extent."""
import re
import time

import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.rfactor_util import realize, reference, tiled_tuple_twice


def build(schedule, keep_second):
    return tiled_tuple_twice(schedule, keep_second)


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
    # consumer's nest: full tiles, the x and y tails, and (a third
    # partition per guard, partition_loops.MAX_PER_GUARD) the y tail's
    # rows with a whole x chunk
    copies = len(re.findall(rf"produce {re.escape(g.name())}\S*_intm_intm\b", text))
    assert 1 <= copies <= 4, copies
    assert len(text.splitlines()) < 700, len(text.splitlines())


def test_intermediate_inside_the_tile_is_one_point():
    """The inner intermediate is computed per point (x, y, u) of its
    consumer: loop synthesis tests the consumer's guards of x, y and u at
    that loop, so the region is the point itself, of extent 1, not a clamp
    of it whose symbolic extent its own tile would partition again."""
    g = build(True, False)
    text = ph.Pipeline([g]).lower("loops")
    name = re.escape(g.name()) + r"\S*_intm_intm"
    for d in range(3):
        lo = re.search(rf"let {name}\.r{d}\.min = (.*)", text).group(1)
        hi = re.search(rf"let {name}\.r{d}\.max = (.*)", text).group(1)
        assert lo == hi, (d, lo, hi)
