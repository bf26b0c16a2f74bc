"""The per-call path of a @pipeline function: the call-time checks (run
once per distinct shapes and integer arguments, remembered only when they
pass) and the conversion of returned scalars to their Python / NumPy types."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def paired(re, im):
    d = np.int32(0)
    for i in range(len(re)):
        d += re[i] - im[i]
    return d


@ph.pipeline
def prefix_sum(x, k):
    s = 0
    for i in range(k):
        s += x[i + 1]
    return s


def _pair(n, m):
    return np.arange(n, dtype=np.int32) % 5 - 2, np.arange(m, dtype=np.int32) % 3 - 1


def test_index_checks_fire_after_passing_calls_with_other_shapes():
    for _ in range(2):
        check(paired, *_pair(9, 9))
        check(paired, *_pair(4, 7))          # im longer than re: fine
        for _ in range(2):                   # im shorter: NumPy's message for im[8]
            with pytest.raises(IndexError, match=r"^index 8 is out of bounds for axis 0 "
                                                 r"with size 8 \(array 'im'"):
                paired(*_pair(9, 8))
        check(paired, *_pair(9, 9))


def test_index_checks_depend_on_integer_arguments():
    x = np.arange(10, dtype=np.int64)
    for _ in range(2):
        for k in (0, 9, -3, 2):
            check(prefix_sum, x, k)
        with pytest.raises(IndexError, match=r"^index 10 is out of bounds for axis 0 with size 10"):
            prefix_sum(x, 10)
        check(prefix_sum, x[:5], 4)
        with pytest.raises(IndexError, match=r"^index 5 is out of bounds for axis 0 with size 5"):
            prefix_sum(x[:5], 5)


@ph.pipeline
def mixed_scalars(a):
    n = 0                      # Python int
    t = 0.0                    # Python float
    seen = False               # Python bool
    m = np.int32(0)            # NumPy int32
    f = np.float32(0)          # NumPy float32
    u = np.uint64(0)           # NumPy uint64
    b = np.bool_(False)        # NumPy bool
    big = 0                    # Python int beyond int32
    for i in range(len(a)):
        n += 1
        t += i * 0.5
        seen = seen or i > 2
        m += np.int32(a[i])
        f += np.float32(a[i])
        u += np.uint64(a[i])
        b = b | (a[i] < 0)
        big += 3_000_000_000
    return n, t, seen, m, f, u, b, big


def test_returned_scalars_keep_their_exact_types():
    for a in (np.array([1, 4, -2, 3], np.int64), np.array([], np.int64),
              np.array([7], np.int64)):
        got = check(mixed_scalars, a)
        assert [type(v) for v in got] == [int, float, bool, np.int32, np.float32,
                                          np.uint64, np.bool_, int], got
