"""The fast paths of reductions and products under the default schedule,
against NumPy bit for bit (float sums in NumPy's pairwise order, min/max
and argmin/argmax with NumPy's NaN and tie rules) or against the serial
sum over k (a @ b): the row path of sum_order (rows of merged run axes, no
cast), the float min/max/argmin/argmax of a whole array in vector lanes
and blocks (reduce_blocks), the blocked 2-D product (array_dot), their Funcs by name
in p.funcs, and schedules on them (suite 4's) giving the same bits."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite4_kernels as K


def data(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dt).reshape(shape)


def same_bits(got, want):
    """Equal dtypes, shapes and bits, NaN for NaN (NumPy's own NaN sign and
    payload depend on its SIMD operand order, so any NaN matches a NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind == "f":
        nan = np.isnan(want)
        if not np.array_equal(np.isnan(got), nan):
            return False
        got, want = np.where(nan, 0, got).astype(got.dtype), np.where(nan, 0, want).astype(got.dtype)
    return np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


@ph.pipeline
def rows(a):
    s = a.sum(axis=-1)
    return s


@ph.pipeline
def everything(a):
    return a.sum()


@ph.pipeline
def rows_of_product(a):
    return (a * 2.0).sum(axis=1)


@ph.pipeline
def outer_and_rows(a):
    return a.sum(axis=(0, 2))


# float sums: the row path ---------------------------------------------------------------------
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_row_sums_every_length(dt):
    """Row lengths 0..300 (below one chunk of 8, one leaf, split trees with
    a remainder) and a few long ones, 3 rows each."""
    for m in list(range(0, 301)) + [1024, 2047, 4099]:
        a = data((3, m), dt, m)
        assert same_bits(rows(a), np.sum(a, axis=-1)), m


ALL_SHAPES = [(1, 1), (2, 3), (5, 130), (17, 9), (64, 64), (3, 7, 11)]


# the default run: 2-D shapes without axes of size 1 (one kernel per function)
@pytest.mark.parametrize("dt, shapes", [
    pytest.param(np.float32, ALL_SHAPES, marks=pytest.mark.slow),
    pytest.param(np.float64, ALL_SHAPES, marks=pytest.mark.slow),
    (np.float64, [(2, 3), (5, 130), (64, 64)])], ids=["float32", "float64", "float64-2d"])
def test_whole_array_and_merged_axes(dt, shapes):
    """axis=None of C arrays (one run over merged axes), a reduced axis
    outside the rows (outer), a computed operand, F order (the run is
    axis 0: the general path) and strided rows."""
    for shape in shapes:
        a = data(shape, dt, sum(shape))
        assert same_bits(everything(a), np.sum(a))
        assert same_bits(everything(np.asfortranarray(a)), np.sum(np.asfortranarray(a)))
        assert same_bits(rows(a), np.sum(a, axis=-1))
        assert same_bits(rows(a[..., ::2]), np.sum(a[..., ::2], axis=-1))
        if a.ndim == 2:
            assert same_bits(rows_of_product(a), np.sum(a * dt(2.0), axis=1))
        if a.ndim == 3:
            assert same_bits(outer_and_rows(a), np.sum(a, axis=(0, 2)))


def test_row_sums_special_values():
    """Signed zeros, infinities and NaN in every position of short and long rows."""
    rng = np.random.default_rng(3)
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1e300, 1e300])
    for m in (1, 7, 8, 9, 64, 129, 300):
        for _ in range(5):
            a = rng.choice(vals, size=(4, m))
            assert same_bits(rows(a), np.sum(a, axis=-1)), a
    assert same_bits(rows(np.full((2, 5), -0.0)), np.sum(np.full((2, 5), -0.0), axis=-1))


def test_pairwise_funcs_are_named_and_schedulable():
    """sum (the result's Func), sum_leaf, sum_lanes and sum_tree are
    in p.funcs; running sum's rows in parallel with sum_lanes placed at root
    by the schedule (the default then leaves it there) gives NumPy's bits
    (suite 4's own schedule: test_row_sum_groups.py)."""
    seen = {}

    def sched(p):
        seen.update({k: p.funcs[k].name() for k in p.funcs})
        f = K._own(p, "sum")
        f.update(len(f.function().updates) - 1).parallel(f.args()[0])
        lanes = K._own(p, "sum_lanes")
        lanes.compute_root()

    f = ph.pipeline(K.sum_axis1, schedule=sched)
    a = data((33, 515), np.float64, 5)
    assert same_bits(f(a), np.sum(a, axis=1))
    for helper in ("sum", "sum_leaf", "sum_lanes", "sum_tree"):
        assert any(k.split("$")[0] == helper for k in seen), (helper, seen)


