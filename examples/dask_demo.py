"""@pipeline functions on Dask: a histogram, an argmin and a blur over a chunked
array (several blocks per worker) on a 2-worker LocalCluster, histogram
equalization as one graph, a Func-API blur and histogram (Pipeline.dask) and an
integral image (a scan along each axis of a 2-D array chunked in both), each compared
with the one-machine call; `--bench` measures a compute-bound reduction (the paper's
kitchen-sink loop) on 2 workers against 1, and the per-task overhead.

    python examples/dask_demo.py [--log2n 22] [--bench] [--bench-log2n 28] [--sessions]

Needs the dask extra: pip install "pyhalide[dask]".
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import pyhalide as ph

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "pipelines"))
from paper_reductions import kitchen_sink  # noqa: E402  (the paper's 8-valued loop)


@ph.pipeline
def histogram(a):
    h = np.zeros(256, np.int64)
    for i in range(a.shape[0]):
        h[a[i]] += 1
    return h


@ph.pipeline
def argmin(a):
    best = a[0]
    idx = 0
    for i in range(1, a.shape[0]):
        if a[i] < best:
            best = a[i]
            idx = i
    return idx


@ph.pipeline
def blur(a):
    out = np.zeros_like(a)
    for i in range(1, a.shape[0] - 1):
        out[i] = (a[i - 1] + 2 * a[i] + a[i + 1]) // 4
    return out


@ph.pipeline
def equalization_table(h):
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
def apply_table(a, lut):
    out = np.empty(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        out[i] = lut[a[i]]
    return out


def funcapi_blur():
    """A Func-API blur of a 1-D int32 ImageParam (clamped edges)."""
    x = ph.Var("x")
    inp = ph.ImageParam(ph.Int(32), 1, "inp")
    f = ph.Func("blur_f")
    n = inp.width()
    f[x] = (inp[ph.clamp(x - 1, 0, n - 1)] + 2 * inp[x] + inp[ph.clamp(x + 1, 0, n - 1)]) // 4
    f.vectorize(x, 8)
    return ph.Pipeline([f]), inp


def funcapi_histogram():
    """A Func-API histogram of a 1-D int32 ImageParam: a reduction (Pipeline.dask
    with sizes=[256])."""
    inp = ph.ImageParam(ph.Int(32), 1, "inp")
    r = ph.RDom([(0, inp.width())], "r")
    v = ph.Var("v")
    h = ph.Func("hist_f")
    h[v] = ph.i64(0)
    h[ph.clamp(inp[r], 0, 255)] += ph.i64(1)
    return ph.Pipeline([h]), inp


@ph.pipeline
def integral_image(a):
    return np.cumsum(np.cumsum(a, axis=1), axis=0)


def _same(got, want) -> bool:
    if isinstance(want, tuple):
        return all(_same(g, w) for g, w in zip(got, want))
    return np.array_equal(np.asarray(got), np.asarray(want))


def demo(client, log2n: int):
    import dask
    import dask.array as da
    n = 1 << log2n
    a = np.random.default_rng(0).integers(0, 256, size=n).astype(np.int32)
    x = da.from_array(a, chunks=n // 16)          # 16 blocks: 8 per worker
    results = dask.compute(histogram.dask(x), argmin.dask(x), blur.dask(x))
    for name, fn, got in zip(("histogram", "argmin", "blur"), (histogram, argmin, blur),
                             results):
        want = fn(a)
        print(f"{name:10s} equal to one machine: {_same(got, want)}")
        assert _same(got, want)
    # histogram equalization: a reduction, its table, a map over the blocks: one graph
    eq = apply_table.dask(x, equalization_table.dask(histogram.dask(x)))
    want = apply_table(a, equalization_table(histogram(a)))
    got = eq.compute()
    print(f"{'equalized':10s} equal to one machine: {_same(got, want)}")
    assert _same(got, want)
    p, inp = funcapi_blur()
    inp.set(a)
    want = np.asarray(p.realize(n))
    got = p.dask({inp: x}).compute()
    print(f"{'Func blur':10s} equal to one machine: {_same(got, want)}")
    assert _same(got, want)
    p, inp = funcapi_histogram()
    inp.set(a)
    want = np.asarray(p.realize([256]))
    got = p.dask({inp: x}, sizes=[256]).compute()
    print(f"{'Func hist':10s} equal to one machine: {_same(got, want)}")
    assert _same(got, want)
    # an integral image chunked in both axes: the row scan carried across the
    # column blocks as a dask array of its own, the column scan across the row blocks
    img = a[:(n // 256) * 256].reshape(-1, 256).astype(np.int64)
    got = integral_image.dask(da.from_array(img, chunks=(max(1, img.shape[0] // 4), 64)))
    want = integral_image(img)
    print(f"{'integral':10s} equal to one machine: {_same(got.compute(), want)}")
    assert _same(got.compute(), want)


def _run(client, x):
    return tuple(client.gather(client.compute(list(kitchen_sink.dask(x)))))


def _np_part(b, axis=None, keepdims=True):
    return np.reshape(b.sum(dtype=np.int64), (1,) * (b.ndim if keepdims else 0))


def _run_floor(client, x):
    """Dask's own floor for the same graph shape: NumPy chunk and combine
    functions in place of pyhalide's, 16 merges per task as fn.dask."""
    import dask.array as da
    r = da.reduction(x, _np_part, _np_part, dtype=np.int64, split_every=16)
    return client.gather(client.compute(r))


