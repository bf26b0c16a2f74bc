"""Dask arrays with chunks of size 0, against plain Python on the NumPy array.

Element-wise work over any chunking and stencils over empty chunks at the
start, middle or end give Python's values: empty chunks are merged away
before the blocks and their halos are made (the halo crosses them), and the
halo is probed on the middle, first and last nonempty blocks."""
import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

import pyhalide as ph  # noqa: E402
import tests.dask.kernels as K  # noqa: E402  (after the importorskip)

_X = np.arange(10.0)


@ph.pipeline
def blur2d(a):
    out = np.zeros_like(a)
    for i in range(1, a.shape[0] - 1):
        for j in range(1, a.shape[1] - 1):
            out[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1] - a[i, j]
    return out


@pytest.mark.parametrize("chunks", [(0, 5, 0, 5), (5, 0, 5), (10, 0)])
def test_elementwise_over_empty_chunks(chunks):
    d = da.from_array(_X, chunks=(chunks,))
    got = dask.compute(K.scale.dask(d, d, 2.0))[0]
    assert np.array_equal(got, K.scale.py_func(_X, _X, 2.0))


@pytest.mark.parametrize("chunks", [(10, 0), (0, 10)])
def test_stencil_with_empty_chunk_at_an_end(chunks):
    d = da.from_array(_X, chunks=(chunks,))
    assert np.array_equal(dask.compute(K.blur.dask(d))[0], K.blur.py_func(_X))


@pytest.mark.parametrize("chunks", [(5, 0, 5), (3, 0, 0, 7), (0, 5, 0, 5, 0), (4, 0, 1, 0, 5),
                                    (1, 0, 9), (9, 0, 1)])
def test_stencil_across_an_empty_chunk(chunks):
    d = da.from_array(_X, chunks=(chunks,))
    got = K.blur.dask(d)
    assert got.chunks == d.chunks
    assert np.array_equal(dask.compute(got)[0], K.blur.py_func(_X))


@pytest.mark.parametrize("chunks", [(9, 1), (1, 9), (2, 8)])
def test_stencil_whose_first_or_last_block_reads_further(chunks):
    # the loop range(1, n - 1) makes the first and last blocks' halos differ
    # from the middle one's
    d = da.from_array(_X, chunks=(chunks,))
    assert np.array_equal(dask.compute(K.blur.dask(d))[0], K.blur.py_func(_X))


@pytest.mark.parametrize("chunks", [((3, 0, 3), (4, 4)), ((6,), (4, 0, 4)),
                                    ((3, 0, 3), (0, 4, 0, 4, 0)), ((6, 0), (8, 0))])
def test_2d_stencil_over_empty_chunks(chunks):
    a = np.arange(48).reshape(6, 8) % 5
    d = da.from_array(a, chunks=chunks)
    got = blur2d.dask(d)
    assert got.chunks == d.chunks
    assert np.array_equal(dask.compute(got)[0], blur2d.py_func(a))


@pytest.mark.parametrize("chunks", [(0, 10), (10, 0), (5, 0, 5), (2, 2, 0, 2, 2, 2)])
def test_reductions_and_scans_over_empty_chunks(chunks):
    x = np.arange(10) * 3 - 7
    d = da.from_array(x, chunks=(chunks,))
    for f in (K.total, K.argmin, K.running_sum):
        got = dask.compute(f.dask(d))[0]
        assert np.array_equal(got, f.py_func(x)), f.__name__


@ph.pipeline
def diff_pad(a):
    out = np.zeros_like(a)
    out[1:] = a[1:] - a[:-1]
    return out


@pytest.mark.parametrize("chunks", [(3, 3, 4), (3, 0, 0, 7), (9, 0, 1), (2, 2, 0, 2, 2, 2)])
def test_slice_write_at_a_size_dependent_start(chunks):
    # `out[1:]` writes at min(1, n) + r: each block runs its own points of the
    # update (it read the whole array before: a false "rechunk" refusal)
    x = np.arange(10.0) ** 2
    d = da.from_array(x, chunks=(chunks,))
    assert np.array_equal(dask.compute(diff_pad.dask(d))[0], diff_pad.py_func(x))
