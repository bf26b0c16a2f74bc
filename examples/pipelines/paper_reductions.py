"""The six reductions of "Parallel Associative Reductions in Halide" (CGO
2017, Table 1) written as plain Python loops with @pipeline. Their schedules
(split + rfactor + parallel + vectorize) live in paper_reductions_schedules/,
one file per target; each result is checked against the plain Python loop
(run on a small input) and against NumPy.

    python examples/pipelines/paper_reductions.py [log2_size]     (default 20)
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from schedule_runner import best_time, run_scheduled  # noqa: E402

import pyhalide as ph  # noqa: E402


@ph.pipeline
def max_reduction(a):
    m = np.int32(-2 ** 31)
    for i in range(len(a)):
        m = max(m, a[i])
    return m


@ph.pipeline
def histogram2d(img):
    hist = np.zeros(256, np.int32)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            hist[img[y, x]] += 1
    return hist


@ph.pipeline
def argmin4d(a):
    best = np.int8(127)
    bi = bj = bk = bl = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                for l in range(a.shape[3]):
                    if a[i, j, k, l] < best:
                        best = a[i, j, k, l]
                        bi, bj, bk, bl = i, j, k, l
    return best, bi, bj, bk, bl


@ph.pipeline
def complex_mul(re, im):
    x = np.int32(1)
    y = np.int32(0)
    for i in range(len(re)):
        x, y = x * re[i] - y * im[i], x * im[i] + y * re[i]
    return x, y


@ph.pipeline
def dot(a, b):
    s = np.float32(0)
    for i in range(len(a)):
        s += a[i] * b[i]
    return s


@ph.pipeline
def kitchen_sink(a):
    s = np.int32(0)
    p = np.int32(1)
    mn = np.int32(2 ** 31 - 1)
    mx = np.int32(-2 ** 31)
    amin = 0
    amax = 0
    ss = np.int32(0)
    evens = np.int32(0)
    for i in range(len(a)):
        v = a[i]
        s += v
        p *= v
        if v < mn:
            amin = i
        mn = min(mn, v)
        if v > mx:
            amax = i
        mx = max(mx, v)
        ss += v * v
        evens += np.int32(v % 2 == 0)
    return s, p, mn, mx, amin, amax, ss, evens


def inputs(log2n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    n = 1 << log2n
    side = 1 << (log2n // 2)
    q = 1 << (log2n // 4)
    return {
        max_reduction: (rng.integers(-2 ** 31, 2 ** 31 - 1, n, dtype=np.int32),),
        histogram2d: (rng.integers(0, 256, (n // side, side), dtype=np.uint8),),
        argmin4d: (rng.integers(-128, 128, (q, q, q, n // q ** 3), dtype=np.int8),),
        complex_mul: (rng.integers(-3, 4, n, dtype=np.int32), rng.integers(-3, 4, n, dtype=np.int32)),
        dot: (rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)),
        kitchen_sink: (rng.integers(-1000, 1000, n, dtype=np.int32),),
    }


def numpy_reference(p, args):
    a = args[0]
    with np.errstate(over="ignore"):
        if p is max_reduction:
            return a.max()
        if p is histogram2d:
            return np.bincount(a.ravel(), minlength=256).astype(np.int32)
        if p is argmin4d:
            i = np.unravel_index(np.argmin(a), a.shape)
            return (a.min(), *map(int, i))
        if p is dot:
            return ("close", float(np.dot(a.astype(np.float64), args[1].astype(np.float64))))
        if p is kitchen_sink:
            return (a.sum(dtype=np.int32), np.prod(a, dtype=np.int32), a.min(), a.max(),
                    int(np.argmin(a)), int(np.argmax(a)), (a * a).sum(dtype=np.int32),
                    np.int32(np.count_nonzero(a % 2 == 0)))
    return None


def _equal(got, exp) -> bool:
    if isinstance(exp, tuple) and exp and exp[0] == "close":
        # a float sum a schedule reassociates (rfactor) equals the exact one up to rounding
        return abs(float(got) - exp[1]) <= 1e-5 * max(1.0, abs(exp[1]))
    if isinstance(exp, tuple):
        return all(_equal(g, e) for g, e in zip(got, exp))
    return np.array_equal(np.asarray(got), np.asarray(exp))


def main(log2n: int = 20):
    print(f"{'benchmark':14s} {'schedule':34s} {'1st call s':>10s} {'run ms':>9s}  correct")
    small = inputs(10, seed=1)
    ok_all = True
    for p, args in inputs(log2n).items():
        out, q, used, first = run_scheduled(p, *args)
        run = best_time(lambda: q(*args))
        ref = numpy_reference(p, args)
        ok = ref is None or _equal(out, ref)
        sargs = small[p]
        with np.errstate(all="ignore"):
            plain = p.py_func(*sargs)                           # the plain loop itself
            if p is dot:
                plain = ("close", float(plain))
            ok = ok and _equal(q(*sargs), plain)
        ok_all &= ok
        print(f"{p.__name__:14s} {os.path.basename(str(used)):34s} {first:10.3f} "
              f"{run * 1e3:9.2f}  {'yes' if ok else 'NO'}")
    if not ok_all:
        raise SystemExit("a reduction differs from plain Python / NumPy")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
