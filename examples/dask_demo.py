"""@pipeline functions on Dask: a histogram, an argmin and a blur over a chunked
array (several blocks per worker) on a 2-worker LocalCluster, histogram
equalization as one graph, and a Func-API blur (Pipeline.dask), each compared
with the one-machine call; `--bench` measures a compute-bound reduction (the paper's
kitchen-sink loop) on 2 workers against 1, and the per-task overhead.

    python examples/dask_demo.py [--log2n 22] [--bench] [--bench-log2n 26]

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


def _run(client, x):
    return tuple(client.gather(client.compute(list(kitchen_sink.dask(x)))))


def bench(log2n: int):
    """Throughput of kitchen_sink on 1 and 2 worker processes (one thread each),
    and the time per task of a graph of small blocks after warm-up."""
    import dask.array as da
    import distributed
    n = 1 << log2n
    a = np.random.default_rng(1).integers(-100, 100, size=n).astype(np.int32)
    want = kitchen_sink(a)
    times = {}
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                      dashboard_address=None, silence_logs=40) as cluster, \
                distributed.Client(cluster) as client:
            x = client.persist(da.from_array(a, chunks=n // 16))
            distributed.wait(x)
            got = _run(client, x)           # warm-up: the workers compile
            assert _same(got, want)
            best = float("inf")
            for _ in range(3):
                t = time.perf_counter()
                _run(client, x)
                best = min(best, time.perf_counter() - t)
            times[workers] = best
            print(f"kitchen_sink 2^{log2n} on {workers} worker(s): {best:.3f} s "
                  f"({n / best / 1e6:.0f} M elements/s)")
            if workers == 2:
                small = client.persist(da.from_array(a[:1 << 18], chunks=1 << 10))  # 256 tasks
                distributed.wait(small)
                _run(client, small)
                best = float("inf")
                for _ in range(3):
                    t = time.perf_counter()
                    _run(client, small)
                    best = min(best, time.perf_counter() - t)
                print(f"per-task overhead (256 blocks of 1024, 2 workers): "
                      f"{best / 256 * 1e3:.2f} ms per block")
    print(f"speedup 2 workers / 1: {times[1] / times[2]:.2f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", type=int, default=22)
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--bench-log2n", type=int, default=26)
    args = ap.parse_args()
    import distributed
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as c:
        demo(c, args.log2n)
    if args.bench:
        bench(args.bench_log2n)


if __name__ == "__main__":
    main()
