"""Pipeline.dask({image_param: dask_array}): a Func-API pipeline computed
block by block (with the halo bounds inference gives) equals the one-machine
realize (pyhalide.dask_funcs)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")

from . import funcapi_kernels as FK  # noqa: E402


@pytest.mark.parametrize("chunks", [(20, 30), (57, 9), (5, 83), (57, 83)])
def test_stencil_blocks_equal_realize(chunks):
    p, inp, k = FK.blur3x3(3)
    a = np.random.default_rng(0).integers(-1000, 1000, (57, 83)).astype(np.int32)
    inp.set(a)
    want = np.asarray(p.realize([83, 57]))
    r = p.dask({inp: da.from_array(a, chunks=chunks)})
    k.set(5)            # the Params' values are taken when the graph is built
    got = r.compute(scheduler="synchronous")
    assert got.dtype == want.dtype and np.array_equal(got, want)
    k.set(3)
    # the user's Funcs are not rewritten: the one-machine realize is unchanged
    assert np.array_equal(np.asarray(p.realize([83, 57])), want)


def test_halo_from_bounds_inference(monkeypatch):
    seen = []
    real = da.overlap.overlap

    def recording(x, depth, boundary):
        seen.append(dict(depth))
        return real(x, depth=depth, boundary=boundary)

    monkeypatch.setattr(da.overlap, "overlap", recording)
    p, inp, _ = FK.blur3x3(1)
    a = np.arange(40 * 50, dtype=np.int32).reshape(40, 50) % 97
    p.dask({inp: da.from_array(a, chunks=(10, 10))})
    assert seen == [{0: 1, 1: 1}]


def test_tuple_output_and_two_outputs():
    p, a, b = FK.sum_and_diff()
    rng = np.random.default_rng(1)
    xa = rng.integers(-10**12, 10**12, 300)
    xb = rng.integers(-10**12, 10**12, 300)
    a.set(xa)
    b.set(xb)
    want = [np.asarray(w) for w in p.realize(300)]      # f's two elements, then g
    got = p.dask({a: da.from_array(xa, chunks=70), b: da.from_array(xb, chunks=70)})
    (f0, f1), g = dask.compute(*got, scheduler="threads")
    assert len(want) == 3
    for got_one, want_one in zip((f0, f1, g), want):
        assert got_one.dtype == want_one.dtype and np.array_equal(got_one, want_one)


@pytest.mark.slow          # a process pool per call (the threaded scheduler: default run)
def test_process_scheduler():
    p, inp, _ = FK.blur3x3(2)
    a = np.random.default_rng(2).integers(0, 255, (30, 40)).astype(np.int32)
    inp.set(a)
    want = np.asarray(p.realize([40, 30]))
    got = p.dask({inp: da.from_array(a, chunks=(10, 40))}).compute(scheduler="processes",
                                                                  num_workers=2)
    assert np.array_equal(got, want)


def test_bad_inputs_and_unbounded_reads():
    p, inp, _ = FK.blur3x3(1)
    a = np.zeros((10, 10), np.int32)
    with pytest.raises(TypeError, match="ImageParam"):
        p.dask({inp: a})
    with pytest.raises(TypeError, match="2-D int32"):
        p.dask({inp: da.from_array(a.astype(np.int64), chunks=5)})
    p, a = FK.gather()
    x = da.from_array(np.arange(100, dtype=np.int32), chunks=10)
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        p.dask({a: x[x > 5]})
    # a data-dependent read of the chunked input: bounds inference needs the whole
    # clamp range, so a block would read the whole array (the first block 90 elements past
    # its end): refused when the graph is built
    with pytest.raises(ValueError, match="reads 90 elements beyond it"):
        p.dask({a: x})
