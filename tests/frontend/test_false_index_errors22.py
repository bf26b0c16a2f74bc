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
