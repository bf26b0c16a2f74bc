"""`return out, acc` on Dask: a scan and values computed from it (its final
carry) returned together (pyhalide/dask_tail.py): the scan is carried across
the blocks, the scalars come from one task holding the few elements of the
scan's dask array (and of the arguments) they read."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

import pyhalide.dask as phdask  # noqa: E402

from . import kernels as K  # noqa: E402


def _same(got, want):
    return len(got) == len(want) and all(
        np.asarray(g).dtype == np.asarray(w).dtype and np.array_equal(g, w)
        for g, w in zip(got, want))


@pytest.mark.parametrize("chunks", [9, 1, (0, 30, 7), 37])
def test_scan_and_its_final_carry(chunks):
    a = np.random.default_rng(0).integers(-50, 50, 37).astype(np.int64)
    want = K.cumsum_and_total(a)
    got = dask.compute(K.cumsum_and_total.dask(da.from_array(a, chunks=chunks)),
                       scheduler="synchronous")[0]
    assert _same(got, want)


def test_int32_carry_wraps_as_one_machine():
    a = np.random.default_rng(1).integers(2**29, 2**30, 40).astype(np.int32)
    want = K.cumsum_and_total(a)
    got = dask.compute(K.cumsum_and_total.dask(da.from_array(a, chunks=7)),
                       scheduler="threads")[0]
    assert _same(got, want)


def test_scalars_read_only_what_they_need(monkeypatch):
    # the one task computing the scalars holds the scan's last element and the
    # argument's elements 0-2 (best = a[0], a[2]; the lookup table, a NumPy
    # argument, goes whole), not the arrays
    a = np.random.default_rng(2).integers(-50, 50, 40).astype(np.int32)
    lut = np.arange(5, dtype=np.int32) * 7
    seen = []
    task = phdask._tail_task

    def spy(windows, **kw):
        seen.append({n: (start, b.shape) for n, (start, b) in windows.items()})
        return task(windows, **kw)

    monkeypatch.setattr(phdask, "_tail_task", spy)
    want = K.running_max_and_more(a, lut)
    got = dask.compute(K.running_max_and_more.dask(da.from_array(a, chunks=6), lut),
                       scheduler="synchronous")[0]
    assert _same(got, want)
    (windows,) = seen
    assert sorted(windows.values()) == [((0,), (3,)), ((39,), (1,))]


def test_empty_arrays():
    e = np.zeros(0, np.int64)
    want = K.cumsum_and_total(e)
    got = dask.compute(K.cumsum_and_total.dask(da.from_array(e, chunks=1)),
                       scheduler="synchronous")[0]
    assert len(got) == 2 and np.array_equal(got[0], want[0]) and got[1] == want[1]


def test_values_reading_more_than_a_block_are_refused():
    # a second loop over the whole argument beside the scan: its task would hold the
    # whole array (no task reads more than its block and halo): refused at build time
    from pyhalide.errors import CompileError
    a = np.arange(40, dtype=np.int64)
    with pytest.raises(CompileError, match="more than a block"):
        K.cumsum_and_sum.dask(da.from_array(a, chunks=10))
