"""Loops whose bounds are min/max/abs of forms in an enclosing loop's
variable (`for j in range(max(1, N - i))`) run over a hull of their ranges
bounded by the arrays' sizes, under the predicate of the exact range: the
bounds of max(a, b) are compared over the enclosing loops' ranges
(unions.merge_bounds), else bounded by a + b - min(lo(a), lo(b))
(calls._sum_bounds); abs(v) by max(v, -v). Before, such a loop ran
2^31 - 1 guarded iterations (1.1 s a call at n = 3)."""
import re

import numpy as np
import pytest

import pyhalide as ph


def hull_nests(a, b):
    N = len(a)
    M = len(b)
    k = 1
    for i in range(N):
        for j in range(max(1, N - i)):
            k = k * 3 % 10007 + j
    for i in range(N):
        for j in range(max(N - i, M)):
            k = k * 5 % 10007 + j
    for i in range(N):
        for j in range(min(N - i, M)):
            k = k * 7 % 10007 + j
    for i in range(N):
        for j in range(abs(N - 2 * i)):
            k = k * 11 % 10007 + j
    for i in range(N):
        for j in range(i, max(i, M)):
            k = k * 13 % 10007 + j
    for i in range(N):
        for j in range(0, max(1, N - i), 2):
            k = k * 17 % 10007 + j
    for i in range(N):
        for j in range(max(1, N - i), -1, -1):
            k = k * 19 % 10007 + j
    for i in range(N):
        for j in range(max(2, N - i, i)):
            k = k * 23 % 10007 + j
    return k


@pytest.fixture(scope="module")
def compiled():
    return ph.pipeline(hull_nests)


def test_results_are_python_s(compiled):
    for n in range(0, 7):
        for m in (0, 1, 4):
            a, b = np.arange(n, dtype=np.int64), np.arange(m, dtype=np.int64)
            assert compiled(a, b) == hull_nests(a, b), (n, m)
    a, b = np.arange(40, dtype=np.int64), np.arange(25, dtype=np.int64)
    assert compiled(a, b) == hull_nests(a, b)


def test_no_loop_runs_to_int32_max(compiled):
    text = compiled.lower(stage="final", arg_specs=[("a", np.dtype(np.int64), (5,)),
                                                    ("b", np.dtype(np.int64), (3,))])
    loops = re.findall(r"for \((k(\$\d+)?\.s\d+\.\S+), ([^\n]*)\) \{", text)
    assert len(loops) >= 9
    assert not [lp for lp in loops if lp[2].endswith(", 2147483647")], text