def test_sum_axis0_schedule_of_the_bench():
    """suite 4's sched_sum_axis0 schedules the reduction's own Func."""
    a = data((70, 300), np.float64, 9)
    f = ph.pipeline(K.sum_axis0, schedule=K.sched_sum_axis0)
    assert same_bits(f(a), np.sum(a, axis=0))


# min / max / argmin / argmax of a whole float array ------------------------------------------
@ph.pipeline
def whole_min(a):
    return np.min(a)


@ph.pipeline
def whole_argmax(a):
    return a.argmax()


REDUCERS = [(K.amax, np.max), (whole_min, np.min), (K.argmin, np.argmin),
            (whole_argmax, np.argmax)]


def _check_reducers(a):
    for f, ref in REDUCERS:
        got, want = f(a), ref(a)
        assert type(got) is type(want) and same_bits(got, want), (f.__name__, a, got, want)


# the default run: the first 8 of the 120 arrays (each new number of
# dimensions, axis of size 1 or layout compiles the reducers again: 1-D, 2-D
# C and F, an axis of size 1 in 2-D and 3-D; a 3-D array without one is the
# 12th)
@pytest.mark.parametrize("dt, arrays", [
    pytest.param(np.float32, 120, marks=pytest.mark.slow),
    pytest.param(np.float64, 120, marks=pytest.mark.slow),
    (np.float64, 8)], ids=["float32", "float64", "float64-first8"])
def test_blocked_extremes_special_values(dt, arrays):
    """NaN (the first one wins: its index), ±0 ties (the later element for
    min/max, the first for argmin/argmax), infinities; fewer rows than
    blocks, ragged last block, 1-D to 3-D, F order."""
    rng = np.random.default_rng(11)
    vals = np.array([0.0, -0.0, np.nan, -np.inf, np.inf, 1.0, -1.0, 2.0], dt)
    for t in range(arrays):
        shape = tuple(int(s) for s in rng.integers(1, 19, rng.integers(1, 4)))
        pool = vals if t % 2 else vals[vals == vals]      # half without NaN
        a = rng.choice(pool, size=shape)
        _check_reducers(a)
        if a.ndim == 2:
            _check_reducers(np.asfortranarray(a))


def test_blocked_extremes_first_nan_index():
    """argmin/argmax return the index of the first NaN, in any block."""
    for pos in (0, 3, 19, 20, 39):
        a = np.arange(40, dtype=np.float64).reshape(8, 5)
        a.ravel()[pos] = np.nan
        a.ravel()[min(pos + 7, 39)] = np.nan
        _check_reducers(a)


def test_lanes_cover_chunks_tails_and_blocks():
    """Rows wider than one chunk of 16 lanes with a tail (processed after
    every row's whole chunks, out of C order), more rows than blocks with a
    ragged last block, 1-D arrays: the first NaN, ±0 ties and repeated
    extremes placed in a tail and in a later row's chunk (1-D and 3-D
    arrays, and rows of 1 to 18: test_blocked_extremes_special_values)."""
    rng = np.random.default_rng(5)
    for shape in [(37,), (50, 37), (9, 33), (17, 16), (40, 3)]:
        for t in range(6):
            a = rng.choice(np.array([1.0, 2.0, -1.0, 3.0]), size=shape)
            flat = a.reshape(-1)
            n = flat.size
            w = shape[-1]
            tail = w - w % 16 if w % 16 else w - 1          # a column of a tail
            early, late = min(tail, n - 1), min(w + 1, n - 1)   # row 0's tail, row 1's chunk
            if t % 3 == 0:
                flat[late], flat[early] = np.nan, np.nan
            elif t % 3 == 1:
                flat[:] = rng.choice(np.array([0.0, -0.0, -1.0]), size=n)
            else:
                flat[late] = flat[early] = 9.0
                flat[rng.integers(0, n)] = -9.0
            _check_reducers(a)


@pytest.mark.parametrize("name, helper", [("amax", "max_lanes"), ("argmin", "argmin_tail")])
def test_lane_updates_keep_their_order(name, helper):
    """The lanes' updates use the serial loop's rule, exact only in C order:
    a schedule that reorders their RVars is refused."""
    def sched(p):
        u = K._own(p, helper).update(0)
        u.reorder(*reversed([d.var for d in u.definition().schedule.dims if d.is_rvar]))

    with pytest.raises(ph.CompileError, match="changes the order of the reduction"):
        ph.pipeline(K.NUMPY[name], schedule=sched)(np.ones((20, 37)))


def _wins(x, px, v, pv, is_min, last):
    """reduce_blocks._wins (the full rule) in Python."""
    if x != x:
        return v == v or px < pv
    beats = x < v if is_min else x > v
    return v == v and (beats or (x == v and (px > pv if last else px < pv)))


