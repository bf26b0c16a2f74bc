"""Whole-array float max/min return NumPy 2.4's element among equal ones
(numpy_zero_ties.py): zeros of one sign with one of the other at every
position for lengths 1..40 and the ends, the middle and the vector
edges for lengths up to 300 (1-D), and C-contiguous 2-D arrays (flat reads,
blocks of rows), float32 and float64, a.max()/a.min()/np.amax/np.min, with
a smaller element beside them on some lengths. Compared with NumPy bit for
bit."""
import numpy as np
import pytest

from pyhalide import pipeline
from tests.frontend.numpy_minmax_host import NUMPY_AVX512_MINMAX, REASON

pytestmark = pytest.mark.skipif(not NUMPY_AVX512_MINMAX, reason=REASON)


@pipeline
def _four(a):
    return a.max(), a.min(), np.amax(a), np.min(a)


def _check(z):
    got = _four(z)
    want = (z.max(), z.min(), np.amax(z), np.min(z))
    for g, w in zip(got, want):
        assert g == w and np.signbit(g) == np.signbit(w), (z.shape, z.dtype, got, want)


def test_every_position_1d():
    for dt in (np.float64, np.float32):
        for n in list(range(1, 41)) + [47, 63, 64, 65, 129, 255, 300]:
            ats = range(n) if n <= 40 else {0, 1, 2, 9, 17, n // 2, n - 17, n - 9, n - 2, n - 1}
            for p in ats:
                for base, odd in ((0.0, -0.0), (-0.0, 0.0)):
                    z = np.full(n, base, dt)
                    z[p] = odd
                    if n % 5 == 0:
                        z[(3 * p) % n] = -1.0 if p % 2 else 1.0
                    _check(z)


def test_positions_2d():
    rng = np.random.default_rng(23)
    for dt in (np.float64, np.float32):
        for shape in ((37, 29), (64, 64), (9, 17), (3, 40), (100, 30)):
            count = int(np.prod(shape))
            ats = set(rng.integers(0, count, 20).tolist()) | {0, 1, 2, count - 2, count - 1}
            for p in sorted(ats):
                for base, odd in ((0.0, -0.0), (-0.0, 0.0)):
                    z = np.full(shape, base, dt)
                    z.reshape(-1)[p] = odd
                    _check(z)
