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
from blur_schedules import _best  # noqa: E402
from histogram_equalization import equalize_numpy  # noqa: E402

import pyhalide as ph  # noqa: E402
from pyhalide.bench.suite2 import alg_histeq, sched_histeq  # noqa: E402


def algorithm(m, image):
    """The Funcs of histogram equalization over `image`, with module m =
    pyhalide or halide: (output, {name: Func or Var}) — the algorithm of
    `pyhalide bench` suite 2."""
    return alg_histeq(m, {"img": image})


def serial(m, out, fs):
    fs["hist"].compute_root()
    fs["cdf"].compute_root()


def parallel_lookup(m, out, fs):
    """The lookup in parallel strips of 32 rows, vectorized by 16; the
    histogram and the scan serial (suite 2's schedule without rfactor)."""
    sched_histeq(m, out, fs, rfactor=False)


def parallel_histogram(m, out, fs):
    """That, plus the histogram by rfactor over strips of 16 rows: one
    partial histogram per strip, in parallel, merged vectorized over the
    buckets (suite 2's schedule)."""
    sched_histeq(m, out, fs, rfactor=True)


SCHEDULES = [serial, parallel_lookup, parallel_histogram]


def _run(m, schedule, image):
    """(result, first call s, best time s) of `schedule` with module m."""
    out_f, fs = algorithm(m, image)
    schedule(m, out_f, fs)
    out = np.empty(image.shape, np.uint8)
    buf = m.Buffer(out)
    t0 = time.perf_counter()
    out_f.realize(buf)
    first = time.perf_counter() - t0
    return out.copy(), first, _best(lambda: out_f.realize(buf), repeats=7)


def main(w=4096, h=4096):
    image = np.random.default_rng(2).normal(100, 20, (h, w)).clip(0, 255).astype(np.uint8)
    expected = equalize_numpy(image)
    t_np = _best(lambda: equalize_numpy(image), repeats=7)
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
