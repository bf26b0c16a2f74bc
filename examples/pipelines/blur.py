"""Two-stage 3x3 box blur on a uint16 image (Halide, PLDI 2013) written as
plain Python loops with @pipeline. Schedules (tiled, vectorized, parallel,
blur_x computed per tile) live in blur_schedules/, one file per target.

    python examples/pipelines/blur.py [width height]
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from schedule_runner import best_time, run_scheduled  # noqa: E402

import pyhalide as ph  # noqa: E402


@ph.pipeline
def blur(img):
    H, W = img.shape
    blur_x = np.empty((H, W - 2), np.uint16)
    for y in range(H):
        for x in range(W - 2):
            blur_x[y, x] = (img[y, x] + img[y, x + 1] + img[y, x + 2]) // 3
    blur_y = np.empty((H - 2, W - 2), np.uint16)
    for y in range(H - 2):
        for x in range(W - 2):
            blur_y[y, x] = (blur_x[y, x] + blur_x[y + 1, x] + blur_x[y + 2, x]) // 3
    return blur_y


def blur_numpy(a: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        bx = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) // 3
        return (bx[:-2] + bx[1:-1] + bx[2:]) // 3


def main(w: int = 1536, h: int = 1024):
    image = np.random.default_rng(0).integers(0, 2 ** 16, (h, w), dtype=np.uint16)
    out, q, used, first = run_scheduled(blur, image)
    run = best_time(lambda: q(image))
    ok = np.array_equal(out, blur_numpy(image))
    small = image[:13, :17]
    with np.errstate(over="ignore"):
        ok = ok and np.array_equal(q(small), blur.py_func(small))
    print(f"blur {w}x{h}: schedule {os.path.basename(str(used))}, first call {first:.3f} s, "
          f"run {run * 1e3:.2f} ms, equals NumPy and the plain loops: {ok}")
    if not ok:
        raise SystemExit("blur differs")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
