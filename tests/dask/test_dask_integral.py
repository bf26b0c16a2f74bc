"""An integral image (a scan along each axis of one array) chunked in both
axes, in one function (pyhalide/dask_scan.py: the scan one scan reads is a
dask array of its own, Feed): integers equal NumPy's cumsums bit for bit for
random chunkings (chunks of 1 and empty chunks included)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from . import funcapi_kernels as FK  # noqa: E402
from . import kernels as K  # noqa: E402

# (one block per axis, and empty chunks only beside one block: the row scan is
# still read one point back, before 0 too; these raised OutsideWindow once)
CHUNKS = [((10, 16), (6, 6, 7)), ((1, 25), (1, 18)), ((5, 0, 21), (9, 0, 10)),
          ((26,), (4, 15)), ((13, 13), (19,)), ((26,), (19,)), ((0, 26), (0, 0, 19, 0))]


def _integral(a):
    return np.cumsum(np.cumsum(a, 1), 0)


# the default run keeps the loop form; the cumsum and carried forms are `slow`
@pytest.mark.parametrize("kernel", [pytest.param("integral_cumsum", marks=pytest.mark.slow),
                                    pytest.param("integral_acc", marks=pytest.mark.slow),
                                    "integral"])
def test_pipeline_integral_image_chunked_in_both_axes(kernel):
    fn = getattr(K, kernel)
    a = np.random.default_rng(len(kernel)).integers(-99, 99, (26, 19)).astype(np.int64)
    want = fn(a)
    assert np.array_equal(want, _integral(a))
    for chunks in CHUNKS:
        got = fn.dask(da.from_array(a, chunks=chunks)).compute(scheduler="synchronous")
        assert got.dtype == want.dtype and np.array_equal(got, want), chunks


def test_pipeline_integral_image_wraps_as_one_machine():
    # int32 sums that overflow: the blocks' carries wrap exactly as the serial loops
    a = np.random.default_rng(1).integers(2**28, 2**30, (12, 11)).astype(np.int32)
    want = K.integral_acc(a)
    got = K.integral_acc.dask(da.from_array(a, chunks=(5, 4))).compute(scheduler="threads")
    assert np.array_equal(got, want)


@pytest.mark.slow
def test_three_scans_along_three_chunked_axes():
    a = np.random.default_rng(2).integers(-9, 9, (7, 6, 9)).astype(np.int64)
    want = K.cumsum3(a)
    assert np.array_equal(want, np.cumsum(np.cumsum(np.cumsum(a, 0), 1), 2))
    # (the second: only the first scan's axis chunked, a scan fed to a fed scan)
    for chunks in ((3, (1, 5), 4), ((3, 4), 6, 9), ((7,), (6,), (4, 0, 5))):
        got = K.cumsum3.dask(da.from_array(a, chunks=chunks)).compute(scheduler="synchronous")
        assert np.array_equal(got, want), chunks


@pytest.mark.parametrize("one_func", [False, True])
def test_funcapi_integral_image_in_one_pipeline(one_func):
    p, img = FK.integral_one_pipeline(one_func)
    a = np.random.default_rng(3).integers(0, 256, (21, 17)).astype(np.int64)
    img.set(a)
    want = np.asarray(p.realize([17, 21]))
    assert np.array_equal(want, _integral(a))
    for chunks in (((8, 13), (5, 12)), (4, 6), ((1, 20), (16, 1))):
        got = p.dask({img: da.from_array(a, chunks=chunks)}).compute(scheduler="synchronous")
        assert np.array_equal(got, want), chunks
