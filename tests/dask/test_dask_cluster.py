"""fn.dask on a process-based distributed.LocalCluster (2 workers) and on
Dask's process scheduler: workers compile the functions from their pickled
definitions and compute what one machine computes. The default run keeps the
cluster's reductions, blocks, scans and issue 22's Checked-by line; the process
scheduler, a worker's death, the integral image and the Func-API pipelines on the
cluster are `slow` (their threaded-scheduler versions are in the default run:
test_dask_integral.py, test_dask_funcapi*.py)."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

from . import kernels as K  # noqa: E402


@pytest.fixture(scope="module")
def client():
    """Two worker processes sharing the run's object cache (tests/conftest.py):
    each still rebuilds and lowers every function from its pickled definition,
    and loads the machine code this process or the other worker compiled from the
    same IR instead of compiling it again."""
    from pyhalide.ir.config import config
    with pytest.MonkeyPatch.context() as env:
        env.setenv("PYHALIDE_CACHE_DIR", config.cache_dir or "0")
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


# run on the workers by a builtin (the workers do not import this test module)
_COUNT_RESTORED = "len(__import__('pyhalide.dask_pickle', fromlist=['_']).__dict__['_restored'])"


def test_cluster_reductions_and_blocks(client):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 16, size=20000).astype(np.int32)
    x = da.from_array(a, chunks=1000)
    with distributed.get_task_stream(client) as ts:
        h, i, b = dask.compute(K.hist.dask(x, split_every=3), K.argmin.dask(x),
                               K.blur.dask(x))
    assert np.array_equal(h, K.hist(a)) and h.dtype == K.hist(a).dtype
    assert int(i) == K.argmin(a)
    assert np.array_equal(b, K.blur(a))
    workers = {t["worker"] for t in ts.data if "_task" in str(t["key"])}
    assert len(workers) == 2           # both workers ran blocks
    # each worker rebuilt the functions from their definitions (no machine code moved)
    assert all(n >= 1 for n in client.run(eval, _COUNT_RESTORED).values())


def test_cluster_checked_by(client):
    # issue 22's first "Checked by" line on the process-based cluster: integer
    # results bit-identical for random chunkings and split_every 2, 3, 8; argmin
    # ties to the lowest global index; the 2x2 matrix product in block order; a
    # stencil; an unproven operator refused before any graph is built
    from pyhalide.errors import CompileError
    rng = np.random.default_rng(12)
    a = rng.integers(-9, 9, 3000).astype(np.int32)
    a[[700, 1900, 2999]] = -50                  # argmin ties in different blocks
    bins = a & 15
    m = rng.integers(-3, 4, (40, 4)).astype(np.int64)
    for split_every in (2, 3, 8):
        cuts = np.sort(rng.choice(np.arange(1, 3000), 9, replace=False))
        chunks = tuple(np.diff(np.concatenate([[0], cuts, [3000]])).tolist())
        x, xb = da.from_array(a, chunks=(chunks,)), da.from_array(bins, chunks=(chunks,))
        mx = da.from_array(m, chunks=(int(rng.integers(2, 9)), 4))
        t, h, i, b, mp = dask.compute(K.total.dask(x, split_every=split_every),
                                      K.hist.dask(xb, split_every=split_every),
                                      K.argmin.dask(x, split_every=split_every),
                                      K.blur.dask(x),
                                      K.matprod.dask(mx, split_every=split_every))
        assert int(t) == K.total(a) and np.array_equal(h, K.hist(bins)) and \
            h.dtype == K.hist(bins).dtype, chunks
        assert int(i) == K.argmin(a) == 700
        assert np.array_equal(b, K.blur(a)) and b.dtype == K.blur(a).dtype
        assert [int(v) for v in mp] == [int(v) for v in K.matprod(m)]
    with pytest.raises(CompileError, match="cannot be split into blocks"):
        K.unproven.dask(da.from_array(a.astype(np.int64), chunks=300))


@pytest.mark.slow
def test_process_scheduler():
    a = np.arange(5000, dtype=np.int64) % 1009 - 500
    x = da.from_array(a, chunks=700)
    got = K.total.dask(x).compute(scheduler="processes", num_workers=2)
    assert got == K.total(a)


def test_threaded_scheduler():
    a = (np.arange(3000, dtype=np.int32) * 31) % 16
    x = da.from_array(a, chunks=250)
    got = dask.compute(K.hist.dask(x), K.scale.dask(x, x, 2), scheduler="threads")
    assert np.array_equal(got[0], K.hist(a))
    assert np.array_equal(got[1], K.scale(a, a, 2))


@pytest.mark.slow
def test_worker_death_is_retried(client, tmp_path):
    # a worker dies while it holds partial results of the histogram's blocks: Dask
    # recomputes them (on the other worker or the restarted one) and the result is
    # unchanged
    a = (np.arange(16000, dtype=np.int32) * 7) % 16
    x = da.from_array(a, chunks=1000)
    for _ in range(2):
        distributed.wait(client.compute(K.hist.dask(x)))     # both workers compiled
    from . import funcapi_kernels as FK
    p, img = FK.histogram()           # and a Func-API reduction in the same graph
    img.set(a)
    want_f = np.asarray(p.realize([16]))
    flag = tmp_path / "died"
    shaky = da.map_blocks(K.die_once, x, flag=str(flag), at=11, dtype=x.dtype)
    got, got_f = client.gather(client.compute([K.hist.dask(shaky),
                                               p.dask({img: shaky}, sizes=[16])]))
    assert flag.exists()                     # a worker did die
    assert np.array_equal(got, K.hist(a)) and got.dtype == K.hist(a).dtype
    assert np.array_equal(got_f, want_f) and got_f.dtype == want_f.dtype


@pytest.mark.slow
def test_cluster_scans(client):
    # scans along the chunked axis: rows per block on both workers, carried by
    # cumreduction (pyhalide/dask_scan.py)
    rng = np.random.default_rng(8)
    a = rng.integers(-50, 50, size=4000).astype(np.int32)
    g = rng.random(4000) < 0.01
    x, f = da.from_array(a, chunks=300), da.from_array(g, chunks=300)
    with distributed.get_task_stream(client) as ts:
        s, m = dask.compute(K.running_sum.dask(x), K.segmented_sum.dask(x, f))
    assert np.array_equal(s, K.running_sum(a)) and s.dtype == K.running_sum(a).dtype
    assert np.array_equal(m, K.segmented_sum(a, g))
    # (the rows tasks run fused with cumreduction's per-block step, named _same)
    workers = {t["worker"] for t in ts.data if "_same" in str(t["key"])}
    assert len(workers) == 2


@pytest.mark.slow
def test_cluster_integral_image_and_final_carry(client):
    # an integral image chunked in both axes in one function (its row scan a dask
    # array of its own) and a scan returned with its final carry, on the workers
    rng = np.random.default_rng(10)
    m = rng.integers(-50, 50, (60, 45)).astype(np.int64)
    a = rng.integers(-50, 50, 900).astype(np.int64)
    got, (s, acc) = dask.compute(K.integral_acc.dask(da.from_array(m, chunks=(16, 12))),
                                 K.cumsum_and_total.dask(da.from_array(a, chunks=100)))
    assert np.array_equal(got, np.cumsum(np.cumsum(m, 1), 0))
    want = K.cumsum_and_total(a)
    assert np.array_equal(s, want[0]) and acc == want[1] and acc.dtype == np.asarray(want[1]).dtype


@pytest.mark.slow
def test_cluster_funcapi_reduction_and_2d_scan(client):
    # Func-API pipelines on the workers, pickled by their definition: an argmin (the
    # rfactor decomposition, dask_funcs_reduce) and a scan along the chunked axis of
    # a 2-D image (rows per block carried per column by cumreduction)
    from . import funcapi_kernels as FK
    rng = np.random.default_rng(9)
    a = rng.integers(-20, 20, 6000).astype(np.int32)
    p, img = FK.argmin()
    img.set(a)
    want = tuple(np.asarray(v) for v in p.realize([]))
    got = dask.compute(*p.dask({img: da.from_array(a, chunks=700)}))
    assert [int(g) for g in got] == [int(w) for w in want]
    m = rng.integers(-50, 50, (120, 33)).astype(np.int32)
    p, img = FK.scan_along(1)
    img.set(m)
    want = np.asarray(p.realize([33, 120]))
    with distributed.get_task_stream(client) as ts:
        got = p.dask({img: da.from_array(m, chunks=(25, 11))}).compute()
    assert np.array_equal(got, want)
    assert len({t["worker"] for t in ts.data if "_same" in str(t["key"])}) == 2


@pytest.mark.slow
def test_example_demo(client):
    # examples/dask_demo.py (issue 22 item 5): each result equals the one-machine call
    # (the demo asserts it); ~50 s wall at load 16 (its parts are tested in the
    # default run: test_dask_pipeline, test_dask_multistage, test_dask_funcapi*,
    # test_dask_scan_nd)
    import pathlib
    import runpy
    path = pathlib.Path(__file__).parents[2] / "examples" / "dask_demo.py"
    demo = runpy.run_path(str(path), run_name="dask_demo_test")["demo"]
    demo(client, 12)
