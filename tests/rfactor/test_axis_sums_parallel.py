"""Parallel schedules of axis sums (suite 4's, pyhalide/bench/suite4_kernels.py)
on shapes around their block sizes: blocks of columns of a.sum(axis=0) and
blocks of rows of a.sum(axis=1) keep NumPy's order (bit for bit); the
rfactor schedule of a.sum(axis=0) reassociates (within a tolerance), gives
the bits of the same rfactor without its reorder, and runs each strip's
task over its rows with the columns vectorized (without the reorder,
rfactor's strip Var sits inside the column loop: a parallel loop launched
once per column, the 30x slower schedule of session 17)."""
import functools
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite4_kernels as K

SHAPES0 = [(1, 1), (3, 7), (9, 1030), (6, 2051), (0, 9), (4, 0)]
SHAPES1 = [(1, 1), (3, 7), (17, 130), (9, 300), (0, 9), (4, 0)]


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _same(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape", SHAPES0)
def test_column_blocks_in_parallel_keep_numpys_order(shape):
    p = ph.pipeline(K.sum_axis0, schedule=K.sched_sum_axis0)
    a = _data(shape)
    _same(p(a), a.sum(axis=0))


def test_column_blocks_of_a_view_keep_numpys_order():
    p = ph.pipeline(K.sum_axis0, schedule=K.sched_sum_axis0)
    a = _data((11, 2100))[:, 3:]
    _same(p(a), a.sum(axis=0))


@pytest.mark.parametrize("shape", SHAPES1)
def test_row_blocks_in_parallel_keep_numpys_order(shape):
    p = ph.pipeline(K.sum_axis1, schedule=K.sched_sum_axis1)
    a = _data(shape)
    _same(p(a), a.sum(axis=1))


def _halide_style_rfactor(p, strip):
    """The rfactor schedule as first written (Halide's rfactor.cpp form):
    the intermediate's update parallel over u, without a reorder."""
    f = K._own(p, "sum")
    if not f.function().updates:
        return          # one row: no update to factor
    (x,) = f.args()
    (ry,) = K._rvars(f)
    u = ph.Var("u")
    ryo, ryi = ph.RVar("ryo"), ph.RVar("ryi")
    f.update(0).split(ry, ryo, ryi, strip).rfactor(ryo, u) \
        .compute_root().vectorize(x, 8).update(0).parallel(u)
    f.update(0).vectorize(x, 8)


@pytest.mark.parametrize("shape", [(1, 1), (16, 9), (37, 21), (50, 1030)])
def test_rfactor_strips_reassociate_within_tolerance(shape):
    a = _data(shape, 1)
    fast = ph.pipeline(K.sum_axis0, schedule=functools.partial(K.sched_sum_axis0_rfactor,
                                                               strip=16))
    slow = ph.pipeline(K.sum_axis0, schedule=functools.partial(_halide_style_rfactor, strip=16))
    got = fast(a)
    # the strips' partial sums, added in strip order, in plain Python
    want = np.zeros(shape[1])
    for s in range(0, shape[0], 16):
        part = np.zeros(shape[1])
        for y in range(s, min(s + 16, shape[0])):
            part = part + a[y]
        want = want + part
    np.testing.assert_allclose(got, a.sum(axis=0), rtol=1e-12, atol=1e-12 * shape[0])
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
    _same(got, slow(a))


def _loops(p, shape):
    return p.lower(stage="loops", arg_specs=[("a", np.dtype(np.float64), shape)])


def test_rfactor_strip_tasks_are_the_outermost_loop():
    """The intermediate's update: one parallel loop over the strips, and the
    column loop inside it (vectorized), not around it."""
    text = _loops(ph.pipeline(K.sum_axis0, schedule=K.sched_sum_axis0_rfactor), (512, 256))
    lines = [ln for ln in text.splitlines() if re.search(r"for \(sum\S*_intm\S*\.s1\.", ln)]
    assert lines and "parallel for" in lines[0], lines
    depth = len(lines[0]) - len(lines[0].lstrip())
    inner = [ln for ln in lines[1:] if len(ln) - len(ln.lstrip()) > depth]
    assert inner and not any("parallel" in ln for ln in inner), lines
    # the schedule as first written: the parallel loop inside the column loop
    slow = _loops(ph.pipeline(K.sum_axis0, schedule=functools.partial(
        _halide_style_rfactor, strip=256)), (512, 256))
    first = [ln for ln in slow.splitlines() if re.search(r"for \(sum\S*_intm\S*\.s1\.", ln)][0]
    assert "parallel" not in first and ".s1.i" in first


def test_column_blocks_add_four_rows_per_pass():
    """sum_axis0's schedule: the column blocks parallel and outermost, the
    4 rows unrolled inside the vector of columns (NumPy's order per column)."""
    text = _loops(ph.pipeline(K.sum_axis0, schedule=K.sched_sum_axis0), (64, 2048))
    loops = [ln.strip() for ln in text.splitlines() if re.search(r"for \(sum\S*\.s1\.", ln)]
    assert loops[0].startswith("parallel for") and ".xo" in loops[0], loops
