"""A multi-stage pipeline as one Dask graph: histogram equalization, a
reduction (the histogram) feeding a small scan (its cumulative lookup table)
feeding a map over the blocks. A one-block dask array of another shape (the
earlier stage's result) goes whole to every task of the next stage."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import pyhalide as ph  # noqa: E402


@ph.pipeline
def hist256(a):
    h = np.zeros(256, np.int64)
    for i in range(a.shape[0]):
        h[a[i]] += 1
    return h


@ph.pipeline
def cdf_lut(h):
    n = 0
    for j in range(256):
        n += h[j]
    lut = np.empty(256, np.int64)
    c = 0
    for j in range(256):
        c += h[j]
        lut[j] = c * 255 // n
    return lut


@ph.pipeline
def apply_lut(a, lut):
    out = np.empty(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        out[i] = lut[a[i]]
    return out


def _equalize_graph(x):
    return apply_lut.dask(x, cdf_lut.dask(hist256.dask(x)))


@pytest.mark.parametrize("chunks", [700, 1250, 5000])
def test_histogram_equalization_one_graph(chunks):
    a = (np.random.default_rng(chunks).integers(0, 256, 5000) ** 2 // 256).astype(np.int32)
    want = apply_lut(a, cdf_lut(hist256(a)))
    x = da.from_array(a, chunks=chunks)
    eq = _equalize_graph(x)
    graph = dict(eq.__dask_graph__())
    # one graph: the histogram's block tasks (fused with the reduction's chunk step) and
    # its final task are in the equalization's graph
    assert any("keep" in str(k) for k in graph) and any("final_task" in str(k) for k in graph)
    for scheduler in ("synchronous", "threads"):
        got = eq.compute(scheduler=scheduler)
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_chunked_arguments_of_other_shapes_still_refused():
    a = np.arange(100, dtype=np.int32) % 7
    lut = da.from_array(np.arange(256, dtype=np.int64), chunks=64)     # several blocks
    with pytest.raises(ValueError, match="one shape"):
        apply_lut.dask(da.from_array(a, chunks=10), lut)
