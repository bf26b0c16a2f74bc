"""Bugs found by the schedule fuzzer, minimized, kept as regression tests
(all fixed). A new bug goes here as an xfail(strict) test plus an entry in
fuzz_schedules.KNOWN_BUGS that the fuzzer steers around until it is fixed.

Memory-safety bugs run in a subprocess (the process would die)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyhalide as ph
from tests.schedules.schedule_check import Blur2D, check

T = ph.TailStrategy
V = ph.Var


def _run_isolated(src: str):
    """Run `src` in a fresh interpreter (glibc heap checks on): returns
    (returncode, output)."""
    env = dict(os.environ, MALLOC_CHECK_="3", PYHALIDE_CACHE_DIR="0")
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(src)], capture_output=True,
                       text=True, env=env, timeout=300)
    return p.returncode, p.stdout + p.stderr


# -- KNOWN_BUGS["fuse_bounds"] ---------------------------------------------------------------
def test_fused_consumer_of_root_producer():
    """Was: a fused loop with a symbolic inner extent had unbounded Vars
    (x = t % extent): CompileError 'cannot bound the region' of the producer."""
    x, y = V("x"), V("y")
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = x + 10 * y
    g[x, y] = f[x, y] + 1
    f.compute_root()
    g.fuse(x, y, V("t"))
    check(g, [4, 3], [np.add.outer(10 * np.arange(3), np.arange(4)) + 1])


def test_fused_consumer_region_comes_only_from_other_stages():
    """Was: the fused stage's reads were dropped from the producer's region,
    which then covered only the update's reads: IndexError at run time."""
    x, y = V("x"), V("y")
    r = ph.RDom([(3, 1), (3, 1)], "r")
    h, f = ph.Func("h"), ph.Func("f")
    h[x, y] = x * y
    f[x, y] = h[x, y]
    f[r.x, r.y] = f[r.x, r.y] * 2 + h[r.x, r.y]
    h.compute_root()
    f.fuse(x, y, V("t"))
    exp = np.multiply.outer(np.arange(5), np.arange(6))
    exp[3, 3] = 27
    check(f, [6, 5], [exp])


def test_fused_output_reading_too_small_input_is_value_error():
    """Was: with a fused output the static input-coverage check was lost; the
    read failed at run time with IndexError instead of ValueError."""
    x, y = V("x"), V("y")
    inp = ph.Buffer(np.arange(100, dtype=np.int32).reshape(10, 10))
    f = ph.Func("f")
    f[x, y] = inp[x + 1, y]
    f.fuse(x, y, V("t"))
    with pytest.raises(ValueError):
        f.realize([10, 3])


# -- KNOWN_BUGS["roundup_derived"] -----------------------------------------------------------
def test_roundup_of_fused_loop_compute_root():
    """Was: RoundUp on a fused loop was not added to the footprint: IndexError
    'written ... outside its computed region'."""
    x, y = V("x"), V("y")
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = x + 10 * y
    g[x, y] = f[x, y]
    f.compute_root().fuse(x, y, V("t")).split(V("t"), V("to"), V("ti"), 4, T.RoundUp)
    check(g, [3, 2], [np.add.outer(10 * np.arange(2), np.arange(3))])


def test_roundup_of_fused_loop_compute_at():
    """Was: the same inside a consumer loop wrote outside the allocation:
    wrong results, no error."""
    x, y = V("x"), V("y")
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = x + 10 * y
    g[x, y] = f[x, y]
    f.compute_at(g, x).fuse(x, y, V("t")).split(V("t"), V("to"), V("ti"), 16, T.RoundUp)
    check(g, [8, 4], [np.add.outer(10 * np.arange(4), np.arange(8))])


