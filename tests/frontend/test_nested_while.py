"""`while` loops without a stated bound inside other loops (issue 17): a
per-row binary search, per-element gcd, Collatz length and Newton
iteration. The loop's state is computed per iteration of the enclosing
loops; its update's RVar stays the innermost serial loop and is left when
the test fails (ir.Definition.exit_required: a schedule that moves it is a
located CompileError). Compared with plain Python, default and automatic
schedules; sizes 0, 1, 7."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast import loop_exits

from .frontend_check import check


def row_gcds(a, b):
    out = np.zeros(a.shape[0], dtype=a.dtype)
    for r in range(a.shape[0]):
        x, y = a[r], b[r]
        while y != 0:
            x, y = y, x % y
        out[r] = x
    return out


def collatz_lengths(n):
    out = np.zeros(len(n), np.int64)
    for i in range(len(n)):
        v = n[i]
        c = 0
        while v != 1:
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            c += 1
        out[i] = c
    return out


def newton_sqrts(v):
    out = np.empty_like(v)
    for i in range(v.shape[0]):
        x = v[i] if v[i] > 1.0 else 1.0
        while abs(x * x - v[i]) > 1e-12 * v[i]:
            x = 0.5 * (x + v[i] / x)
        out[i] = x
    return out


def row_search(a, t):
    out = np.zeros(a.shape[0], np.int64)
    for r in range(a.shape[0]):
        lo = 0
        hi = a.shape[1]
        while lo < hi:
            mid = (lo + hi) // 2
            if a[r, mid] < t[r]:
                lo = mid + 1
            else:
                hi = mid
        out[r] = lo
    return out


def halvings_2d(m):
    out = np.zeros(m.shape, np.int64)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            v = m[i, j]
            c = 0
            while v > 1:
                v = v // 2
                c += 1
            out[i, j] = c
    return out


def newton_2d(m):
    out = np.empty_like(m)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            x = m[i, j] if m[i, j] > 1.0 else 1.0
            while abs(x * x - m[i, j]) > 1e-12 * m[i, j]:
                x = 0.5 * (x + m[i, j] / x)
            out[i, j] = x
    return out


def collatz_capped(a, lim):
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        v = a[i]
        c = 0
        while v != 1:
            if c >= lim:
                break
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            c += 1
        out[i] = c
    return out


def start_from_carried(a):
    out = np.zeros(len(a), np.int64)
    s = 1
    for i in range(len(a)):
        v = a[i] + s
        while v > 1:
            v = v // 2
        out[i] = v
        s = s + 1
    return out


def float_halvings(a):
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        x = a[i]
        n = 0
        while x >= 1.0:
            x *= 0.5
            n += 1
        out[i] = n
    return out


def longest_halving(a):
    best = 0
    for i in range(len(a)):
        v = a[i]
        c = 0
        while v > 1:
            v = v // 2
            c += 1
        if c > best:
            best = c
    return best


def odd_steps(a):
    # `v > 0` with `v -= 1` compares a counter, but one read from the array:
    # no loop bound from it (a `while` loop without a stated bound)
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        v = a[i]
        odd = 0
        while v > 0:
            v -= 1
            if v % 2 == 0:
                continue
            odd += 1
        out[i] = odd
    return out


def count_down_first(a):
    v = a[0]
    k = 0
    while v > 0:
        v -= 3
        k += 1
    return k, v


def while_else_capped(a, lim):
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        v = a[i]
        c = 0
        while v > 1:
            v = v // 2
            c += 1
            if c > lim:
                break
        else:
            c = -c
        out[i] = c
    return out


RNG = np.random.default_rng(17)
INTS = RNG.integers(1, 10**5, 7)


def _cases():
    yield row_gcds, (RNG.integers(-50, 10**6, 7), RNG.integers(-50, 10**6, 7))
    yield row_gcds, (np.array([48, 17, 0, 10**12 + 39]), np.array([18, 0, 5, 10**9 + 7]))
    yield row_gcds, (np.zeros(0, np.int64), np.zeros(0, np.int64))
    yield collatz_lengths, (INTS,)
    yield collatz_lengths, (np.array([1]),)
    yield newton_sqrts, (np.array([0.25, 1.0, 2.0, 1e10, 123.456]),)
    yield newton_sqrts, (np.zeros(0),)
    a = np.sort(RNG.integers(0, 100, (5, 17)), axis=1)
    yield row_search, (a, RNG.integers(-5, 105, 5))
    yield row_search, (a[:, ::2], a[:, 3])          # non-contiguous rows
    yield halvings_2d, (RNG.integers(0, 1000, (4, 5)),)
    yield halvings_2d, (RNG.integers(0, 1000, (4, 5)).T,)
    yield newton_2d, (RNG.random((3, 4)) * 100,)
    for lim in (0, 5, 1000):
        yield collatz_capped, (INTS, lim)
    yield start_from_carried, (INTS,)
    yield float_halvings, (RNG.random(7) * 1e6,)
    yield longest_halving, (INTS,)
    yield longest_halving, (INTS[:0],)
    yield odd_steps, (RNG.integers(-3, 40, 9),)
    yield count_down_first, (np.array([10, 4]),)
    yield count_down_first, (np.array([-2]),)
    yield while_else_capped, (RNG.integers(0, 300, 9), 4)


CASES = list(_cases())


@pytest.mark.parametrize("schedule", [None, "auto"])
@pytest.mark.parametrize("k", range(len(CASES)),
                         ids=[f"{fn.__name__}{k}" for k, (fn, _) in enumerate(CASES)])
def test_against_python(k, schedule):
    fn, args = CASES[k]
    check(ph.pipeline(fn, schedule=schedule), *args)


def test_loop_is_left():
    """Each row's loop runs as many iterations as Python's (a loop of
    WHILE_LIMIT iterations per row would not finish)."""
    f = ph.pipeline(row_gcds)
    a = np.full(64, 10**12 + 39)
    b = np.full(64, 10**9 + 7)
    assert (f(a, b) == 1).all()


def test_limit_raises(monkeypatch):
    monkeypatch.setattr(loop_exits, "WHILE_LIMIT", 50)

    def count_down(a):
        out = np.zeros(len(a), np.int64)
        for i in range(len(a)):
            n = a[i]
            k = 0
            while n != 0:
                n -= 1
                k += 1
            out[i] = k
        return out

    f = ph.pipeline(count_down)
    assert f(np.array([3, 49, 0])).tolist() == [3, 49, 0]
    with pytest.raises(RuntimeError, match="ran 50 iterations"):
        f(np.array([3, 50, 0]))


def test_schedule_moving_the_loop_refused():
    """A schedule that puts the enclosing loop inside the `while` loop's
    would run all WHILE_LIMIT iterations: a located CompileError."""
    def inner_first(p):
        u = p.funcs["x"].update(0)
        u.reorder(*[d.var for d in u.definition().schedule.dims][::-1])

    f = ph.pipeline(row_gcds, schedule=inner_first)
    with pytest.raises(ph.CompileError, match="innermost serial loop") as e:
        f(np.arange(1, 5), np.arange(3, 7))
    assert "while y != 0" in str(e.value)


def test_return_inside_refused_without_internal_names():
    def first_reaching(a, t):
        for i in range(len(a)):
            v = a[i]
            while v > 1:
                if v == t:
                    return i
                v = v // 2 if v % 2 == 0 else 3 * v + 1
        return -1

    with pytest.raises(ph.CompileError, match="line") as e:
        ph.pipeline(first_reaching)(np.array([3, 7]), 5)
    assert "?" not in str(e.value).split("hint")[0]


def test_parallel_enclosing_loop():
    def par(p):
        p.funcs["x"].update(0).parallel(p.vars["x", "r"])

    a, b = RNG.integers(1, 10**6, 40), RNG.integers(1, 10**6, 40)
    check(ph.pipeline(row_gcds, schedule=par), a, b)


def test_dask_refused():
    """On Dask the block's halo is found by running it on zeros, where such a
    loop may not end (collatz of 0): a located CompileError instead."""
    da = pytest.importorskip("dask.array")
    f = ph.pipeline(collatz_lengths)
    with pytest.raises(ph.CompileError, match="Dask blocks") as e:
        f.dask(da.from_array(np.arange(1, 9), chunks=4))
    assert "while v != 1" in str(e.value)
