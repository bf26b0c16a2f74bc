"""Histogram equalization (histogram -> cumulative scan -> lookup) written as
plain Python loops with @pipeline. Schedules (the histogram rfactor'd into
parallel partial histograms, the lookup vectorized and parallel) live in
histogram_equalization_schedules/, one file per target.

    python examples/pipelines/histogram_equalization.py [width height]
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from schedule_runner import best_time, run_scheduled  # noqa: E402

import pyhalide as ph  # noqa: E402


@ph.pipeline
def equalize(image):
    h, w = image.shape
    hist = np.zeros(256, np.int32)
    for y in range(h):
        for x in range(w):
            hist[image[y, x]] += 1
    cdf = np.zeros(256, np.int64)
    running = 0
    for i in range(256):
        running += int(hist[i])
        cdf[i] = running
    out = np.empty((h, w), np.uint8)
    for y in range(h):
        for x in range(w):
            out[y, x] = cdf[image[y, x]] * 255 // (h * w)
    return out


def equalize_numpy(image: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(np.bincount(image.ravel(), minlength=256))
    return ((cdf[image].astype(np.int64) * 255) // image.size).astype(np.uint8)


def main(w: int = 640, h: int = 480):
    image = np.random.default_rng(2).normal(100, 20, (h, w)).clip(0, 255).astype(np.uint8)
    out, q, used, first = run_scheduled(equalize, image)
    run = best_time(lambda: q(image))
    ok = np.array_equal(out, equalize_numpy(image))
    small = image[:9, :11]
    ok = ok and np.array_equal(q(small), equalize.py_func(small))
    print(f"histogram equalization {w}x{h}: schedule {os.path.basename(str(used))}, first call "
          f"{first:.3f} s, run {run * 1e3:.2f} ms, levels {image.min()}..{image.max()} -> "
          f"{out.min()}..{out.max()}, equals NumPy and the plain loops: {ok}")
    if not ok:
        raise SystemExit("histogram equalization differs")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