def test_roundup_of_split_outer_stays_in_bounds():
    """Was: RoundUp on the outer loop of an earlier split was not added to the
    footprint: writes far beyond the allocation (heap corruption, abort)."""
    rc, out = _run_isolated("""
        import numpy as np, pyhalide as ph
        x, V, T = ph.Var("x"), ph.Var, ph.TailStrategy
        f, g = ph.Func("f"), ph.Func("g")
        f[x] = x
        g[x] = f[x] + 1
        f.compute_root()
        f.split(x, V("xo"), V("xi"), 64, T.RoundUp).split(V("xo"), V("xoo"), V("xoi"), 64, T.RoundUp)
        for _ in range(3):
            r = np.asarray(g.realize([65]))
        assert (r == np.arange(65) + 1).all()
        print("ok")
    """)
    assert rc == 0 and "ok" in out, out[-500:]


# -- KNOWN_BUGS["update_inner_roundup"] ------------------------------------------------------
def test_update_roundup_of_inner_loop_is_refused():
    """Was accepted, re-applying the update to some points (f(x) += 1 gave 2)
    and writing out of bounds; Halide refuses it at the call."""
    x = V("x")
    f = ph.Func("f")
    f[x] = x
    f[x] = f[x] + 1
    f.update(0).split(x, V("xo"), V("xi"), 3)
    with pytest.raises(ph.CompileError, match="RoundUp"):
        f.update(0).split(V("xi"), V("xio"), V("xii"), 8, T.RoundUp)


# -- KNOWN_BUGS["resplit_guarded_outer"] -----------------------------------------------------
@pytest.mark.parametrize("case", ["split", "update_vectorize", "tile4"])
def test_resplit_of_guarded_outer_keeping_its_name(case):
    """Was: re-splitting the outer loop of a GuardWithIf split under the same
    name (vectorize/parallel/unroll with a factor, tile's 4-name form) left the
    partitioned guard on the old, undefined loop variable (IR verifier:
    'variable f.s0.xo is used outside its scope')."""
    x, _y = V("x"), V("y")
    if case == "split":
        f = ph.Func("f")
        f[x] = x
        f.split(x, V("xo"), V("xi"), 4, T.GuardWithIf).split(V("xo"), V("xo"), V("xoi"), 2)
        check(f, [10], [np.arange(10)])
    elif case == "update_vectorize":
        f = ph.Func("f")
        f[x] = x
        f[x] = f[x] * 2
        f.update(0).split(x, V("xo"), V("xi"), 4).vectorize(V("xo"), 2)   # Auto = GuardWithIf
        check(f, [11], [np.arange(11) * 2])
    else:
        p = Blur2D()
        p.by.split(p.x, V("xo"), V("xi"), 8, T.GuardWithIf) \
            .tile(V("xo"), p.y, V("xoi"), V("yi"), 2, 2)
        check(p.by, [19, 5], [p.expected(19, 5)])


# -- known limitation (legal, refused for now) -----------------------------------------------
def test_nested_compute_at():
    """Was refused: 'nested compute_at levels are not supported yet'."""
    p = Blur2D()
    x, y = p.x, p.y
    c = ph.Func("c")
    c[x, y] = p.by[x, y] * 2
    p.by.compute_at(c, y)
    p.bx.compute_at(p.by, y)
    check(c, [9, 6], [2 * p.expected(9, 6)])


# -- sliding window + RoundUp (found by the fuzzer, seed 2133997499) ----------------------
def test_sliding_window_does_not_fold_storage_a_roundup_stage_overshoots():
    x, y = V("x"), V("y")
    in0 = ph.Buffer(np.random.default_rng(9).integers(-60, 60, size=(20, 20)).astype(np.int32))
    f0, f1 = ph.Func("f0"), ph.Func("f1")
    f0[x, y] = in0[x, y] * 3
    f1[x, y] = f0[x + 1, y] + 1
    f1.compute_root()
    f0.compute_at(f1, x).store_root().split(x, V("xo"), V("xi"), 5, T.RoundUp)
    a = np.asarray(in0)
    check(f1, [6, 5], [a[:5, 1:7] * 3 + 1])


