"""reduce_blocks keeps the lanes' and the tail's positions as int32 where it
reads the elements by flat position (fewer than 2**31 of them): argmin,
argmax, min and max of every axis equal NumPy's (first position of the
extreme, the first NaN, ties, -0.0 against 0.0) with the winner at large
flat positions, in the lanes and in the tail of a row, and on a view."""
import numpy as np

from pyhalide import pipeline


@pipeline
def _extremes(a):
    return a.argmin(), a.argmax(), a.min(), a.max()


def _check(x):
    got = _extremes(x)
    want = (x.argmin(), x.argmax(), x.min(), x.max())
    assert got[0] == want[0] and got[1] == want[1], (got, want)
    for g, w in zip(got[2:], want[2:]):
        assert np.array_equal(np.float64(g), w, equal_nan=True)
        assert np.signbit(g) == np.signbit(w)


def test_positions_past_16_bits_and_in_the_tail():
    rng = np.random.default_rng(22)
    a = rng.random((1021, 1003))            # rows of 62 chunks of 16 and a tail of 11
    a[1020, 1002] = -1.0                    # the very last element: the tail
    a[700, 500] = 2.0
    a[900, 17] = 2.0                        # a later tie of the maximum
    _check(a)
    a[1019, 1001] = -1.0                    # an earlier tie of the minimum
    _check(a)
    b = a.copy()
    b[999, 998], b[1000, 3] = np.nan, np.nan    # the first NaN wins all four
    _check(b)
    z = np.zeros((515, 301))
    z[400, 200], z[3, 3] = -0.0, -0.0
    _check(z)
    _check(a[::2, 1:])                      # a view: read by index, int64 positions
