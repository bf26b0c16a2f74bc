"""reduce_blocks keeps the lanes' and the tail's positions as int32 where it
reads the elements by flat position (fewer than 2**31 of them): argmin,
argmax, min and max of every axis equal NumPy's (first position of the
extreme, the first NaN, ties, -0.0 against 0.0) with the winner at large
flat positions, in the lanes and in the tail of a row, and on a view.

The flat reads take rows of `per` elements (a multiple of 16) with the last
row moved back to end at the last element: where the count is no multiple
of `per`, that row overlaps the one before it. The same four results with
the winners in the overlap, at its ends, at the last element, and on
arrays of 16-300 elements (a row of one chunk; the rows past the last
empty)."""
import numpy as np
import pytest

from frontend_ast.numpy_zero_ties import MODELLED
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


@pytest.mark.slow
def test_positions_past_16_bits_in_a_view():
    """A view: read by index, int64 positions (its own kernel)."""
    a = np.random.default_rng(22).random((1021, 1003))
    a[700, 501] = 2.0
    a[1020, 1002] = -1.0
    _check(a[::2, 1:])


def _overlap(count, step):
    """The flat positions the last row shares with the row before it
    (reduce_blocks._flat_rows: rows of per elements, per a multiple of
    step: 16 for argmin/argmax, 32 for min/max)."""
    per = -(-count // (8 * step)) * step
    rows = -(-count // per)
    return count - per, (rows - 1) * per


def _serial(xs, is_min):
    """The serial loop's min/max: ties (-0.0, 0.0) to the later element,
    the first NaN."""
    m = np.inf if is_min else -np.inf
    for x in xs:
        keep = (m < x if is_min else m > x) or m != m
        m = m if keep else x
    return m


def test_winners_in_the_overlap_of_the_last_row():
    rng = np.random.default_rng(23)
    for shape in ((37, 29), (5, 7, 33), (129, 17)):
        count = int(np.prod(shape))
        ends = [e for step in (16, 32) for e in _overlap(count, step)]
        assert _overlap(count, 16)[0] < _overlap(count, 16)[1]
        for at in sorted({e + d for e in ends for d in (-1, 0, 16)} | {count - 1}):
            at = min(max(at, 0), count - 1)
            a = rng.random(count)
            a[at], a[(at * 7) % count] = -1.0, 2.0
            _check(a.reshape(shape))
            a[min(at + 1, count - 1)] = -1.0        # a later tie of the minimum
            a[max(at - 3, 0)] = 2.0                 # an earlier tie of the maximum
            _check(a.reshape(shape))
            b = a.copy()
            b[at], b[count - 1] = np.nan, np.nan    # the first NaN wins all four
            _check(b.reshape(shape))
            if at == count - 1 and not MODELLED:
                continue    # min/max of zeros ending in -0.0: the serial rule's -0.0
            z = np.zeros(count)
            z[at], z[count // 3] = -0.0, -0.0       # zeros of both signs
            _check(z.reshape(shape))


def test_signed_zero_ties_within_a_pair_of_chunks():
    """The lanes take chunks c and c + 1 of a row together: a tie of -0.0
    and 0.0 16 elements apart, in one lane, goes by NumPy's rule
    (numpy_zero_ties.py; the serial rule where it is not MODELLED: plain
    Python); ties of argmin/argmax and two NaNs there by NumPy's."""
    rng = np.random.default_rng(7)
    for first, second in ((-0.0, 0.0), (0.0, -0.0)):
        for at in (0, 5, 16, 33, 700):
            a = -1.0 - rng.random((40, 25))
            flat = a.reshape(-1)
            flat[at], flat[at + 16] = first, second
            got = _extremes(a)
            want = a.max() if MODELLED else _serial(flat, False)
            assert got[3] == want and np.signbit(got[3]) == np.signbit(want), (at, got, want)
            got = _extremes(-a)
            want = (-a).min() if MODELLED else _serial(-flat, True)
            assert got[2] == want and np.signbit(got[2]) == np.signbit(want), (at, got, want)
    for at in (0, 7, 16, 40, 980):                  # argmin/argmax: the first of a tie
        a = rng.random((40, 25))
        flat = a.reshape(-1)
        flat[at], flat[at + 16], flat[at + 1] = -1.0, -1.0, 2.0
        flat[min(at + 17, 999)] = 2.0
        _check(a)
    a = rng.random((40, 25))
    flat = a.reshape(-1)
    flat[100], flat[116] = np.float64("nan"), -np.float64("nan")   # the first NaN's sign
    got = _extremes(a)
    assert np.isnan(got[2]) and np.isnan(got[3]) and not np.signbit(got[3]), got
    assert got[0] == 100 and got[1] == 100, got


def test_small_counts():
    rng = np.random.default_rng(5)
    for shape in ((2, 8), (2, 9), (3, 7), (4, 12), (10, 10), (3, 43), (5, 51), (12, 25)):
        a = rng.standard_normal(shape)
        a[rng.integers(shape[0]), rng.integers(shape[1])] = a.min()    # a tie of the minimum
        _check(a)
        a[-1, -1] = np.nan
        _check(a)