# -- fuse of the inner loop of a RoundUp split (found by the fuzzer, seed 22) --------------
def test_fuse_with_inner_of_roundup_split_keeps_bounds():
    x, y = V("x"), V("y")
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = x + 10 * y
    g[x, y] = f[x, y] + 1
    f.compute_root().split(y, V("yo"), V("yi"), 3, T.RoundUp).fuse(x, V("yi"), V("xyi"))
    check(g, [5, 7], [np.add.outer(10 * np.arange(7), np.arange(5)) + 1])


# -- found at ae4fc95, fixed since -------------------------------------------------------------
@pytest.mark.parametrize("tail", [T.RoundUp, T.GuardWithIf, T.ShiftInwards])
def test_store_root_compute_at_with_split_producer(tail):
    """Was (with RoundUp): a producer stored at root and computed per
    iteration of the consumer's outer loop, its own loop split with RoundUp,
    returned [20 10 40 30 60 50] for [0 10 20 30 40 50]."""
    x = V("x")
    f, g = ph.Func("f"), ph.Func("g")
    f[x] = x * 10
    g[x] = f[x]
    g.split(x, V("xo"), V("xi"), 2, T.ShiftInwards)
    f.compute_at(g, V("xo")).store_root().split(x, V("fo"), V("fi"), 3, tail)
    for n in (6, 7, 1):
        check(g, [n], [np.arange(n) * 10])


# -- RoundUp in a Func computed at a split consumer loop: the input check demanded [0, 72]
#    where [0, 39] is read (fixed: a RoundUp loop overshoots by less than its factor)
def test_roundup_at_split_consumer_input_bounds():
    x = V("x")
    inp = ph.Buffer(np.arange(40, dtype=np.int32))
    f, g = ph.Func("f"), ph.Func("g")
    f[x] = inp[x + 2] + inp[x]
    g[x] = f[x]
    g.split(x, V("xo"), V("xi"), 4)
    f.compute_at(g, V("xo")).split(x, V("a"), V("b"), 2, T.RoundUp)
    check(g, [37], [2 * np.arange(37) + 2])


# -- accumulator promotion must not hoist a data-dependent location (long fuzz, seed 20261121)
def test_scatter_index_read_from_a_func_computed_in_the_loop():
    x = V("x")
    a = np.random.default_rng(4).integers(-60, 60, size=(7, 6)).astype(np.int32)
    inp = ph.Buffer(a)
    f0, f1 = ph.Func("f0"), ph.Func("f1")
    r0 = ph.RDom([(0, 6), (0, 7)], "r0")
    f0[x, V("y")] = inp[x, V("y")] * 3
    f1[x] = 0
    f1[(f0[r0.x, r0.y]) % 16] += 1
    f0.compute_at(f1, r0.x).store_at(f1, r0.x)
    check(f1, [16], [np.bincount(((a * 3) % 16).ravel(), minlength=16)])


# -- sliding window with a gather over a constant range (long fuzz, seed 20261121) --------
def test_sliding_window_does_not_fold_a_window_widened_by_a_gather():
    x, y = V("x"), V("y")
    a = np.random.default_rng(8).integers(0, 60, size=(12, 40)).astype(np.int32)
    inp = ph.Buffer(a)
    f0, f1 = ph.Func("f0"), ph.Func("f1")
    f0[x, y] = inp[x, y] * 2
    f1[x, y] = f0[ph.clamp(f0[x + 1, y] % 32, 0, 15), y] + x
    f1.compute_root()
    f0.compute_at(f1, x).store_at(f1, y)
    f0v = a * 2
    exp = np.empty((12, 10), np.int64)
    for yy in range(12):
        for xx in range(10):
            exp[yy, xx] = f0v[yy, min(max(f0v[yy, xx + 1] % 32, 0), 15)] + xx
    check(f1, [10, 12], [exp])
