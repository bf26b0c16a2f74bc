"""Element swaps that phase mode does not compile yet (issue 17): bubble sort
with a flag set in the outer loop (the inner loop is not the outer one's
whole body), selection sort (a swap in a loop that holds another loop and
other statements) and a swap through a temporary of the user's under an
`if` are located refusals that say which of these it is. Plain Python runs
each. (Tuple swaps under `if`s, in one loop or a perfect nest of two,
compile: test_guarded_swaps.py, test_nested_swaps.py.)"""
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
    (bubble_sort, 20, "here it is inside a loop that holds other statements"),
    (selection_sort, 31, "here the loop holds another loop and other statements"),
    (one_pass, 40, "here the `if` around the writes holds other statements or an else"),
])
def test_swap_refusal_says_why(fn, line, why):
    a = np.array([3.0, 1.0, 2.0])
    assert list(fn(a.copy())) == sorted(a) or fn is one_pass
    with pytest.raises(ph.CompileError, match="two different positions") as e:
        ph.pipeline(fn)(a.copy())
    text = str(e.value)
    assert why in text and f":{line}:" in text, text
