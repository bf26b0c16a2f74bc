"""Element swaps in loops that hold other loops and statements (issue 17):
bubble sort with a bound set in the outer loop (the inner loop is not the
outer one's whole body) and selection sort (a swap after a search loop)
compile since session 27 (phase mode's Blocks, carried_blocks.py); a swap
in a `while` loop (insertion sort) is a located refusal that says so.
Plain Python runs each. (Tuple swaps under `if`s, in one loop or a perfect
nest of two, compile: test_guarded_swaps.py, test_nested_swaps.py; so does
a swap through a temporary of the user's under an `if` since session 21,
frontend_ast/swap_temps.py: test_one_pass_with_temporary below.)"""
import numpy as np
import pytest

import pyhalide as ph


def bubble_sort(a):
    n = a.shape[0]
    for i in range(n):
        k = n - 1 - i
        for j in range(k):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return a


def selection_sort(a):
    n = a.shape[0]
    for i in range(n):
        m = i
        for j in range(i + 1, n):
            if a[j] < a[m]:
                m = j
        a[i], a[m] = a[m], a[i]
    return a


def one_pass(a):
    for i in range(a.shape[0] - 1):
        if a[i] > a[i + 1]:
            t = a[i]
            a[i] = a[i + 1]
            a[i + 1] = t
    return a


def insertion_sort(a):
    n = a.shape[0]
    for i in range(1, n):
        j = i
        while j > 0 and a[j - 1] > a[j]:
            a[j - 1], a[j] = a[j], a[j - 1]
            j -= 1
    return a


@pytest.mark.parametrize("fn", [bubble_sort, selection_sort])
def test_sort_with_inner_loop_as_python(fn):
    rng = np.random.default_rng(27)
    p = ph.pipeline(fn)
    for a in (np.array([3.0, 1.0, 2.0]), rng.integers(0, 4, 9).astype(float), np.zeros(0),
              np.ones(1), rng.random(12)):
        got, exp = a.copy(), a.copy()
        assert np.array_equal(p(got), fn(exp)) and np.array_equal(got, exp)


def test_swap_refusal_says_why():
    a = np.array([3.0, 1.0, 2.0])
    assert list(insertion_sort(a.copy())) == sorted(a)
    with pytest.raises(ph.CompileError, match="two different positions") as e:
        ph.pipeline(insertion_sort)(a.copy())
    text = str(e.value)
    assert "here it is inside a loop that holds other statements" in text and \
        ":51:" in text, text


def test_one_pass_with_temporary():
    """The swap through `t` compiles (the tuple swap): equal to Python."""
    rng = np.random.default_rng(3)
    p = ph.pipeline(one_pass)
    for a in (np.array([3.0, 1.0, 2.0]), rng.random(9), rng.integers(0, 4, 12), np.zeros(0)):
        got, exp = a.copy(), a.copy()
        assert np.array_equal(p(got), one_pass(exp)) and np.array_equal(got, exp)
