"""`while` loops whose trip count the compiler cannot state (issue 17):
binary search, gcd, Collatz, Newton. Each is a serial loop of at most
loop_exits.WHILE_LIMIT iterations that is left when its test fails (it runs
as many iterations as Python's), raising RuntimeError where Python would
run more; a running value read inside such a loop (one value per
iteration) is a located refusal. Inside another loop too
(tests/frontend/test_nested_while.py). Compared with plain Python; sizes 0, 1, 5,
1003; ints and floats."""
import time

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast import loop_exits

from .frontend_check import check


@ph.pipeline
def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@ph.pipeline
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@ph.pipeline
def bisect_left(a, x):
    lo, hi = 0, len(a)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@ph.pipeline
def newton_sqrt(v):
    x = v if v > 1.0 else 1.0
    while abs(x * x - v) > 1e-12 * v:
        x = 0.5 * (x + v / x)
    return x


@ph.pipeline
def search_with_break(a, t):
    k = 0
    s = 0.0
    while s < t:
        if a[k % len(a)] < 0:
            break
        s += a[k % len(a)]
        k += 2
    return k, s


def test_scalar_loops():
    for a, b in ((48, 18), (17, 0), (0, 0), (0, 5), (2**40, 6), (-12, 8), (12, -8)):
        check(gcd, a, b)
    for n in (1, 2, 27, 97, 871, 2**20 + 1):
        check(collatz_steps, n)
    for v in (0.25, 1.0, 2.0, 1e10, 123.456):
        check(newton_sqrt, v)


@pytest.mark.parametrize("n", (1, 5, 1003))
@pytest.mark.parametrize("dtype", (np.int64, np.float64))
def test_binary_search(n, dtype):
    a = np.sort(np.random.default_rng(n).integers(-100, 100, n)).astype(dtype)
    for x in (a[0] - 1, a[n // 2], a[-1], a[-1] + 1, dtype(3)):
        check(bisect_left, a, x)


@pytest.mark.parametrize("n", (1, 5, 1003))
def test_break(n):
    a = np.abs(np.random.default_rng(n).standard_normal(n))
    check(search_with_break, a, 50.0)
    a[n // 2] = -1.0
    check(search_with_break, a, 1e9)


def test_runs_only_the_iterations_python_runs():
    """A few iterations of a loop of WHILE_LIMIT: the loop is left."""
    gcd(48, 18)
    t = time.process_time()
    for _ in range(100):
        assert gcd(10**12 + 39, 10**9 + 7) == 1
    assert time.process_time() - t < 1.0


def test_limit_raises(monkeypatch):
    monkeypatch.setattr(loop_exits, "WHILE_LIMIT", 50)

    @ph.pipeline
    def count_up(n):
        k = 0
        while n != 0:       # (no counter compared with a bound)
            n -= 1
            k += 1
        return k

    # (after 50 bodies its test has not been evaluated a 51st time)
    assert count_up(49) == 49
    with pytest.raises(RuntimeError, match="ran 50 iterations"):
        count_up(50)


def test_running_value_read_inside_refused():
    @ph.pipeline
    def write_per_step(a):
        out = np.zeros(len(a))
        i = 0
        while a[i] > 0:
            out[i] = a[i] * 2
            i += 1
        return out

    with pytest.raises(ph.CompileError, match="no bound the compiler can state"):
        write_per_step(np.array([3.0, 1.0, 0.0]))
