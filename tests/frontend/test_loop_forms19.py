"""Loop forms refused before session 19 (issue 17), compared with plain
Python at several sizes (0 and 1 included).

range() with a computed step (frontend_ast/loop_steps.py): the sieve's
`for j in range(i * i, n, i)`, negative and call-time steps, a zero step
(ValueError, as range() raises), the loop variable after the loop, `break`
and `else` in such loops."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check

SIZES = [0, 1, 2, 3, 10, 100]


@ph.pipeline
def sieve(n):
    is_p = np.ones(n, dtype=np.bool_)
    if n > 0:
        is_p[0] = False
    if n > 1:
        is_p[1] = False
    for i in range(2, n):
        if is_p[i]:
            for j in range(i * i, n, i):
                is_p[j] = False
    return is_p


@ph.pipeline
def sieve_in_place(is_p):
    n = is_p.shape[0]
    for i in range(2, n):
        if is_p[i]:
            for j in range(i * i, n, i):
                is_p[j] = False
    return is_p


@ph.pipeline
def multiples_count(a):
    # every i-th element from i on, summed per i
    n = a.shape[0]
    out = np.zeros(n)
    for i in range(1, n):
        for j in range(i, n, i):
            out[i] += a[j]
    return out


@pytest.mark.parametrize("n", SIZES)
def test_sieve(n):
    got = check(sieve, n)
    assert got.sum() == sum(1 for k in range(n) if k > 1 and all(k % d for d in range(2, k)))


@pytest.mark.parametrize("n", SIZES)
def test_sieve_of_an_argument(n):
    a = np.ones(n, dtype=np.bool_)
    exp = sieve_in_place.py_func(a.copy())
    got = sieve_in_place(a)
    assert got.dtype == exp.dtype and np.array_equal(got, exp) and np.array_equal(a, exp)


@pytest.mark.parametrize("n", SIZES)
def test_strided_sums(n):
    check(multiples_count, np.arange(n, dtype=np.float64) * 0.5 + 1.0)


@ph.pipeline
def stepped(a, start, stop, step):
    # any step: Python's order of values, ValueError for 0
    t = 0.0
    for j in range(start, stop, step):
        t = t * 0.5 + a[j % a.shape[0]]
    return t


@pytest.mark.parametrize("start,stop,step", [
    (0, 10, 3), (0, 10, 1), (9, -1, -2), (9, -1, -1), (5, 5, 2), (5, 5, -2), (7, 2, 3),
    (2, 7, -3), (0, 10, 0), (5, 5, 0), (-4, 11, 4), (11, -4, -4), (3, 4, 100), (4, 3, -100)])
def test_steps_of_either_sign(start, stop, step):
    check(stepped, np.arange(1.0, 8.0), start, stop, step)


@ph.pipeline
def last_value(n, step):
    j = -7
    for j in range(1, n, step):
        pass
    return j


@pytest.mark.parametrize("n,step", [(0, 2), (1, 2), (2, 2), (9, 2), (10, 3), (10, -1), (-3, -2)])
def test_loop_variable_after_the_loop(n, step):
    check(last_value, n, step)


@ph.pipeline
def first_above(a, step, limit):
    found = -1
    for j in range(0, a.shape[0], step):
        if a[j] > limit:
            found = j
            break
    else:
        found = -2
    return found


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("step,limit", [(1, 0.5), (2, 0.5), (3, 0.9), (2, 5.0)])
def test_break_and_else(n, step, limit):
    rng = np.random.default_rng(n)
    check(first_above, rng.random(n), step, limit)


@ph.pipeline
def backwards_by_k(a, k):
    out = np.zeros(a.shape[0])
    c = 0.0
    for j in range(a.shape[0] - 1, -1, -k):
        c = c + a[j]
        out[j] = c
    return out


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_negative_computed_step_writing(n, k):
    check(backwards_by_k, np.arange(n, dtype=np.float64) + 1.0, k)


@ph.pipeline
def float_step(a, s):
    t = 0.0
    for j in range(0, 4, s):
        t += a[j]
    return t


def test_a_float_step_is_a_located_error():
    with pytest.raises(ph.CompileError, match="range\\(\\) needs integers") as e:
        float_step(np.ones(4), 1.5)
    assert "_ph_" not in str(e.value)


@ph.pipeline
def guarded_step(a, s):
    # Python never evaluates the range() for s == 0: no ValueError
    t = 0.0
    if s != 0:
        for j in range(0, a.shape[0], s):
            t += a[j]
    return t


@ph.pipeline
def argument_step_in_a_nest(a, s):
    t = 0.0
    for i in range(a.shape[0]):
        for j in range(0, a.shape[0], s):
            t = t + a[j] * i
    return t


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("s", [0, 1, 2, -1])
def test_zero_steps_raise_only_where_python_reaches_them(n, s):
    a = np.arange(n) * 1.5
    check(guarded_step, a, s)
    check(argument_step_in_a_nest, a, s)


@ph.pipeline
def steps_by_sign(a):
    n = a.shape[0]
    out = np.zeros((5, n))
    for s in range(-2, 3):
        if s > 0:
            for j in range(0, n, s):
                out[s + 2, j] = a[j] + s
        elif s < 0:
            for j in range(n - 1, -1, s):
                out[s + 2, j] = a[j] - s
    return out


@pytest.mark.parametrize("n", [0, 1, 5, 8])
def test_steps_of_a_loop_under_sign_branches(n):
    check(steps_by_sign, np.arange(n) * 1.5)


@ph.pipeline
def steps_of_either_sign_in_a_loop(n):
    t = 0
    for s in range(-2, 3):
        if s == 0:
            continue
        for j in range(n - 1 if s < 0 else 0, -1 if s < 0 else n, s):
            t = (t * 3 + j) % 1000003
    return t


def test_a_step_of_unknown_sign_changing_with_a_loop_is_a_located_error():
    # the loop over either direction would run over a hull nothing bounds
    with pytest.raises(ph.CompileError, match="sign of this range\\(\\)'s step") as e:
        steps_of_either_sign_in_a_loop(5)
    assert "if s > 0" in str(e.value) and "_ph_" not in str(e.value)
