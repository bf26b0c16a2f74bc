"""Pipeline.dask on Func-API reductions (pyhalide.dask_funcs_reduce): the
rfactor decomposition with Dask's blocks as the slices equals the one-machine
realize, bit for bit for integers, for random chunkings and split_every."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from pyhalide.errors import CompileError  # noqa: E402

from . import funcapi_kernels as FK  # noqa: E402


def _chunks(rng, n):
    """A random chunking of n (some chunks of 1)."""
    cuts = sorted(set(rng.integers(1, n, rng.integers(1, 9)).tolist()))
    edges = [0, *cuts, n]
    return tuple(b - a for a, b in zip(edges, edges[1:]))


def _realize(p, img, data, sizes=()):
    img.set(data)
    out = p.realize(list(sizes))
    return tuple(np.asarray(o) for o in out) if isinstance(out, (list, tuple)) else np.asarray(out)


def _same(got, want):
    if isinstance(want, tuple):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want))
    return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("seed, split_every", [(0, 2), (1, 3), (2, 8)])
def test_sum_histogram_argmin_random_chunkings(seed, split_every):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 300))
    data = rng.integers(-4, 20, n).astype(np.int32)     # many ties for argmin
    x = da.from_array(data, chunks=(_chunks(rng, n),))
    for make, sizes in ((FK.total, ()), (FK.histogram, (16,)), (FK.argmin, ())):
        p, a = make()
        want = _realize(p, a, data, sizes)
        a.set(np.zeros(1, np.int32))      # the graph reads the dask array, not this
        got = dask.compute(p.dask({a: x}, sizes=list(sizes) or None,
                                  split_every=split_every), scheduler="synchronous")[0]
        got = tuple(np.asarray(g) for g in got) if isinstance(got, tuple) else np.asarray(got)
        assert _same(got, want), (make.__name__, x.chunks)


def test_argmin_ties_resolve_to_lowest_global_index():
    data = np.full(100, 7, np.int32)
    data[[13, 40, 41, 90]] = -3
    p, a = FK.argmin()
    value, index = dask.compute(*p.dask({a: da.from_array(data, chunks=9)}),
                                scheduler="threads")
    assert int(value) == -3 and int(index) == 13


@pytest.mark.parametrize("chunks", [((10, 25, 7, 18), (4, 9, 1, 23)), ((60,), (37,)),
                                    ((1,) * 5 + (55,), (20, 17))])
def test_2d_sum_over_2d_blocks(chunks):
    rng = np.random.default_rng(len(chunks[0]))
    data = rng.integers(-1000, 1000, (60, 37)).astype(np.int32)
    p, img = FK.total2d()
    want = _realize(p, img, data)
    got = p.dask({img: da.from_array(data, chunks=chunks)}).compute(scheduler="synchronous")
    assert _same(got, want)


@pytest.mark.parametrize("chunk, split_every", [(5, 2), (3, 3), (7, 8)])
def test_non_commutative_matrix_product_keeps_block_order(chunk, split_every):
    m = np.random.default_rng(chunk).integers(-3, 4, (20, 4)).astype(np.int64)
    p, img = FK.matprod()
    want = _realize(p, img, m)
    got = dask.compute(*p.dask({img: da.from_array(m, chunks=(chunk, 4))},
                               split_every=split_every), scheduler="synchronous")
    assert _same(tuple(np.asarray(g) for g in got), want)


def test_matrix_product_refused_when_columns_are_chunked():
    # its columns are read at constants, not at a loop variable: a block of columns
    # does not hold its points' reads
    p, img = FK.matprod()
    m = np.ones((20, 4), np.int64)
    with pytest.raises(CompileError, match="rechunk m to one block along axis 1"):
        p.dask({img: da.from_array(m, chunks=(5, 2))})


def test_output_computed_from_a_scalar_reduction():
    data = np.random.default_rng(5).integers(-300, 300, 500).astype(np.int32)
    p, a = FK.mean_of_squares()
    want = _realize(p, a, data)
    got = p.dask({a: da.from_array(data, chunks=64)}).compute(scheduler="threads")
    assert _same(got, want)


def test_float_sum_needs_opt_in_and_unproven_is_refused():
    data = np.random.default_rng(6).random(300).astype(np.float32)
    p, a = FK.fsum()
    x = da.from_array(data, chunks=50)
    with pytest.raises(CompileError, match="float_reassociation"):
        p.dask({a: x})
    got = p.dask({a: x}, float_reassociation=True).compute(scheduler="synchronous")
    want = _realize(p, a, data)
    assert got.dtype == want.dtype
    assert abs(float(got) - float(want)) <= 1e-5 * np.abs(data).sum()
    p, a = FK.unproven()
    with pytest.raises(CompileError, match="cannot be split into blocks"):
        p.dask({a: da.from_array(np.arange(10), chunks=5)})


def test_array_output_without_sizes_is_refused():
    p, a = FK.histogram()
    x = da.from_array(np.arange(100, dtype=np.int32), chunks=10)
    # a 1-D output of a 1-D input without sizes is computed block by block: its
    # blocks read the whole input (the RDom), refused when the graph is built
    with pytest.raises(ValueError, match="beyond it.*give the output's sizes"):
        p.dask({a: x})
    with pytest.raises(CompileError, match="sizes"):
        p.dask({a: x}, sizes=[16, 2])


@pytest.mark.slow          # a process pool per call (the threaded scheduler: default run)
def test_process_scheduler():
    data = np.random.default_rng(8).integers(0, 16, 4000).astype(np.int32)
    p, a = FK.histogram()
    want = _realize(p, a, data, (16,))
    got = p.dask({a: da.from_array(data, chunks=500)}, sizes=[16]).compute(
        scheduler="processes", num_workers=2)
    assert _same(got, want)


def test_two_inputs_and_bad_inputs():
    rng = np.random.default_rng(9)
    xa = rng.integers(-100, 100, 400).astype(np.int32)
    xb = rng.integers(-100, 100, 400).astype(np.int32)
    p, a, b = FK.dot()
    a.set(xa)
    b.set(xb)
    want = np.asarray(p.realize([]))
    got = p.dask({a: da.from_array(xa, chunks=61), b: da.from_array(xb, chunks=61)})
    assert _same(got.compute(scheduler="synchronous"), want)
    # chunkings that do not align, a NumPy array, unknown chunk sizes: errors
    with pytest.raises(ValueError, match="differ in shape or chunks"):
        p.dask({a: da.from_array(xa, chunks=61), b: da.from_array(xb, chunks=50)})
    with pytest.raises(TypeError, match="dask.array.from_array"):
        p.dask({a: da.from_array(xa, chunks=61), b: xb})
    x = da.from_array(xa, chunks=61)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        p.dask({a: x[x > 0], b: x[x > 0]})
