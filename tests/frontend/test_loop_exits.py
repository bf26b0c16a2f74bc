"""`break`, `continue`, `while` loops with a stated bound, for/while-else and
early `return`, compared with plain Python; the early exit of the lowered
loop; located errors for what stays unsupported."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check
from .test_frontend_errors import expect

A = np.array([1.0, 5.0, 2.0, 7.0, 3.0])
THRESHOLDS = (-1.0, 0.0, 3.0, 6.0, 10.0)


# break -----------------------------------------------------------------------------------
@ph.pipeline
def first_above(a, t):
    s = 0.0
    n = 0
    for i in range(len(a)):
        if a[i] > t:
            break
        s += a[i]
        n += 1
    return s, n


@ph.pipeline
def break_in_else(a, t):
    s = 0.0
    for i in range(len(a)):
        if a[i] < t:
            s += a[i]
        else:
            s -= 1.0
            break
    return s


@ph.pipeline
def inner_break_accumulates(a, t):
    # s accumulates over the whole nest; the inner loop stops per row
    s = 0.0
    for i in range(len(a)):
        for j in range(len(a)):
            if a[j] > t + i:
                break
            s += a[i] * a[j]
    return s


@ph.pipeline
def inner_break_per_row(a, t):
    # s starts anew in each row; the row sums are added up outside
    tot = 0.0
    for i in range(len(a)):
        s = 0.0
        for j in range(len(a)):
            if a[j] > t:
                break
            s += a[i] * a[j]
        tot += s
    return tot


@ph.pipeline
def outer_break(a, t):
    s = 0.0
    for i in range(len(a)):
        if a[i] > t:
            break
        for j in range(3):
            s += a[j]
    return s


@ph.pipeline
def continue_and_break(a, t):
    s = 0.0
    k = 0
    for i in range(len(a)):
        k += 1
        if a[i] == 2.0:
            continue
        if a[i] > t:
            break
        s += a[i]
    return s, k


@ph.pipeline
def break_writes_array(a, t):
    out = np.zeros(len(a))
    for i in range(len(a)):
        if a[i] > t:
            break
        out[i] = a[i] * 2
    return out


@ph.pipeline
def for_else(a, t):
    c = 0
    found = -1
    for i in range(len(a)):
        if a[i] > t:
            found = i
            break
    else:
        c = 100
    return found + c


@pytest.mark.parametrize("fn", [first_above, break_in_else, inner_break_accumulates,
                                inner_break_per_row, outer_break, continue_and_break,
                                break_writes_array, for_else],
                         ids=lambda f: f.__name__)
def test_break(fn):
    for t in THRESHOLDS:
        check(fn, A, t)
    check(fn, A[:0], 1.0)


# while --------------------------------------------------------------------------------------
@ph.pipeline
def escape_time(cx, cy, maxiter):
    out = np.zeros(len(cx), np.int64)
    for p in range(len(cx)):
        x = 0.0
        y = 0.0
        i = 0
        while i < maxiter and x * x + y * y < 4.0:
            x, y = x * x - y * y + cx[p], 2 * x * y + cy[p]
            i += 1
        out[p] = i
    return out


@ph.pipeline
def plain_while(a):
    s = 0.0
    i = 0
    while i < len(a):
        s += a[i]
        i += 1
    return s, i


@ph.pipeline
def while_down(a, n):
    s = 0.0
    i = n
    while 0 <= i and s < 8.0:
        s += a[i % len(a)]
        i -= 2
    return s, i


@ph.pipeline
def while_le_break_else(a, n):
    i = 1
    r = 0.0
    while i <= n:
        if a[i % len(a)] > 6.0:
            r = -1.0
            break
        r += a[i % len(a)]
        i += 1
    else:
        r += 0.5
    return r, i


@ph.pipeline
def while_return_else(a, n):
    i = 0
    s = np.float64(0.0)
    while i < n:
        if a[i % len(a)] > 6.0:
            return s, i
        s += a[i % len(a)]
        i += 1
    else:
        s = s * 2
    return s, -1


@ph.pipeline
def while_continue_after_step(a, n):
    i = 0
    s = 0.0
    while i < n:
        i += 1
        if a[i % len(a)] > 4.0:
            continue
        s += a[i % len(a)]
    return s


@ph.pipeline
def while_per_element(a, n):
    tot = 0
    for p in range(len(a)):
        k = 0
        while k < n and a[p] * k < 10.0:
            k += 1
        tot += k
    return tot


def test_escape_time():
    cx = np.linspace(-2.0, 1.0, 41)
    cy = np.linspace(-1.0, 1.0, 41)
    for maxiter in (0, 1, 7, 60):
        check(escape_time, cx, cy, maxiter)


def test_while():
    for n in (0, 1, 4, 9):
        check(while_down, A, n)
        check(while_le_break_else, A, n)
        check(while_return_else, A, n)
        check(while_continue_after_step, A, n)
        check(while_per_element, A, n)
    check(plain_while, A)
    check(plain_while, A[:0])


def test_early_exit_is_lowered():
    """The update of the loop's variables states its exit and the lowered
    loop is left when it holds (no iteration runs after it)."""
    cx = np.linspace(-2.0, 1.0, 5)
    escape_time(cx, cx, 10)
    loops = escape_time.lower("loops")
    assert "exit loop" in loops
    assert "?" not in loops and "r_while" in loops     # the while loop's RVar
    inner_break_accumulates(A, 1.0)
    assert "exit loop" in inner_break_accumulates.lower("loops")
    # the flags the rewrite adds name no Func
    assert {"x", "y", "i", "x_y_i"} <= set(escape_time.funcs)
    assert not any("?" in f or "_phx" in f for f in escape_time.funcs)


def while_true(a):
    i = 0
    while True:
        if a[i] > 3:
            break
        i += 1
    return i


def while_counter_in_if(a):
    i = 0
    s = 0
    while i < len(a):
        if a[i] > 3:
            i += 1
        s += 1
    return s


def while_continue_before_step(a):
    i = 0
    s = 0
    while i < len(a):
        if a[i] > 3:
            continue
        s += a[i]
        i += 1
    return s


@pytest.mark.parametrize("fn, a", [(while_true, np.array([1.0, 2.0, 5.0, 1.0])),
                                   (while_counter_in_if, np.array([4.0, 5.0, 6.0])),
                                   (while_continue_before_step, np.array([1.0, 2.0, 3.0]))],
                         ids=["while_true", "counter_in_if", "continue_before_step"])
def test_while_without_bound(fn, a):
    """Without a stated bound a top-level `while` loop is a serial loop of
    at most loop_exits.WHILE_LIMIT iterations, left when its test fails
    (tests/frontend/test_while_unbounded.py); here inputs Python finishes on."""
    p = ph.pipeline(fn)
    assert p(a) == fn(a)


# return -------------------------------------------------------------------------------------
@ph.pipeline
def find(a, t):
    for i in range(len(a)):
        if a[i] > t:
            return i
    return -1


@ph.pipeline
def find_pair(a, t):
    for i in range(len(a)):
        if a[i] > t:
            return i, a[i] * 2
    return -1, 0.5


@ph.pipeline
def find_typed(a, t):
    # int from the loop, float after it: the result's type depends on the data
    for i in range(len(a)):
        if a[i] > t:
            return i
    return 0.5


@ph.pipeline
def find_value(a, t):
    for i in range(len(a)):
        if a[i] > t:
            return a[i]
        if a[i] < -t:
            return -1
    return 2


@ph.pipeline
def return_in_if(x, y):
    if x > 3:
        return x * 2
    z = x + y
    if z > 10:
        return z
    elif z < 0:
        return 0.5
    return z - y


@ph.pipeline
def return_from_while(a, n):
    i = 0
    while i < n:
        if a[i % len(a)] > 4.0:
            return i, True
        i += 1
    return -1, False


def test_return_from_loop():
    for t in THRESHOLDS:
        check(find, A, t)
        check(find_pair, A, t)
        check(find_typed, A, t)
        check(find_value, A, t)
    check(find, A[:0], 0.0)
    check(find_typed, A[:0], 0.0)
    for n in (0, 1, 2, 7):
        check(return_from_while, A, n)


def test_return_in_if():
    for x, y in ((5, 1), (2, 20), (1, -8), (2, 3), (2.5, 1)):
        check(return_in_if, x, y)


def returns_value_or_none(a):
    for i in range(len(a)):
        if a[i] > 3:
            return i
    return


def returns_different_tuples(a):
    for i in range(len(a)):
        if a[i] > 3:
            return i, a[i]
    return -1


def falls_off_end(a):
    for i in range(len(a)):
        if a[i] > 3:
            return i


def returns_value_of_changing_type(a):
    s = 0.0
    for i in range(len(a)):
        if a[i] > 3:
            return s * 2
        s += a[i]
    return s


@ph.pipeline
def returns_carried_variable(a):
    # the variable returned everywhere: its type after the loop is the one it had
    s = 0.0
    for i in range(len(a)):
        if a[i] > 3:
            return s
        s += a[i]
    return s


def test_return_errors():
    expect(returns_value_or_none, "return\n", "a value on some paths and None")
    expect(returns_different_tuples, "return -1", "tuples of different forms")
    expect(falls_off_end, "for i in range", "reaches its end")
    msg = expect(returns_value_of_changing_type, "for i in range",
                 "the value a `return` in this loop returns", "depends on the data")
    assert "?" not in msg.split("\n")[0]


@ph.pipeline
def fill_until(a, t):
    out = np.zeros(len(a))
    n = 0
    for i in range(len(a)):
        out[i] = a[i] * 2
        n += 1
        if a[i] > t:
            return n, out
    return n, out


@ph.pipeline
def fill_before(a, t):
    out = np.zeros(len(a), np.int64)
    for i in range(len(a)):
        if a[i] > t:
            return i, out
        out[i] = i * 3
    return -1, out


def test_return_array_from_loop():
    # every return returns the same array: it needs no variable named in the loop
    for t in THRESHOLDS:
        check(fill_until, A, t)
        check(fill_before, A, t)
    check(fill_until, A[:0], 0.0)
    for a in (np.arange(6, dtype=np.int32), np.arange(3, dtype=np.int32),
              np.arange(6, dtype=np.int32)[::-1].copy()):
        check(returns_carried_variable, a)


@ph.pipeline
def grow_until(a, limit):
    # the exit test reads the element the iteration wrote (a Func cycle before)
    out = np.zeros(len(a))
    for i in range(len(a)):
        out[i] = a[i] * 1.5 + i
        if out[i] > limit:
            break
    return out


@ph.pipeline
def first_big_excess(a, t):
    out = np.zeros(len(a))
    for i in range(len(a)):
        if a[i] > t:
            out[i] = a[i] - t
            if out[i] > 1.0:      # read under the write's own condition
                break
    return out


def test_exit_reads_element_written_in_iteration():
    for limit in (-1.0, 0.5, 3.0, 1e9):
        check(grow_until, A, limit)
    for t in THRESHOLDS:
        check(first_big_excess, A, t)