def _worker_cpu():
    return time.process_time()


class _Cluster:
    """A scheduler and `workers` worker processes of one thread each. With
    `sessions`, each worker is a process of its own session (`setsid`), as a
    worker on a machine of its own would be: Linux shares the CPU between
    sessions first (autogroups), so on a machine shared with other users the
    workers of one LocalCluster, one session, get the share of one however many
    they are."""

    def __init__(self, workers: int, sessions: bool):
        self.workers, self.sessions, self.procs = workers, sessions, []

    def __enter__(self):
        import subprocess

        import distributed
        self.cluster = distributed.LocalCluster(
            n_workers=0 if self.sessions else self.workers, threads_per_worker=1,
            dashboard_address=None, silence_logs=40)
        if self.sessions:
            for _ in range(self.workers):
                self.procs.append(subprocess.Popen(
                    [sys.executable, "-m", "distributed.cli.dask_worker",
                     self.cluster.scheduler_address, "--nthreads", "1", "--no-nanny",
                     "--no-dashboard"], start_new_session=True,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        self.client = distributed.Client(self.cluster)
        self.client.wait_for_workers(self.workers, timeout=120)
        return self.client

    def __exit__(self, *exc):
        self.client.close()
        for p in self.procs:
            p.terminate()
            p.wait(timeout=30)
        self.cluster.close()


def _timed(client, x, repeats: int, run=_run):
    """(least wall time, the workers' CPU times (a list), this process's CPU
    time: the client's and the scheduler's) of the fastest of `repeats` runs."""
    best = (float("inf"), [], 0.0)
    for _ in range(repeats):
        c0 = client.run(_worker_cpu)
        p0 = time.process_time()
        t = time.perf_counter()
        run(client, x)
        wall = time.perf_counter() - t
        p1 = time.process_time()
        c1 = client.run(_worker_cpu)
        best = min(best, (wall, [c1[w] - c0[w] for w in sorted(c0)], p1 - p0))
    return best


def bench(log2n: int, sessions: bool = False, repeats: int = 3):
    """Throughput of kitchen_sink on 1 and 2 worker processes (one thread each;
    the data made on the workers, 16 blocks), checked against one machine;
    then the time per task of a graph of 256 small blocks after warm-up."""
    import dask.array as da
    import distributed
    n = 1 << log2n
    want = None
    times, cpus = {}, {}
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    for workers in (1, 2):
        with _Cluster(workers, sessions) as client:
            x = da.random.default_rng(1).integers(-100, 100, size=n, chunks=n // 16,
                                                   dtype=np.int32)
            x = client.persist(x)
            distributed.wait(x)
            if want is None:                # one machine, on the same data
                want = kitchen_sink(x.compute())
            got = _run(client, x)           # warm-up: the workers compile
            assert _same(got, want)
            wall, cpu, here = _timed(client, x, repeats)
            times[workers], cpus[workers] = wall, cpu
            print(f"kitchen_sink 2^{log2n} on {workers} worker(s): {wall:.3f} s wall "
                  f"({n / wall / 1e6:.0f} M elements/s), workers' CPU "
                  f"{' + '.join(f'{c:.3f}' for c in cpu)} s, client and scheduler CPU "
                  f"{here:.3f} s, load {os.getloadavg()[0]:.1f}")
            if workers == 2:
                small = client.persist(x[:1 << 18].rechunk(1 << 10))     # 256 blocks
                distributed.wait(small)
                _run(client, small)
                _run_floor(client, small)
                for name, run in (("per-task overhead", _run), ("Dask's floor", _run_floor)):
                    wall, cpu, here = _timed(client, small, repeats, run)
                    print(f"{name} (256 blocks of 1024, 2 workers), per block: "
                          f"{wall / 256 * 1e3:.2f} ms wall, workers' CPU "
                          f"{sum(cpu) / 256 * 1e3:.2f} ms, client and scheduler CPU "
                          f"{here / 256 * 1e3:.2f} ms, load {os.getloadavg()[0]:.1f}")
    print(f"speedup 2 workers / 1: {times[1] / times[2]:.2f}x wall; by CPU time (one "
          f"worker's over the busier of two, as if each had a core of its own): "
          f"{sum(cpus[1]) / max(cpus[2]):.2f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", type=int, default=22)
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--bench-log2n", type=int, default=28)
    ap.add_argument("--sessions", action="store_true",
                    help="start each benchmark worker in a session of its own (see _Cluster)")
    args = ap.parse_args()
    import distributed
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as c:
        demo(c, args.log2n)
    if args.bench:
        bench(args.bench_log2n, args.sessions)


if __name__ == "__main__":
    main()
