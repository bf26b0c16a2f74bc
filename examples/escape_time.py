"""Escape-time fractal with a `while` loop that stops early, under @pipeline.

Each pixel iterates z = z*z + c while |z| < 2, at most `maxiter` times. The
`while` loop has a bound the compiler can state (the counter `i` against
`maxiter`), so it becomes a loop over at most maxiter iterations with a stop
flag; the lowered loop is left as soon as the flag is set (see
`escape.lower("loops")`: `exit loop ...`), so a pixel that escapes after
5 iterations costs 5 iterations, not maxiter.

The same kernel written to run all maxiter iterations (the update guarded
by `if`) is timed side by side; both equal plain Python.

    python examples/escape_time.py [size] [maxiter]
"""
import sys
import time

import numpy as np

import pyhalide as ph


@ph.pipeline
def escape(cx, cy, maxiter):
    out = np.zeros(cx.shape, np.int64)
    for r in range(cx.shape[0]):
        for c in range(cx.shape[1]):
            x = 0.0
            y = 0.0
            i = 0
            while i < maxiter and x * x + y * y < 4.0:
                x, y = x * x - y * y + cx[r, c], 2 * x * y + cy[r, c]
                i += 1
            out[r, c] = i
    return out


@ph.pipeline
def all_iterations(cx, cy, maxiter):
    out = np.zeros(cx.shape, np.int64)
    for r in range(cx.shape[0]):
        for c in range(cx.shape[1]):
            x = 0.0
            y = 0.0
            i = 0
            for k in range(maxiter):
                if x * x + y * y < 4.0:
                    x, y = x * x - y * y + cx[r, c], 2 * x * y + cy[r, c]
                    i += 1
            out[r, c] = i
    return out


def best_of(fn, args, repeats=5):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def compare(title, xlim, ylim, n, maxiter):
    ys, xs = np.mgrid[ylim[0]:ylim[1]:n * 1j, xlim[0]:xlim[1]:n * 1j]
    args = (np.ascontiguousarray(xs), np.ascontiguousarray(ys), maxiter)
    counts = escape(*args)
    assert np.array_equal(counts, all_iterations(*args))
    small = tuple(a[::16, ::16].copy() for a in args[:2]) + (maxiter,)
    assert np.array_equal(escape(*small), escape.py_func(*small))
    t_exit, t_all = best_of(escape, args), best_of(all_iterations, args)
    print(f"{title}: {n}x{n} points, maxiter {maxiter}; mean iterations "
          f"{counts.mean():.1f}, {100 * (counts < 20).mean():.0f}% escape within 20")
    print(f"  while loop, early exit:  {t_exit * 1e3:8.2f} ms")
    print(f"  all maxiter iterations:  {t_all * 1e3:8.2f} ms   ({t_all / t_exit:.1f}x slower)")
    return t_all / t_exit


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    maxiter = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    compare("wide view (most points escape early)", (-4.0, 4.0), (-4.0, 4.0), n, maxiter)
    compare("classic view", (-2.5, 1.5), (-1.5, 1.5), n, maxiter)


if __name__ == "__main__":
    main()
