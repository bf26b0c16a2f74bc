"""The two-stage blur under the schedules of the Halide paper (PLDI 2013,
Figure 2): breadth-first, fully fused, sliding window, tiled, and sliding
window within parallel strips, plus the tiled/vectorized/parallel schedule.
Each result is checked against NumPy; each time is printed beside NumPy's
(and Halide 21's for the last schedule, when `halide` is installed).

    python examples/blur_schedules.py [width height]
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blur import blur, blur_numpy  # noqa: E402

import pyhalide as ph  # noqa: E402


def breadth_first(x, y, bx, by):
    bx.compute_root()


def fully_fused(x, y, bx, by):
    bx.compute_at(by, x)


def sliding_window(x, y, bx, by):
    bx.store_root().compute_at(by, y)


def tiled(x, y, bx, by):
    xo, yo, xi, yi = (ph.Var(n) for n in ("xo", "yo", "xi", "yi"))
    by.tile(x, y, xo, yo, xi, yi, 32, 32)
    bx.compute_at(by, xo)


def sliding_in_strips(x, y, bx, by):
    yo, yi = ph.Var("yo"), ph.Var("yi")
    by.split(y, yo, yi, 32).parallel(yo).vectorize(x, 16)
    bx.store_at(by, yo).compute_at(by, yi).vectorize(x, 16)


def tiled_vectorized_parallel(x, y, bx, by):
    xi, yi = ph.Var("xi"), ph.Var("yi")
    by.tile(x, y, xi, yi, 256, 32).vectorize(xi, 16).parallel(y)
    bx.compute_at(by, x).vectorize(x, 16)


SCHEDULES = [breadth_first, fully_fused, sliding_window, tiled, sliding_in_strips,
             tiled_vectorized_parallel]


def _best(fn, repeats=5) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _halide_time(image, w, h):
    try:
        import halide as hl
    except ImportError:
        return None
    x, y, xi, yi = hl.Var("x"), hl.Var("y"), hl.Var("xi"), hl.Var("yi")
    inp = hl.Buffer(image)
    bx, by = hl.Func("blur_x"), hl.Func("blur_y")
    bx[x, y] = (inp[x, y] + inp[x + 1, y] + inp[x + 2, y]) / 3
    by[x, y] = (bx[x, y] + bx[x, y + 1] + bx[x, y + 2]) / 3
    by.tile(x, y, xi, yi, 256, 32).vectorize(xi, 16).parallel(y)
    bx.compute_at(by, x).vectorize(x, 16)
    by.compile_jit()
    out = hl.Buffer(hl.UInt(16), [w, h])
    return _best(lambda: by.realize(out))


def main(w=2048, h=2048):
    image = np.random.default_rng(0).integers(0, 2**16, (h + 2, w + 2), dtype=np.uint16)
    expected = blur_numpy(image)
    t_np = _best(lambda: blur_numpy(image))
    print(f"blur {w}x{h} uint16; NumPy {t_np * 1e3:.2f} ms")
    for schedule in SCHEDULES:
        bx, by = blur(image)
        x, y = by.args()
        schedule(x, y, bx, by)
        out = ph.Buffer(np.empty((h, w), np.uint16))
        t0 = time.perf_counter()
        by.realize([out])
        compile_s = time.perf_counter() - t0
        ok = np.array_equal(np.asarray(out), expected)
        t = _best(lambda: by.realize([out]))
        print(f"  {schedule.__name__:26s} {t * 1e3:8.2f} ms  ({t_np / t:5.1f}x NumPy, "
              f"first call {compile_s:.2f} s)  equals NumPy: {ok}")
        if not ok:
            raise SystemExit(f"{schedule.__name__}: blur differs from NumPy")
    t_hl = _halide_time(image, w, h)
    print(f"  Halide 21, tiled_vectorized_parallel: "
          f"{'n/a (pip install halide)' if t_hl is None else f'{t_hl * 1e3:.2f} ms'}")


if __name__ == "__main__":
    main(*map(int, sys.argv[1:3]))
