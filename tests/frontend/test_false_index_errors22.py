"""Loop forms that raised a false IndexError at run time (session 22):
each compared with plain Python, on inputs where Python never reads out of
range. One compiled kernel per form."""
import numpy as np
import pytest

import pyhalide as ph


def isort_wiki(a):
    # the textbook form: the loop's position is written (a[j]), not a
    # position at an offset from it
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i
        while j > 0 and a[j - 1] > key:
            a[j] = a[j - 1]
            j = j - 1
        a[j] = key
    return a


_ISORT = ph.pipeline(isort_wiki)

_ARRAYS = [np.array([]), np.array([5.]), np.array([2., 1.]), np.array([3., 1., 2.]),
           np.array([1., 2., 3.]), np.array([3., 2., 1.]), np.array([0.0, -0.0, np.nan, 1.0]),
           np.random.default_rng(0).random(20), np.random.default_rng(1).integers(0, 4, 17)
           .astype(np.float64)]


@pytest.mark.parametrize("k", range(len(_ARRAYS)))
def test_textbook_insertion_sort(k):
    a = _ARRAYS[k]
    want = isort_wiki(a.copy())
    got = _ISORT(a.copy())
    np.testing.assert_array_equal(got, want)


def shift_twice(x):
    # two writes of one element per iteration, the second reading it through
    # an index expression that only simplifies to the written one
    for i in range(1, x.shape[0]):
        key = x[i]
        j = i - 1
        while j >= 0 and x[j] > key:
            x[j + 1] = x[j]
            x[j + 1] = x[j + 1] * 2.0 + x[i - i + j + 1]
            j -= 1
        x[j + 1] = key
    return x


_SHIFT_TWICE = ph.pipeline(shift_twice)


@pytest.mark.parametrize("a", [[2., 0.], [2., 0., 1.], [3., 2., 1.], [5., 4., 3., 2.], [1.],
                               [0., 1., 2.]])
def test_shift_with_cancelling_index(a):
    a = np.array(a)
    np.testing.assert_array_equal(_SHIFT_TWICE(a.copy()), shift_twice(a.copy()))


def read_after_write(x, k):
    # the read x[k] meets the write x[j] when k == j (at run time) and the
    # read x[(j * 2) // 2] always: each sees the value written before it
    for j in range(1, x.shape[0]):
        x[j] = x[j - 1] + 1.0
        x[j] = x[j] * 2.0 + x[k] + x[(j * 2) // 2]
    return x


_READ_AFTER_WRITE = ph.pipeline(read_after_write)


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_read_after_write_at_another_index_expression(k):
    a = np.array([1., 2., 3., 4.])
    np.testing.assert_array_equal(_READ_AFTER_WRITE(a.copy(), k), read_after_write(a.copy(), k))


def empty_slices(u, v, w):
    r = (((w[2:] + v[2:]) - v[2:]) * u[1:-1]) - v[2:]
    r = r * 0.5 + w[1:-1]
    return r


_EMPTY = ph.pipeline(empty_slices)


def test_clamped_reads_over_an_empty_consumer():
    u, v, w = np.array([1.]), np.array([1.]), np.ones(3)
    np.testing.assert_array_equal(_EMPTY(u, v, w), empty_slices(u, v, w))
    # (and where the slices have elements, the values and NumPy's error)
    u, v, w = np.arange(5.), np.arange(4.) + 1, np.arange(3.) + 2
    with pytest.raises(ValueError):
        empty_slices(u, v, w)
    with pytest.raises(ValueError):
        _EMPTY(u, v, w)
    u, v, w = np.arange(5.), np.arange(5.) + 1, np.arange(5.) + 2
    np.testing.assert_array_equal(_EMPTY(u, v, w), empty_slices(u, v, w))


def test_a_real_out_of_range_read_still_raises():
    # x[k] with k == len(x): Python raises, so must the kernel
    a = np.array([1., 2., 3., 4.])
    with pytest.raises(IndexError):
        read_after_write(a.copy(), 4)
    with pytest.raises(IndexError):
        _READ_AFTER_WRITE(a.copy(), 4)
