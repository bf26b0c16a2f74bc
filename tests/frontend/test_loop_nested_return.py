"""`return` inside nested loops (frontend_ast/loop_exits.py forwards it
through each enclosing loop): the compiled function returns what plain
Python returns, from any depth, or falls through to the final return."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_array_fuzz import compare


def pair_search(a, t):
    N = len(a)
    s = 0
    for i in range(N):
        s += 1
        for j in range(N):
            if a[i] * a[j] > t:
                return s, i, j
            s += a[j]
    return s, -1, -1


def inner_only(a, t):
    N = len(a)
    for i in range(N):
        for j in range(N - 1, -1, -1):
            if a[i] - a[j] == t:
                return i * 100 + j
    return -1


@pytest.mark.parametrize("fn", [pair_search, inner_only])
def test_return_inside_nested_loops(fn):
    p = ph.pipeline(fn)
    for n in (0, 1, 3, 6):
        a = (np.arange(n, dtype=np.int64) * 7 + 2) % 9 - 3
        for t in (-100, 0, 5, 30, 1000):
            assert compare(p, [a, t], fn.__name__)
