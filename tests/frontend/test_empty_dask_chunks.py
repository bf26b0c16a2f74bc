"""Dask arrays with chunks of size 0, against plain Python on the NumPy array.

Element-wise work over any chunking, and a stencil whose empty chunk is at
an end, give Python's values. Open (strict xfail): a stencil over an empty
chunk between two others raises OutsideWindow (its halo would come from the
empty block's neighbours; found in session 17, also on main before it)."""
import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

import tests.dask.kernels as K  # noqa: E402  (after the importorskip)

_X = np.arange(10.0)


@pytest.mark.parametrize("chunks", [(0, 5, 0, 5), (5, 0, 5), (10, 0)])
def test_elementwise_over_empty_chunks(chunks):
    d = da.from_array(_X, chunks=(chunks,))
    got = dask.compute(K.scale.dask(d, d, 2.0))[0]
    assert np.array_equal(got, K.scale.py_func(_X, _X, 2.0))


@pytest.mark.parametrize("chunks", [(10, 0), (0, 10)])
def test_stencil_with_empty_chunk_at_an_end(chunks):
    d = da.from_array(_X, chunks=(chunks,))
    assert np.array_equal(dask.compute(K.blur.dask(d))[0], K.blur.py_func(_X))


@pytest.mark.xfail(strict=True, reason="false OutsideWindow: a stencil's halo across an "
                   "empty chunk between two others")
def test_stencil_across_an_empty_chunk():
    d = da.from_array(_X, chunks=((5, 0, 5),))
    assert np.array_equal(dask.compute(K.blur.dask(d))[0], K.blur.py_func(_X))