def test_lane_rule_is_the_serial_result_in_any_order():
    """The greatest element under reduce_blocks' order, searched in any
    order, is the serial loop's result: its value bits for min/max (ties to
    the later element, the first NaN) and its position for argmin/argmax
    (ties to the first, the first NaN), on every sequence of 4 special
    values and every visiting order."""
    nan2 = np.frombuffer(np.uint64(0x7FF8000000000001).tobytes(), np.float64)[0]
    vals = [0.0, -0.0, np.nan, nan2, np.inf, -np.inf, 1.0]
    bits = lambda v: np.float64(v).tobytes()    # noqa: E731
    for seq in itertools.product(vals, repeat=4):
        for is_min, arg in itertools.product((False, True), repeat=2):
            last = not arg
            acc, at = (np.inf if is_min else -np.inf), (-1 if last else 0)
            for p, x in enumerate(seq):       # the serial loop
                if arg:
                    better = (x < acc if is_min else x > acc) or (x != x and acc == acc)
                else:
                    better = not ((acc < x) if is_min else (acc > x)) and acc == acc
                if better:
                    acc, at = x, p
            for order in itertools.permutations(range(4)):
                v, pv = (np.inf if is_min else -np.inf), (-1 if last else 0)
                for p in order:
                    if _wins(seq[p], p, v, pv, is_min, last):
                        v, pv = seq[p], p
                assert (pv == at) if arg else bits(v) == bits(acc), (seq, is_min, arg, order)


def test_integer_extremes_keep_one_update():
    """Integer max stays one update over the array (rfactor splits it)."""
    seen = {}

    def sched(p):
        seen["updates"] = len(p.funcs["max"].function().updates)
        seen["rvars"] = len(p.funcs["max"].function().updates[0].schedule.rvars)

    f = ph.pipeline(K.amax, schedule=sched)
    a = np.arange(60, dtype=np.int32).reshape(6, 10)
    assert f(a) == np.max(a)
    assert seen == {"updates": 1, "rvars": 2}


# a @ b ----------------------------------------------------------------------------------------
def test_blocked_matmul_is_the_serial_sum():
    """The blocked default adds each element's terms in k order: equal to
    the serial loop's sum, and within the bound FRONTEND.md states of
    NumPy's (2 n eps |a| @ |b|), for sizes not multiples of the blocks."""
    rng = np.random.default_rng(4)
    f = ph.pipeline(K.matmul)
    # the last: 3 ragged blocks of 128 terms and of 256 columns, rows not a multiple of 4
    for m, n, k in [(1, 1, 1), (3, 5, 2), (9, 17, 13), (33, 8, 40), (64, 64, 64),
                    (37, 261, 515)]:
        a, b = rng.standard_normal((m, n)), rng.standard_normal((n, k))
        serial = np.zeros((m, k))
        for t in range(n):
            serial = serial + a[:, t:t + 1] * b[t]
        got = f(a, b)
        assert same_bits(got, serial)
        bound = 2 * n * np.finfo(np.float64).eps * (np.abs(a) @ np.abs(b))
        assert np.all(np.abs(got - a @ b) <= bound)


def test_matmul_user_schedule_wins():
    """A schedule that touches the product's update replaces the default
    (suite 4's: the same blocking, its blocks of columns in parallel) and
    gives the same bits."""
    rng = np.random.default_rng(6)
    p = ph.pipeline(K.matmul, schedule=K.sched_matmul)
    for m, n, k in [(21, 30, 19), (9, 140, 600)]:
        a, b = rng.standard_normal((m, n)), rng.standard_normal((n, k))
        assert same_bits(p(a, b), ph.pipeline(K.matmul)(a, b))


def _colmax(preserve_outer):
    @ph.pipeline
    def colmax(a):
        m = a.max(axis=0)
        return m

    @colmax.schedule
    def _(p):
        f = p.funcs["m"]
        ro, ri, u = ph.RVar("ro"), ph.RVar("ri"), ph.Var("u")
        f.update(0).split(p.vars["m", "axis0"], ro, ri, 4)
        f.update(0).rfactor(ro if preserve_outer else ri, u).compute_root()
    return colmax


@pytest.mark.parametrize("outer", [True, False])
def test_float_max_rfactor_never_changes_a_zero_sign(outer):
    """rfactor of the NaN-aware float max either is refused or returns
    NumPy's bits (±0 ties give the later element: the operator is not
    commutative bit for bit, so interleaved slices could change the sign)."""
    f = _colmax(outer)
    rng = np.random.default_rng(8)
    for _ in range(20):
        a = rng.choice(np.array([0.0, -0.0, -1.0, np.nan]), size=(9, 6))
        try:
            got = f(a)
        except ph.CompileError as e:
            assert "rfactor" in str(e)
            return
        assert same_bits(got, np.max(a, axis=0))
