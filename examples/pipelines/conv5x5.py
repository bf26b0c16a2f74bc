"""Separable 5x5 binomial convolution on float32 (suite 2's conv5x5:
weights 1 4 6 4 1 over 16, rows then columns) written as plain Python loops
with @pipeline. Its schedule (tiled, vectorized, parallel, conv_x computed
per tile, as blur's) lives in conv5x5_schedules/generic.py, for every target.

    python examples/pipelines/conv5x5.py [width height]
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from schedule_runner import best_time, run_scheduled  # noqa: E402

import pyhalide as ph  # noqa: E402
from pyhalide.bench.suite2 import conv_numpy as conv5x5_numpy  # noqa: E402 (NumPy's order)


@ph.pipeline
def conv5x5(img):
    H, W = img.shape
    conv_x = np.empty((H, W - 4), np.float32)
    for y in range(H):
        for x in range(W - 4):
            conv_x[y, x] = np.float32(0.0625) * img[y, x] + np.float32(0.25) * img[y, x + 1] + \
                np.float32(0.375) * img[y, x + 2] + np.float32(0.25) * img[y, x + 3] + \
                np.float32(0.0625) * img[y, x + 4]
    conv_y = np.empty((H - 4, W - 4), np.float32)
    for y in range(H - 4):
        for x in range(W - 4):
            conv_y[y, x] = np.float32(0.0625) * conv_x[y, x] + \
                np.float32(0.25) * conv_x[y + 1, x] + np.float32(0.375) * conv_x[y + 2, x] + \
                np.float32(0.25) * conv_x[y + 3, x] + np.float32(0.0625) * conv_x[y + 4, x]
    return conv_y


def main(w: int = 1536, h: int = 1024):
    image = np.random.default_rng(0).random((h, w), dtype=np.float32)
    out, q, used, first = run_scheduled(conv5x5, image)
    run = best_time(lambda: q(image))
    ok = np.array_equal(out, conv5x5_numpy(image))
    small = image[:13, :17]
    ok = ok and np.array_equal(q(small), conv5x5.py_func(small))
    print(f"conv5x5 {w}x{h}: schedule {os.path.basename(str(used))}, first call {first:.3f} s, "
          f"run {run * 1e3:.2f} ms, equals NumPy and the plain loops: {ok}")
    if not ok:
        raise SystemExit("conv5x5 differs")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
