"""Element swaps inside a loop (issue 17): `a[i], a[n - 1 - i] = a[n - 1 - i], a[i]`
writes one array at two positions per iteration, which the scalar loop
machinery (one index per array per iteration) cannot order; such a loop
runs in phase mode (carried_phases.py), each element write in Python's
order, in time linear in the iterations. Compared with plain Python on
copies (results and arguments); out-of-range indices raise IndexError as
Python does. Swaps under `if`s and in a perfect nest of two loops (bubble
sort): test_guarded_swaps.py, test_nested_swaps.py."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


@ph.pipeline
def reverse(a):
    n = a.shape[0]
    for i in range(n // 2):
        a[i], a[n - 1 - i] = a[n - 1 - i], a[i]
    return a


@ph.pipeline
def reverse_twice(a):
    """Negative indices; every pair swapped twice (the identity)."""
    for i in range(a.shape[0]):
        a[i], a[-1 - i] = a[-1 - i], a[i]
    return a


@ph.pipeline
def bubble_up(a, k):
    """The first element carried to position k, one neighbour at a time."""
    for i in range(k):
        a[i], a[i + 1] = a[i + 1], a[i]
    return a


@ph.pipeline
def shift_add(a, b):
    n = a.shape[0]
    for i in range(n - 1):
        a[i], a[i + 1] = a[i + 1], a[i] + b[i]
    return a


@ph.pipeline
def targets_right_to_left(a):
    for i in range(a.shape[0] - 1):
        a[i + 1], a[i] = a[i] * 2.0, a[i + 1]
    return a


@ph.pipeline
def local_reverse(x):
    a = x * 1.5
    n = a.shape[0]
    for i in range(1, n // 2, 2):
        a[i], a[n - 1 - i] = a[n - 1 - i], a[i]
    return a


@pytest.mark.parametrize("n", [1, 2, 7, 8])
def test_reversal(n):
    a = np.arange(float(n)) ** 2
    check_inplace(reverse, a)
    check_inplace(reverse_twice, a)
    check_inplace(local_reverse, a)


def test_neighbour_swaps():
    a = np.linspace(-1.0, 1.0, 6) ** 3
    for k in (0, 3, 5):
        check_inplace(bubble_up, a, k)
    check_inplace(shift_add, a, np.ones(6))
    check_inplace(targets_right_to_left, a)


def test_swap_out_of_range_raises_like_python():
    with pytest.raises(IndexError):
        bubble_up.py_func(np.arange(6.0), 6)
    with pytest.raises(IndexError, match="out of bounds"):
        bubble_up(np.arange(6.0), 6)



def test_empty_array_in_phase_mode():
    """An empty member reads nothing of its initial array (phase mode used to
    read element 0 of an empty argument: a false IndexError)."""
    check_inplace(reverse, np.zeros(0))
    check_inplace(local_reverse, np.zeros(0))
