"""The leaves of NumPy's pairwise sum found per slot (frontend_ast/sum_order.py):
rightmost_slot and most_chunks against a direct model of the split tree,
whole-array and row sums bit for bit equal to NumPy over sizes around the
leaf and tree boundaries, and the default schedule inlining an array read
only by NumPy-order sums (rosen, lstsqr of numpy-benchmarks) without
changing a bit."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.sum_order import (
    BLOCK,
    LANES,
    most_chunks,
    rightmost_slot,
    run_depth,
    split_depth,
)


def _leaves(m, lanes=LANES, block=BLOCK):
    """[(slot, chunks)] of the leaves of a run of m elements, laid on
    2**split_depth(m) slots as the sum lays them (a leaf keeps the first
    slot of its subtree): NumPy's pairwise_sum split, written directly."""
    depth = split_depth(m, lanes)
    out = []

    def walk(q, last, level, slot):
        rem = m % lanes if last else 0
        if q * lanes + rem <= block or level == depth:
            out.append((slot << (depth - level), q))
            return
        h = q // 2
        walk(h, False, level + 1, 2 * slot)
        walk(q - h, last, level + 1, 2 * slot + 1)
    walk(m // lanes, True, 0, 0)
    return out


SIZES = list(range(0, 140)) + [255, 256, 257, 1000, 1023, 1025, 4095, 8193, 65537, 100003,
                               (1 << 20) + 7]


@pytest.mark.parametrize("lanes", [LANES, 4])
def test_rightmost_slot_and_most_chunks_follow_the_tree(lanes):
    block = BLOCK * lanes // LANES
    for m in SIZES:
        leaves = _leaves(m, lanes, block)
        assert rightmost_slot(m, lanes, block) == leaves[-1][0], m
        assert most_chunks(m, lanes, block) == max(q for _, q in leaves), m
        assert all(q * lanes <= block for _, q in leaves), m


def _depth(m, lanes, block):
    """The depth of NumPy's split tree of m elements, by recursion."""
    def walk(q, last):
        rem = m % lanes if last else 0
        if q * lanes + rem <= block:
            return 0
        return 1 + max(walk(q // 2, False), walk(q - q // 2, last))
    return walk(m // lanes, True)


@pytest.mark.parametrize("lanes", [LANES, 4])
def test_split_depth_is_the_trees_own(lanes):
    """A row sum runs 2**split_depth(m) slots: no more levels than the tree has
    (2048 elements: 16 leaves on 16 slots, not 32)."""
    block = BLOCK * lanes // LANES
    for m in SIZES + [2048, 4096]:
        assert split_depth(m, lanes) == _depth(m, lanes, block), m
    assert 2 ** split_depth(2048) == 16


def test_run_depth_is_the_deepest_runs():
    """The runs of a slab in pieces (NumPy's buffer): the deepest of their trees."""
    for slab in (1, 7, 255, 256, 1000, 8192, 8193, 10000, 16640, 100003):
        for piece in (8192, 256, 136):
            lengths = {min(piece, slab - k) for k in range(0, slab, piece)}
            assert run_depth(slab, piece) == max(_depth(m, LANES, BLOCK) for m in lengths)


@ph.pipeline
def total(x):
    return np.sum(x)


@ph.pipeline
def row_sums(x):
    return x.sum(axis=1)


@ph.pipeline
def mean_var(x):
    return np.mean(x), np.var(x)


def _bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return got.dtype == want.dtype and np.array_equal(
        np.ascontiguousarray(got).view(np.uint8), np.ascontiguousarray(want).view(np.uint8))


def _data(n, dt, rng):
    return (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)).astype(dt)


@pytest.mark.parametrize("dt", [np.float64, pytest.param(np.float32, marks=pytest.mark.slow)])
def test_whole_array_sums_equal_numpy(dt):
    rng = np.random.default_rng(3)
    for m in SIZES:
        x = _data(m, dt, rng)
        assert _bits(total(x), np.sum(x)), m
        if m:
            got_m, got_v = mean_var(x)
            assert _bits(got_m, np.mean(x)) and _bits(got_v, np.var(x)), m
    x = np.full(300, -0.0)
    assert _bits(total(x), np.sum(x))


@pytest.mark.parametrize("dts", [(np.float64,), pytest.param((np.float32,),
                                                              marks=pytest.mark.slow)])
def test_row_sums_equal_numpy(dts):
    rng = np.random.default_rng(4)
    for shape in [(3, 1000), (5, 129), (7, 17), (2, 8193), (40, 3), (6, 0), (9, 256)]:
        for dt in dts:
            x = _data(int(np.prod(shape)), dt, rng).reshape(shape)
            assert _bits(row_sums(x), np.sum(x, axis=1)), shape


@ph.pipeline
def rosen(x):
    t0 = 100 * (x[1:] - x[:-1] ** 2) ** 2
    t1 = (1 - x[:-1]) ** 2
    return np.sum(t0 + t1)


@ph.pipeline
def lstsqr(x, y):
    x_avg = np.average(x)
    y_avg = np.average(y)
    dx = x - x_avg
    dy = y - y_avg
    var_x = np.sum(dx**2)
    cov_xy = np.sum(dx * dy)
    slope = cov_xy / var_x
    y_interc = y_avg - slope*x_avg
    return (slope, y_interc)


def _levels(fn, names):
    spec = next(iter(fn._specs._d.values()))
    out = {}
    for pyname, f, _ in spec.builder.funcs:
        if pyname in names:
            level = f.function().schedule.compute_level
            out[pyname] = level is None or level.is_inlined()
    return out


def test_arrays_read_only_by_sums_are_inlined():
    """t0, t1 (one sum: its chunks and its rest) and dx, dy (read by two
    sums, cheap) are not stored; the results keep NumPy's bits."""
    rng = np.random.default_rng(5)
    for n in (2, 9, 130, 1001, 20011):
        x, y = rng.random(n), rng.random(n)
        r = np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
        assert _bits(rosen(x), r), n
        dx, dy = x - np.average(x), y - np.average(y)
        slope = np.sum(dx * dy) / np.sum(dx ** 2)
        got = lstsqr(x, y)
        assert _bits(got[0], slope) and _bits(got[1], np.average(y) - slope * np.average(x))
    assert _levels(rosen, {"t0", "t1"}) == {"t0": True, "t1": True}
    assert _levels(lstsqr, {"dx", "dy"}) == {"dx": True, "dy": True}
