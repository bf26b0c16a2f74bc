"""Insertion sort whose element to insert is bound in other forms than
`key = a[i]` (a wrong result until session 21: `key, j = a[i], i - 1`,
`key = float(a[i])`, `key = a[i] * 1.0`, `k0 = a[i]; key = k0` and
`key = 0.0; key += a[i]` were not carried by the shifting loop, which then
read the element as the loop had overwritten it: [0.05, 0.29, 0.52, 0.81,
0.81] sorted to [0.81, 0.81, 0.81, 0.81, 0.81]). frontend_ast/
while_exit_write.py's _element_values. Plain Python is the oracle."""
import numpy as np
import pytest

import pyhalide as ph

from .test_exit_recurrence import run_both
from .test_insertion_sort import _inputs


@ph.pipeline
def key_tuple(a):
    for i in range(1, a.shape[0]):
        key, j = a[i], i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


@ph.pipeline
def key_float(a):
    for i in range(1, len(a)):
        key = float(a[i]) * 1.0
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]; j -= 1
        a[j + 1] = key
    return a


@ph.pipeline
def key_through_name(a):
    n = a.shape[0]
    for i in range(1, n):
        k0 = a[i]
        key = k0
        j = i - 1
        while j >= 0 and key < a[j]:
            a[j + 1] = a[j]
            j = j - 1
        a[j + 1] = key
    return a


@ph.pipeline
def key_augmented(a):
    n = a.shape[0]
    for i in range(1, n):
        key = 0.0
        key += a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 9, 30])
def test_key_forms(n):
    rng = np.random.default_rng(400 + n)
    for a in _inputs(rng, n):
        if a.dtype != np.float64:
            continue    # (float(a[i]) is a Python float: a float64 array keeps it exact)
        for p in (key_tuple, key_float, key_through_name, key_augmented):
            run_both(p, a)
    a = rng.random(n)
    b = a.copy()
    key_tuple(b)
    assert np.array_equal(b, np.sort(a))
