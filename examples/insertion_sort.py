"""Insertion sort, argsort by insertion, gap-2 insertion and the counting-up
shift under @pipeline, timed against Numba (issue 17).

Each kernel is plain Python; the compiled one equals NumPy's sort / the
plain function (checked before timing). Times are CPU time
(time.process_time), the minimum over interleaved rounds, so that a loaded
machine still gives comparable numbers (docs/while_exit.md, session 23).

    python examples/insertion_sort.py [n] [rounds]
"""
import sys
import time

import numpy as np

import pyhalide as ph


def isort(a):
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


def argsort_ins(a):
    idx = np.arange(a.shape[0])
    for i in range(1, a.shape[0]):
        key = a[i]; k = idx[i]; j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]; idx[j + 1] = idx[j]; j -= 1
        a[j + 1] = key; idx[j + 1] = k
    return idx


def gap2(a):
    for i in range(2, a.shape[0]):
        key = a[i]
        j = i - 2
        while j >= 0 and a[j] > key:
            a[j + 2] = a[j]
            j -= 2
        a[j + 2] = key
    return a


def count_up(a):
    n = a.shape[0]
    for i in range(n - 2, -1, -1):
        key = a[i]
        j = i + 1
        while j < n and a[j] < key:
            a[j - 1] = a[j]
            j += 1
        a[j - 1] = key
    return a


def main(n=2000, rounds=9):
    try:
        import numba
    except ImportError:
        numba = None
    a = np.random.default_rng(0).random(n)
    inputs = [("random", a), ("sorted", np.sort(a)), ("reversed", np.sort(a)[::-1].copy())]
    kernels = {f.__name__: (ph.pipeline(f), numba.njit(f) if numba else None, f)
               for f in (isort, argsort_ins, gap2, count_up)}
    for name, (p, nb, py) in kernels.items():
        for label, x in inputs:
            assert np.array_equal(p(x.copy()), py(x.copy())), (name, label)
            if nb is not None:
                nb(x.copy())
    best = {}
    for _ in range(rounds):
        for name, (p, nb, _py) in kernels.items():
            for label, x in inputs:
                for who, f in (("pyhalide", p), ("numba", nb)):
                    if f is None:
                        continue
                    b = x.copy()
                    t0 = time.process_time()
                    f(b)
                    t = time.process_time() - t0
                    key = (name, label, who)
                    best[key] = min(best.get(key, t), t)
    print(f"n = {n}, CPU time, minimum of {rounds} rounds (ms)")
    for name in kernels:
        for label, _ in inputs:
            ph_t = best[(name, label, "pyhalide")] * 1e3
            nb_t = best.get((name, label, "numba"))
            tail = "" if nb_t is None else f"  numba {nb_t * 1e3:7.3f}  ratio {ph_t / (nb_t * 1e3):5.2f}"
            print(f"{name:12s} {label:9s} pyhalide {ph_t:7.3f}{tail}")


if __name__ == "__main__":
    main(*(int(v) for v in sys.argv[1:3]))
