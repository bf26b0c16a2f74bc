"""A top-level loop whose running value and an inner loop's reduction read
each other (convergence loops: `err` summed over an inner loop from the
current `x`, `x` updated from `err`, `if err < tol: break`) compile as one
serial update (frontend_ast/scan_nests.py) and equal plain Python bit for
bit, also with no iteration, an empty inner loop, and an exit at the first,
a middle and no iteration. They were refused with "the Funcs call each other
in a cycle"."""
import math

import numpy as np
import pytest

import pyhalide as ph


def fixed_point(a, maxit, tol):
    x = 1.0
    err = -1.0
    it = -1
    for it in range(maxit):
        err = 0.0
        for i in range(a.shape[0]):
            err += abs(a[i] - x)
        x = 0.5 * x + 0.1
        if err < tol:
            break
    return x, err, it


def descent(a, maxit):
    x = 1.0
    for it in range(maxit):
        err = 0.0
        for i in range(a.shape[0]):
            err += abs(a[i] - x)
        x = x - 0.01 * err
    return x


def residual_stop(a, maxit, tol):
    x = 0.0
    n_it = 0
    for it in range(maxit):
        r = 0.0
        for i in range(a.shape[0]):
            r = max(r, abs(a[i] - x))
        if r < tol:
            break
        x = x + 0.5 * (a[0] - x)
        n_it += 1
    return x, n_it


def mean_iteration(a, maxit, tol):
    # the value whose mean squared distance from a's elements is tol
    m = 0.0
    steps = 0
    n = a.shape[0]
    for it in range(maxit):
        steps = it
        s = 0.0
        for v in a:
            s += (v - m) * (v - m)
        if math.fabs(s / max(n, 1) - tol) < 1e-12:
            break
        m = m + 0.1 * (s / max(n, 1) - tol)
    return m, steps


RNG = np.random.default_rng(5)
ARRAYS = [RNG.random(6), RNG.random(1), np.zeros(0), RNG.standard_normal(33)]


@pytest.mark.parametrize("k", range(len(ARRAYS)))
@pytest.mark.parametrize("maxit,tol", [(0, 1.0), (1, 10.0), (30, 2.2), (50, 0.0), (40, 1e9)])
def test_fixed_point_with_break(k, maxit, tol):
    a = ARRAYS[k]
    got, expect = ph.pipeline(fixed_point)(a, maxit, tol), fixed_point(a, maxit, tol)
    assert got == expect and [type(v) for v in got] == [type(v) for v in expect]


@pytest.mark.parametrize("k", range(len(ARRAYS)))
@pytest.mark.parametrize("maxit", [0, 1, 7, 40])
def test_descent_without_break(k, maxit):
    a = ARRAYS[k]
    assert ph.pipeline(descent)(a, maxit) == descent(a, maxit)


@pytest.mark.parametrize("k", range(len(ARRAYS)))
@pytest.mark.parametrize("maxit,tol", [(0, 0.1), (3, 0.1), (60, 1e-3), (60, 0.0)])
def test_residual_with_max_and_a_counter(k, maxit, tol):
    a = ARRAYS[k]
    if a.size == 0:
        # a[0] of an empty array: IndexError where the loop reaches it
        expect = None
        try:
            expect = residual_stop(a, maxit, tol)
        except IndexError:
            with pytest.raises(IndexError):
                ph.pipeline(residual_stop)(a, maxit, tol)
            return
        assert ph.pipeline(residual_stop)(a, maxit, tol) == expect
        return
    assert ph.pipeline(residual_stop)(a, maxit, tol) == residual_stop(a, maxit, tol)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("k", range(len(ARRAYS)))
def test_a_local_value_in_the_inner_loop(k):
    a = ARRAYS[k]
    for maxit, tol in ((0, 0.1), (25, 0.05), (200, 0.3)):
        assert ph.pipeline(mean_iteration)(a, maxit, tol) == mean_iteration(a, maxit, tol)


@pytest.mark.parametrize("maxit,tol", [(0, 1.0), (1, 1.0), (30, 2.0), (30, 0.0), (30, 100.0),
                                       (100000, 2.0)])
def test_the_values_after_the_loop_are_the_breaking_iterations(maxit, tol):
    a = np.random.default_rng(1).random(5)
    got = ph.pipeline(fixed_point)(a, maxit, tol)
    expect = fixed_point(a, maxit, tol)
    assert got == expect and [type(v) for v in got] == [type(v) for v in expect]


def skipping(a, maxit, tol):
    x = 1.0
    for it in range(maxit):
        err = 0.0
        for i in range(a.shape[0]):
            if a[i] < 0.1:
                continue
            err += abs(a[i] - x)
        x = 0.5 * x + 0.1
        if err < tol:
            break
    return x


def two_carried(a, maxit, tol):
    x, y = 1.0, 0.0
    for it in range(maxit):
        e = 0.0
        for i in range(a.shape[0]):
            e += abs(a[i] - x) + y
        x, y = 0.5 * x + 0.1, y * 0.5 + e * 0.01
        if e < tol:
            break
    return x, y


def counting(a, maxit):
    c = 0
    for it in range(maxit):
        k = 0
        for i in range(a.shape[0]):
            if a[i] > c:
                k += 1
        c = c + k
        if k == 0:
            break
    return c


def while_converging(a, tol):
    x = 1.0
    e = tol + 1.0
    steps = 0
    while e > tol and steps < 100:
        e = 0.0
        for i in range(a.shape[0]):
            e += abs(a[i] - x)
        x = 0.5 * x + 0.1
        steps += 1
    return x, steps


def growing_inner(a, maxit):
    x = 1.0
    for it in range(maxit):
        e = 0.0
        for i in range(it):
            e += abs(a[i % a.shape[0]] - x)
        x = 0.5 * x + 0.01 * e
    return x


def two_inner_loops(a, maxit, tol):
    x = 1.0
    for it in range(maxit):
        e1 = 0.0
        for i in range(a.shape[0]):
            e1 += abs(a[i] - x)
        e2 = 0.0
        for i in range(a.shape[0]):
            e2 = max(e2, abs(a[i] - x))
        x = 0.5 * x + 0.1
        if e1 + e2 < tol:
            break
    return x


@pytest.mark.parametrize("fn,args", [
    (skipping, (0.5, 40, 1.5)), (two_carried, (0.5, 40, 2.0)), (counting, (None, 30)),
    (while_converging, (0.5, 2.2)), (growing_inner, (0.5, 9))])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_more_forms(fn, args, seed):
    r = np.random.default_rng(seed)
    a = r.integers(0, 20, 8) if args[0] is None else r.random(6) * 2 * args[0]
    args = (a,) + args[1:]
    got, expect = ph.pipeline(fn)(*args), fn(*args)
    assert got == expect and type(got) is type(expect)


def test_several_inner_loops_are_a_located_error():
    with pytest.raises(ph.CompileError) as e:
        ph.pipeline(two_inner_loops)(np.ones(3), 5, 1.0)
    msg = str(e.value)
    assert "'e1', 'e2' of its inner loops read each other" in msg and "hint:" in msg
    assert "test_convergence_nests22.py:" in msg and "for it in range(maxit)" in msg
