"""Insertion sort from a position `lo` given as an int argument, under
@pipeline, against plain Python and Numba (if installed).

`while j >= lo and a[j] > key` compiles in a build that takes lo in [0, 2**30)
as an int32 value (frontend_ast/nonneg_params.py; a larger lo runs a build
with lo int64, a negative one raises NotImplementedError at the `while`
line): its shift is the same loop as `while j >= 0` (no clamp,
negative-index wrap or index check: docs/insertion_lo26.md). Prints the CPU
time (time.process_time, minimum of `repeats` calls on copies of one random
array) of each.

    python examples/insertion_from_lo.py [n] [repeats]
"""
import sys
import time

import numpy as np

import pyhalide as ph


def insertion_from(a, lo):
    for i in range(lo + 1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= lo and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def best_cpu(fn, data, args, repeats):
    best = float("inf")
    for _ in range(repeats):
        a = data.copy()
        t0 = time.process_time()
        fn(a, *args)
        best = min(best, time.process_time() - t0)
    return best


def main(n=2000, repeats=11):
    data = np.random.default_rng(0).random(n)
    kernels = [("from lo = 0", insertion_from, (0,)),
               ("from lo = n // 4", insertion_from, (n // 4,))]
    try:
        import numba
    except ImportError:
        numba = None
    for name, fn, args in kernels:
        compiled = ph.pipeline(fn)
        got = compiled(data.copy(), *args)
        want = fn(data.copy(), *args)
        assert np.array_equal(got, want), name
        row = f"{name:18s} pyhalide {best_cpu(compiled, data, args, repeats) * 1e3:8.3f} ms"
        if numba is not None:
            jitted = numba.njit(fn)
            jitted(data.copy(), *args)
            row += f"   numba {best_cpu(jitted, data, args, repeats) * 1e3:8.3f} ms"
        print(row)


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:3]))
