"""fn.dask(*args): @pipeline functions on Dask arrays equal the one-machine call
(pyhalide.dask)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from pyhalide.errors import CompileError  # noqa: E402

from . import kernels as K  # noqa: E402


def _chunks(rng, n, parts):
    cuts = np.sort(rng.choice(np.arange(1, n), size=parts - 1, replace=False))
    return tuple(int(c) for c in np.diff(np.concatenate([[0], cuts, [n]])))


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert np.array_equal(got, want)


@pytest.mark.parametrize("split_every", [2, 3, 8])
@pytest.mark.parametrize("seed", [0, 1])
def test_integer_reductions_bit_identical(seed, split_every):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 16, size=1000).astype(np.int32)
    b = rng.integers(-50, 50, size=1000).astype(np.int32)
    chunks = _chunks(rng, a.size, int(rng.integers(2, 12)))
    x, y = da.from_array(a, chunks=(chunks,)), da.from_array(b, chunks=(chunks,))
    with dask.config.set(scheduler="synchronous"):
        for fn, args, dargs in [(K.total, (a,), (x,)), (K.hist, (a,), (x,)),
                                (K.dot, (a, b), (x, y)), (K.argmin, (b,), (y,))]:
            got = dask.compute(fn.dask(*dargs, split_every=split_every))[0]
            _same(got, fn(*args))


def test_argmin_ties_lowest_global_index():
    a = np.full(500, 7, np.int32)
    a[[123, 321, 499]] = -3          # ties in different blocks
    x = da.from_array(a, chunks=50)
    with dask.config.set(scheduler="synchronous"):
        assert int(K.argmin.dask(x).compute()) == 123 == K.argmin(a)
        a[:] = 5                      # all equal: the first element
        assert int(K.argmin.dask(da.from_array(a, chunks=37)).compute()) == 0


def test_elementwise_and_stencil_blocks():
    rng = np.random.default_rng(3)
    a = rng.integers(-100, 100, size=777).astype(np.int32)
    b = rng.integers(-100, 100, size=777).astype(np.int32)
    chunks = _chunks(rng, a.size, 6)
    x, y = da.from_array(a, chunks=(chunks,)), da.from_array(b, chunks=(chunks,))
    with dask.config.set(scheduler="synchronous"):
        _same(K.scale.dask(x, y, 3).compute(), K.scale(a, b, 3))
        r = K.blur.dask(x)
        _same(r.compute(), K.blur(a))
    # no task reads more than its block plus the halo of 1
    overlap = [k for k in r.dask.layers if "overlap" in str(k)]
    assert overlap


def test_float_sums_need_opt_in():
    a = np.random.default_rng(4).standard_normal(600)
    x = da.from_array(a, chunks=100)
    with pytest.raises(CompileError, match="float_reassociation=True"):
        K.fsum.dask(x)
    with dask.config.set(scheduler="synchronous"):
        got = float(K.mean.dask(x, float_reassociation=True).compute())
    assert got == pytest.approx(K.mean(a), rel=1e-12)


def test_unproven_operator_refused_before_graph():
    x = da.from_array(np.arange(100, dtype=np.int64), chunks=10)
    with pytest.raises(CompileError, match="cannot be split into blocks"):
        K.unproven.dask(x)


@pytest.mark.parametrize("chunk, split_every", [(5, 2), (3, 3), (7, 8)])
def test_non_commutative_matrix_product_keeps_block_order(chunk, split_every):
    """The 2x2 integer matrix product (synthesized: a polynomial operator, not
    commutative) merged in block order equals the one-machine result."""
    a = np.random.default_rng(chunk).integers(-3, 4, (20, 4)).astype(np.int64)
    got = K.matprod.dask(da.from_array(a, chunks=(chunk, 4)), split_every=split_every)
    exp = K.matprod(a)
    assert [int(g.compute(scheduler="synchronous")) for g in got] == [int(e) for e in exp]


def test_bad_inputs():
    a = np.arange(100, dtype=np.int32)
    x = da.from_array(a, chunks=10)
    with pytest.raises(TypeError, match="dask.array.Array"):
        K.total.dask(a)
    with pytest.raises(ValueError, match="chunked differently"):
        K.dot.dask(x, da.from_array(a, chunks=25))
    with pytest.raises(TypeError, match="from_array"):
        K.dot.dask(x, a)
    nan = x[x > 50]
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        K.total.dask(nan)


def test_scan_result_is_carried_across_blocks():
    # an update reading out[i - 1]: the block's first element depends on every earlier
    # block; the blocks' rows are carried by cumreduction (test_dask_scan.py)
    a = np.arange(1, 301, dtype=np.int64)
    got = K.prefix.dask(da.from_array(a, chunks=50)).compute(scheduler="synchronous")
    assert np.array_equal(got, K.prefix(a)) and got.dtype == K.prefix(a).dtype


def test_updates_after_the_reduction_apply_once():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 16, size=500).astype(np.int32)
    x = da.from_array(a, chunks=(60,))
    with dask.config.set(scheduler="synchronous"):
        _same(K.hist_doubled.dask(x).compute(), K.hist_doubled(a))
        # the initial value counts once, not once per block
        s0 = np.int32(1000)
        _same(K.sum_from.dask(x, s0).compute(), np.asarray(K.sum_from(a, s0)))


def test_empty_and_single_blocks():
    a = np.array([5, -2, 7, -2, 9], np.int32)
    for chunks in [(5,), (1, 1, 1, 1, 1), (1, 4), (4, 1)]:
        x = da.from_array(a, chunks=(chunks,))
        with dask.config.set(scheduler="synchronous"):
            assert int(K.argmin.dask(x).compute()) == K.argmin(a) == 1
            _same(K.total.dask(x).compute(), np.asarray(K.total(a)))


def test_scatter_without_two_sided_identity_refused():
    # "last write wins" into bins: a block that writes no element of a bin would
    # leave the identity there and overwrite the earlier blocks' value
    a = np.array([1, 2, 3, 1, 5, 2, 7, 7], np.int32)
    with pytest.raises(CompileError, match="no two-sided identity"):
        K.last_position.dask(da.from_array(a, chunks=3))


def test_conditional_update_without_two_sided_identity_refused():
    # a block where no a[i] > 5 would give the identity, merged after the earlier
    # blocks' last index (it computed 0 where Python returns 1)
    a = np.array([1, 9, 3, 1, 5, 2, 0, 1], np.int32)
    with pytest.raises(CompileError, match="no two-sided identity"):
        K.last_big.dask(da.from_array(a, chunks=3))


def test_pairs_across_blocks_refused():
    # i and j both run along the chunked axis: a block would see only its own pairs
    a = np.arange(1, 21, dtype=np.int64)
    x = da.from_array(a, chunks=5)
    with pytest.raises(CompileError, match="elements of different blocks"):
        K.pair_sum.dask(x, x)
    with dask.config.set(scheduler="synchronous"):     # one block: nothing to pair across
        one = da.from_array(a, chunks=20)
        _same(K.pair_sum.dask(one, one).compute(), np.asarray(K.pair_sum(a, a)))


def test_blocks_read_their_chunk_plus_the_halo(monkeypatch):
    # the overlap is the halo bounds inference reports: 1 element each side for
    # a 3-point stencil, 2 for a 5-point one; the array's own edges get none
    seen = []
    real = da.overlap.overlap

    def recording(x, depth, boundary):
        seen.append((dict(depth), boundary))
        return real(x, depth=depth, boundary=boundary)

    monkeypatch.setattr(da.overlap, "overlap", recording)
    a = np.arange(400, dtype=np.int32) % 17
    x = da.from_array(a, chunks=50)
    r = K.blur.dask(x)
    assert seen == [({0: 1}, "none")]
    with dask.config.set(scheduler="synchronous"):
        _same(r.compute(), K.blur(a))
    seen.clear()
    r = K.scale.dask(x, x, 2)          # element-wise: no overlap at all
    assert seen == []


def test_array_and_reduction_results_together():
    # the reduction is split into blocks; the array comes from the final task
    a = np.arange(100, dtype=np.int32) % 7
    with dask.config.set(scheduler="synchronous"):
        got = dask.compute(K.doubled_and_total.dask(da.from_array(a, chunks=30)))[0]
    _same(tuple(np.asarray(g) for g in got),
          tuple(np.asarray(w) for w in K.doubled_and_total(a)))


def test_two_dimensional_blocks():
    rng = np.random.default_rng(11)
    img = rng.integers(0, 16, size=(37, 53)).astype(np.int32)
    with dask.config.set(scheduler="synchronous"):
        for chunks in [(10, 20), (37, 7), (5, 53)]:
            x = da.from_array(img, chunks=chunks)
            _same(K.hist2d.dask(x, split_every=2).compute(), K.hist2d(img))
        # argmin's identity is one-sided: a block starts with its first value, folded
        # again (op(x, x) == x); it does not commute: rows may be split, columns not
        for chunks in [(6, 53), (37, 53), (1, 53)]:
            x = da.from_array(img, chunks=chunks)
            got = dask.compute(K.argmin2d.dask(x))[0]
            assert tuple(int(v) for v in got) == K.argmin2d(img)
        with pytest.raises(CompileError, match="does not commute"):
            K.argmin2d.dask(da.from_array(img, chunks=(10, 20)))
