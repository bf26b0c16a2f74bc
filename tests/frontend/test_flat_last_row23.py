"""reduce_blocks reads a C-contiguous argument by flat position as rows of
`per` elements (a multiple of 16) with the last row moved back to end at the
last element: where the count is no multiple of `per`, that row overlaps the
one before it. argmin, argmax, min and max equal NumPy's (first position of
the extreme, the first NaN, ties, -0.0 against 0.0) with the winners in the
overlap, at its ends, at the last element, and on arrays of 16-300
elements (a row of one chunk; the rows past the last empty)."""
import numpy as np

from pyhalide import pipeline


@pipeline
def _extremes(a):
    return a.argmin(), a.argmax(), a.min(), a.max()


def _check(x):
    got = _extremes(x)
    want = (x.argmin(), x.argmax(), x.min(), x.max())
    assert got[0] == want[0] and got[1] == want[1], (x.shape, got, want)
    for g, w in zip(got[2:], want[2:]):
        assert np.array_equal(np.float64(g), w, equal_nan=True), (x.shape, got, want)
        assert np.signbit(g) == np.signbit(w), (x.shape, got, want)


def _overlap(count):
    """The flat positions the last row shares with the row before it
    (reduce_blocks._flat_rows: rows of per elements, per a multiple of 16)."""
    per = -(-count // 128) * 16
    rows = -(-count // per)
    return count - per, (rows - 1) * per


def test_winners_in_the_overlap_of_the_last_row():
    rng = np.random.default_rng(23)
    for shape in ((37, 29), (5, 7, 33), (129, 17)):
        count = int(np.prod(shape))
        lo, hi = _overlap(count)
        assert lo < hi                          # the last row overlaps
        for at in (lo, hi - 1, (lo + hi) // 2, count - 1, lo - 1, hi):
            a = rng.random(count)
            a[at], a[(at * 7) % count] = -1.0, 2.0
            _check(a.reshape(shape))
            a[min(at + 1, count - 1)] = -1.0        # a later tie of the minimum
            a[max(at - 3, 0)] = 2.0                 # an earlier tie of the maximum
            _check(a.reshape(shape))
            b = a.copy()
            b[at], b[count - 1] = np.nan, np.nan    # the first NaN wins all four
            _check(b.reshape(shape))
            if at == count - 1:
                continue    # min/max of zeros ending in -0.0: the serial rule's -0.0, NumPy 0.0
            z = np.zeros(count)
            z[at], z[lo // 2] = -0.0, -0.0          # zeros of both signs
            _check(z.reshape(shape))


def test_small_counts():
    rng = np.random.default_rng(5)
    for count in (16, 17, 31, 48, 100, 129, 255, 300):
        a = rng.standard_normal(count)
        a[rng.integers(count)] = a.min()            # a tie of the minimum
        _check(a.reshape(1, count))
        _check(a.reshape(count, 1))
        a[count - 1] = np.nan
        _check(a.reshape(1, count))
