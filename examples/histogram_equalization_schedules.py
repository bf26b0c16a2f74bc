"""Histogram equalization (histogram -> cumulative scan -> lookup) under
three schedules: the default (histogram and scan at root, serial), the
lookup in parallel vectorized strips, and that plus the histogram computed
by rfactor over strips of 16 rows in parallel (merged vectorized over the
256 buckets). Every result is checked against NumPy and timed beside it;
the last schedule is also run with Halide 21 when `halide` is installed
(the same algorithm and schedule text, over the module `m`).

    python examples/histogram_equalization_schedules.py [width height]
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyhalide as ph  # noqa: E402
from histogram_equalization import equalize_numpy  # noqa: E402


def algorithm(m, image):
    """The Funcs of histogram equalization over `image`, with module m =
    pyhalide or halide: (output, {name: Func or Var})."""
    h, w = image.shape
    inp = m.Buffer(image, "image")
    i, x, y = m.Var("i"), m.Var("x"), m.Var("y")
    r = m.RDom([m.Range(0, w), m.Range(0, h)], "r")
    hist = m.Func("hist")
    hist[i] = 0
    hist[m.cast(m.Int(32), inp[r.x, r.y])] += 1
    cdf = m.Func("cdf")
    s = m.RDom([m.Range(1, 255)], "s")
    cdf[i] = hist[i]
    cdf[s.x] = cdf[s.x] + cdf[s.x - 1]
    out = m.Func("equalized")
    level = cdf[m.cast(m.Int(32), inp[x, y])]
    out[x, y] = m.cast(m.UInt(8), (m.cast(m.Int(64), level) * 255) / (w * h))
    return out, {"hist": hist, "cdf": cdf, "r": r, "i": i, "x": x, "y": y}


def serial(m, out, fs):
    fs["hist"].compute_root()
    fs["cdf"].compute_root()


def parallel_lookup(m, out, fs):
    serial(m, out, fs)
    yo, yi = m.Var("yo"), m.Var("yi")
    out.split(fs["y"], yo, yi, 32).parallel(yo).vectorize(fs["x"], 16)


def parallel_histogram(m, out, fs):
    """rfactor the histogram over strips of 16 rows: one partial histogram
    per strip, in parallel; the partials merged vectorized over the buckets."""
    parallel_lookup(m, out, fs)
    hist, r, i = fs["hist"], fs["r"], fs["i"]
    u = m.Var("u")
    ryo, ryi = m.RVar("ryo"), m.RVar("ryi")
    hist.update().split(r.y, ryo, ryi, 16).rfactor(ryo, u) \
        .compute_root().vectorize(i, 8).update().parallel(u)
    hist.update().vectorize(i, 8)


SCHEDULES = [serial, parallel_lookup, parallel_histogram]


def _best(fn, repeats=7) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _run(m, schedule, image):
    """(result, first call s, best time s) of `schedule` with module m."""
    out_f, fs = algorithm(m, image)
    schedule(m, out_f, fs)
    out = np.empty(image.shape, np.uint8)
    buf = m.Buffer(out)
    t0 = time.perf_counter()
    out_f.realize(buf)
    first = time.perf_counter() - t0
    return out.copy(), first, _best(lambda: out_f.realize(buf))


def main(w=4096, h=4096):
    image = np.random.default_rng(2).normal(100, 20, (h, w)).clip(0, 255).astype(np.uint8)
    expected = equalize_numpy(image)
    t_np = _best(lambda: equalize_numpy(image))
    print(f"histogram equalization {w}x{h} uint8; NumPy {t_np * 1e3:.2f} ms")
    ok_all = True
    for schedule in SCHEDULES:
        got, first, t = _run(ph, schedule, image)
        ok = np.array_equal(got, expected)
        ok_all &= ok
        print(f"  {schedule.__name__:20s} {t * 1e3:8.2f} ms  ({t_np / t:5.1f}x NumPy, "
              f"first call {first:.2f} s)  equals NumPy: {ok}")
    try:
        import halide as hl
    except ImportError:
        print("  Halide 21, parallel_histogram: n/a (pip install halide)")
    else:
        got, _, t = _run(hl, parallel_histogram, image)
        ok = np.array_equal(got, expected)
        ok_all &= ok
        print(f"  Halide 21, parallel_histogram: {t * 1e3:.2f} ms  equals NumPy: {ok}")
    if not ok_all:
        raise SystemExit("a schedule of histogram equalization differs from NumPy")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
