"""A Gray-Scott reaction-diffusion loop (numpy-benchmarks' grayscott, smaller):
two arrays carried through the time loop, each read at five offsets per step.
Its compile did not finish before: atom keys of linear forms printed the
state's DAG of shared subexpressions as a tree (lowering/linear.py), and the
access checks walked every expression (lowering/access_checks.py)."""
import time

import numpy as np

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def gray_scott(counts, Du, Dv, F, k, ru, rv):
    n = ru.shape[0]
    U = np.zeros((n + 2, n + 2), dtype=np.float32)
    V = np.zeros((n + 2, n + 2), dtype=np.float32)
    u, v = U[1:-1, 1:-1], V[1:-1, 1:-1]
    r = n // 4
    u[:] = 1.0
    U[n // 2 - r:n // 2 + r, n // 2 - r:n // 2 + r] = 0.50
    V[n // 2 - r:n // 2 + r, n // 2 - r:n // 2 + r] = 0.25
    u += 0.15 * ru
    v += 0.15 * rv
    for i in range(counts):
        Lu = (U[0:-2, 1:-1] + U[1:-1, 0:-2] - 4 * U[1:-1, 1:-1] + U[1:-1, 2:] + U[2:, 1:-1])
        Lv = (V[0:-2, 1:-1] + V[1:-1, 0:-2] - 4 * V[1:-1, 1:-1] + V[1:-1, 2:] + V[2:, 1:-1])
        uvv = u * v * v
        u += Du * Lu - uvv + F * (1 - u)
        v += Dv * Lv + uvv - (F + k) * v
    return V


def test_gray_scott_compiles_and_equals_python():
    rng = np.random.default_rng(0)
    ru, rv = rng.random((24, 24)), rng.random((24, 24))
    t0 = time.process_time()
    for counts in (0, 1, 7):
        check(gray_scott, counts, 0.16, 0.08, 0.04, 0.06, ru, rv)
    # one compile (the counts are call-time values): seconds, not minutes
    assert time.process_time() - t0 < 60
