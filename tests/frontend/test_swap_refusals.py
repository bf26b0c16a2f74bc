"""Element swaps that phase mode does not compile yet (issue 17): bubble
sort (a swap under an `if` in an inner loop), selection sort (a swap in a
loop that holds another loop) and a swap through a temporary of the user's
under an `if` are located refusals that say which of these it is. Plain
Python runs each. (A tuple swap under an `if` in a single loop compiles:
test_guarded_swaps.py.)"""
import numpy as np
import pytest

import pyhalide as ph


def bubble_sort(a):
    n = a.shape[0]
    for i in range(n):
        for j in range(n - 1 - i):
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
    (bubble_sort, 18, "here it is inside another loop"),
    (selection_sort, 29, "here the loop holds another loop"),
    (one_pass, 38, "here the `if` around the writes holds other statements"),
])
def test_swap_refusal_says_why(fn, line, why):
    a = np.array([3.0, 1.0, 2.0])
    assert list(fn(a.copy())) == sorted(a) or fn is one_pass
    with pytest.raises(ph.CompileError, match="two different positions") as e:
        ph.pipeline(fn)(a.copy())
    text = str(e.value)
    assert why in text and f":{line}:" in text, text
