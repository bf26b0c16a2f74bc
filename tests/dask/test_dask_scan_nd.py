"""Scans along one axis of N-d arrays on Dask (pyhalide/dask_scan.py): rows
per block, carried per line by dask.array.cumreduction along the scan's axis;
the other axes are chunked freely. Integer results equal the one-machine
realize or call bit for bit."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from pyhalide.errors import CompileError  # noqa: E402

from . import funcapi_kernels as FK  # noqa: E402
from . import kernels as K  # noqa: E402

CHUNKS_2D = [((10, 13), (40,)), ((23,), (9, 9, 22)), ((7, 1, 15), (13, 1, 26)),
             ((23,), (40,)), ((5, 0, 18), (20, 20))]


def _realize(p, img, a):
    img.set(a)
    return np.asarray(p.realize(list(a.shape[::-1])))


@pytest.mark.parametrize("dim, op", [(0, "sum"), pytest.param(1, "sum", marks=pytest.mark.slow),
                                     pytest.param(0, "max", marks=pytest.mark.slow),
                                     (1, "affine")])
def test_2d_scans_random_chunkings(dim, op):
    rng = np.random.default_rng(dim * 7 + len(op))
    a = rng.integers(-100, 100, (23, 40)).astype(np.int32)
    p, img = FK.scan_along(dim, 2, op)
    want = _realize(p, img, a)
    for chunks in CHUNKS_2D:
        got = p.dask({img: da.from_array(a, chunks=chunks)}).compute(scheduler="synchronous")
        assert got.dtype == want.dtype and np.array_equal(got, want), chunks


def test_3d_scan_along_the_middle_axis():
    a = np.random.default_rng(3).integers(-9, 9, (6, 11, 5)).astype(np.int32)
    p, img = FK.scan_along(1, 3)
    want = _realize(p, img, a)
    got = p.dask({img: da.from_array(a, chunks=(4, 3, 2))}).compute(scheduler="threads")
    assert np.array_equal(got, want)


def test_integral_image_in_two_stages_one_graph():
    a = np.random.default_rng(4).integers(0, 256, (37, 29)).astype(np.int64)
    p1, img, p2, mid = FK.integral_stages()
    x = da.from_array(a, chunks=(10, 8))
    got = p2.dask({mid: p1.dask({img: x})}).compute(scheduler="threads")
    assert np.array_equal(got, np.cumsum(np.cumsum(a, 1), 0))


def test_pipeline_row_scan_chunked_along_its_axis():
    a = np.random.default_rng(5).integers(-50, 50, (12, 31)).astype(np.int64)
    want = K.row_cumsum(a)
    for chunks in (((12,), (31,)), ((5, 7), (4, 27)), ((1,) * 12, (10, 10, 11))):
        got = K.row_cumsum.dask(da.from_array(a, chunks=chunks)).compute(scheduler="synchronous")
        assert got.dtype == want.dtype and np.array_equal(got, want), chunks


def test_float_2d_scan_needs_opt_in():
    import pyhalide as ph
    a = np.random.default_rng(6).random((9, 14)).astype(np.float64)
    p, img = FK.scan_along(1, 2, "sum", ph.Float(64))
    x = da.from_array(a, chunks=(4, 5))
    with pytest.raises(CompileError, match="float_reassociation"):
        p.dask({img: x})
    got = p.dask({img: x}, float_reassociation=True).compute(scheduler="synchronous")
    assert np.allclose(got, np.cumsum(a, 0), rtol=1e-12, atol=0)


def test_pipeline_integral_image_chunked_along_rows():
    # the column scan (the last loop) is split into blocks of rows and carried; its
    # rows come from the row scan inside each block
    a = np.random.default_rng(7).integers(0, 256, (26, 19)).astype(np.int64)
    want = K.integral(a)
    assert np.array_equal(want, np.cumsum(np.cumsum(a, 1), 0))
    for rows in ((26,), (9, 9, 8), (1, 20, 5)):
        got = K.integral.dask(da.from_array(a, chunks=(rows, 19))).compute(scheduler="threads")
        assert np.array_equal(got, want), rows


def test_pipeline_integral_image_with_chunked_columns():
    # the column scan's blocks read the row scan (the array's earlier update) from
    # its own dask array (test_dask_integral.py has the other forms)
    a = np.random.default_rng(9).integers(-5, 5, (20, 18)).astype(np.int64)
    got = K.integral.dask(da.from_array(a, chunks=(10, 6))).compute(scheduler="synchronous")
    assert np.array_equal(got, np.cumsum(np.cumsum(a, 1), 0))


def test_unsplittable_2d_scan_runs_in_blocks_along_its_other_axis():
    # s = s * s + x has no parallel scan: with its scan axis in one block it is
    # computed block by block; chunked along that axis, it is refused with the reason
    a = np.random.default_rng(8).integers(-3, 3, (12, 9)).astype(np.int32)
    p, img = FK.scan_along(0, 2, "square")
    want = _realize(p, img, a)
    got = p.dask({img: da.from_array(a, chunks=(5, 9))}).compute(scheduler="synchronous")
    assert np.array_equal(got, want)
    with pytest.raises(CompileError, match="cannot be split into blocks"):
        p.dask({img: da.from_array(a, chunks=(5, 4))})


def test_outputs_reading_a_scan():
    # Pipeline([S, G]) with G = 2 S: the scan's plan used to restrict S's update
    # (to a block) on the copy G's blocks were computed from, so G came out as 2 a
    # (a wrong result); now the scan has a copy of its own, and G, a Func reading
    # the scan, is carried as the scan is (its rows, then G per block)
    p, a = FK.scan_and_double()
    data = np.random.default_rng(10).integers(-50, 50, 40).astype(np.int32)
    a.set(data)
    want = [np.asarray(o) for o in p.realize([40])]
    for chunks in (5, 40, (1, 13, 26)):
        got = dask.compute(*p.dask({a: da.from_array(data, chunks=chunks)}),
                           scheduler="synchronous")
        assert all(np.array_equal(g, w) for g, w in zip(got, want)), chunks
    p, a = FK.scan_difference()          # reads the scan one point back
    a.set(data)
    want = np.asarray(p.realize([40]))
    assert np.array_equal(want, np.concatenate([[0], data[1:]]))
    got = p.dask({a: da.from_array(data, chunks=(7, 1, 32))}).compute(scheduler="threads")
    assert np.array_equal(got, want)


@pytest.mark.parametrize("dim", [0, 1])
def test_outputs_reading_an_nd_scan(dim):
    # G = 2 S + 1 reads a 2-D scan at its own point, D = S - S one point back
    # along the scan's dimension: carried as the scan is, the blocks of either
    # axis chunked
    p, img = FK.scan_nd_readers(dim)
    a = np.random.default_rng(11 + dim).integers(-50, 50, (23, 17)).astype(np.int32)
    img.set(a)
    want = [np.asarray(o) for o in p.realize([17, 23])]
    for chunks in ((5, 4), ((1, 22), (16, 1)), (23, (8, 9))):
        got = dask.compute(*p.dask({img: da.from_array(a, chunks=chunks)}),
                           scheduler="synchronous")
        assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want)), chunks
