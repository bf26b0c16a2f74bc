"""Element swaps that phase mode does not compile yet (issue 17): bubble sort
with a flag set in the outer loop (the inner loop is not the outer one's
whole body), selection sort (a swap in a loop that holds another loop and
other statements) are located refusals that say which of these it is.
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


@pytest.mark.parametrize("fn,line,why", [
    (bubble_sort, 21, "here it is inside a loop that holds other statements"),
    (selection_sort, 32, "here the loop holds another loop and other statements"),
])
def test_swap_refusal_says_why(fn, line, why):
    a = np.array([3.0, 1.0, 2.0])
    assert list(fn(a.copy())) == sorted(a)
    with pytest.raises(ph.CompileError, match="two different positions") as e:
        ph.pipeline(fn)(a.copy())
    text = str(e.value)
    assert why in text and f":{line}:" in text, text


def test_one_pass_with_temporary():
    """The swap through `t` compiles (the tuple swap): equal to Python."""
    rng = np.random.default_rng(3)
    p = ph.pipeline(one_pass)
    for a in (np.array([3.0, 1.0, 2.0]), rng.random(9), rng.integers(0, 4, 12), np.zeros(0)):
        got, exp = a.copy(), a.copy()
        assert np.array_equal(p(got), one_pass(exp)) and np.array_equal(got, exp)
