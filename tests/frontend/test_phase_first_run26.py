"""A loop whose body first writes an array in place and then makes a
reduction (`out[0] += 1.0; out += a.min(axis=1)`) returned the array as
it was before the loop: the first run over the arrays as they are
(carried_arrays.CarriedLoop._run) refused at the reduction, and its
`finally` restored the arrays it had written after phase mode had
written their results (a wrong result; found by a fuzz of phase-mode
loops). Compared with plain Python bit for bit (min, small integers)."""
import numpy as np
import pytest

import pyhalide as ph


def element_then_min(a, n):
    out = np.zeros(a.shape[0])
    for i in range(n):
        out[0] += 1.0
        out += a.min(axis=1)
    return out


def shift_then_min(a, n):
    out = np.ones(a.shape[0])
    for i in range(n):
        out[1:] += out[:-1]
        out += a.min(axis=1)
    return out


def slice_then_max_and_rows(a, n):
    out = np.zeros(a.shape[0])
    t = np.zeros(a.shape[1])
    for i in range(n):
        t[1:] += 1.0
        out += a.max(axis=1)
        t -= a.min(axis=0) * 2.0
    return out, t


KERNELS = [(f, ph.pipeline(f)) for f in (element_then_min, shift_then_min,
                                          slice_then_max_and_rows)]


@pytest.mark.parametrize("f,k", KERNELS, ids=[f.__name__ for f, _ in KERNELS])
def test_in_place_write_before_a_reduction_against_python(f, k):
    rng = np.random.default_rng(3)
    for shape in ((2, 5), (7, 3), (1, 1)):
        a = rng.integers(-4, 5, shape).astype(np.float64)
        for n in (0, 1, 3):
            want, got = f(a, n), k(a, n)
            for w, g in zip(want if isinstance(want, tuple) else (want,),
                            got if isinstance(got, tuple) else (got,)):
                assert np.array_equal(g, w), (f.__name__, shape, n, g, w)
