"""A read, in a loop nest, of an element written earlier in the same
iteration whose written value reads an array the nest writes
(`a[i] *= k; b[i] += a[i]`, frontend_ast/forwarded_reads.py). Python's read
sees the value just written. Each form compiles and equals plain Python
(several sizes, 0 and 1 included), also when the arrays are arguments the
function writes; the forms whose read Python makes before a later write of
the element are located errors. These were all refused before ("'a' is read
here but written later in this loop nest")."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check, describe, same
from .test_frontend_errors import expect


def scale_then_add(x, k):
    n = x.shape[0]
    a = x.copy()
    b = np.ones(n)
    for i in range(n):
        a[i] *= k
        b[i] += a[i]
    return a, b


def other_index_expression(x, k):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(n):
        a[i] *= k
        b[i] = a[i - 0] + a[i]
    return a, b


def reads_element_written_before(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(1, n):
        a[i] = a[i] * 2 + 1
        b[i] = a[i - 1] + a[i]          # a[i - 1]: written at the previous iteration
    return a, b


def reads_before_later_write(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(n):
        b[i] = a[i] + 1                 # the old value: a[i] is written after
        a[i] *= 3
        b[i] += a[i]                    # the new one
    return a, b


def nested(x):
    n, m = x.shape
    a = x.copy()
    b = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            a[i, j] = a[i, j] * 2 - 1
            b[i, j] = a[i, j] * a[i, j]
    return a, b


def row_sums(x):
    n, m = x.shape
    a = x.copy()
    s = np.zeros(n)
    for i in range(n):
        for j in range(m):
            a[i, j] *= 2
            s[i] += a[i, j]
    return a, s


def accumulate(x, k):
    n = x.shape[0]
    a = x.copy()
    s = 0.0
    t = -1.0
    for i in range(n):
        a[i] *= k
        s += a[i]
        t = a[i]
    return a, s, t


def chain(x):
    n = x.shape[0]
    a = x.copy()
    b = np.ones(n)
    c = np.zeros(n)
    for i in range(n):
        a[i] *= 2
        a[i] += a[i]                    # the own update reads its written value
        b[i] += a[i]
        c[i] = b[i] * a[i]
    return a, b, c


def conditional(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    c = np.zeros(n)
    for i in range(n):
        if x[i] > 2:
            a[i] *= 2
        b[i] = a[i] + 1
        if a[i] > 5:
            c[i] = 1.0
    return a, b, c


def as_index(x, y):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    h = np.zeros(4, np.int64)
    for i in range(n):
        a[i] = a[i] % 4
        b[i] = y[a[i]]
        h[a[i]] += 1
    return a, b, h


def prefix(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(1, n):
        a[i] += a[i - 1]
        b[i] = a[i] * 2
    return a, b


def ints(x):
    n = x.shape[0]
    a = x.astype(np.int32)
    b = np.zeros(n, np.int64)
    for i in range(n):
        a[i] *= 3
        b[i] += a[i]
    return a, b


def recurrence(x, k):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(1, n):
        a[i] = a[i - 1] * k + a[i]
        b[i] = a[i] * 2
    return a, b


def while_loop(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    i = 0
    while i < n:
        a[i] *= 2
        b[i] = a[i] + 1
        i += 1
    return a, b


def skips(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    m = -1.0
    for i in range(n):
        a[i] = a[i] * 3 % 7
        if a[i] > m:
            m = a[i]
        if a[i] < 3:
            continue
        b[i] = m
    return a, b, m


def row_store(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros((n, 3))
    for i in range(n):
        a[i] *= 2
        b[i, :] = a[i]                  # a slice store (array_store_loops.py)
    return a, b


def mask_store(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros((n, 4))
    b[:, 1] = 1.0
    for i in range(n):
        a[i] *= 2
        b[i][b[i] == 0] = a[i]
    return a, b


def recurrence_written_again(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(1, n):
        a[i] = a[i - 1] + x[i]
        b[i] = a[i]                     # a[i] changes later: the written value is used
        a[i] *= 2
    return a, b


def vec(n, dtype=np.float64):
    return (np.arange(n) * 7 % 5 - 1).astype(dtype)


CASES = [
    (scale_then_add, lambda n: (vec(n), 2.5)),
    (other_index_expression, lambda n: (vec(n), 3.0)),
    (reads_element_written_before, lambda n: (vec(n),)),
    (reads_before_later_write, lambda n: (vec(n),)),
    (nested, lambda n: (vec(3 * n).reshape(3, n),)),
    (row_sums, lambda n: (vec(2 * n).reshape(n, 2),)),
    (accumulate, lambda n: (vec(n), 1.5)),
    (chain, lambda n: (vec(n),)),
    (conditional, lambda n: (vec(n) + 1,)),
    (as_index, lambda n: (vec(n, np.int64), np.arange(4.0) * 10)),
    (prefix, lambda n: (vec(n),)),
    (ints, lambda n: (vec(n, np.int64),)),
    (recurrence, lambda n: (vec(n), 0.5)),
    (while_loop, lambda n: (vec(n),)),
    (skips, lambda n: (vec(n),)),
    (row_store, lambda n: (vec(n),)),
    (mask_store, lambda n: (vec(n),)),
    (recurrence_written_again, lambda n: (vec(n),)),
]


@pytest.mark.parametrize("fn, make", CASES, ids=[c[0].__name__ for c in CASES])
def test_equals_python(fn, make):
    p = ph.pipeline(fn)
    for n in (0, 1, 2, 7):
        check(p, *make(n))


def raises(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(n):
        a[i] *= 2
        if a[i] > 100:
            raise ValueError("big")
        b[i] = a[i]
    return a, b


def gathers(x, y):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(n):
        a[i] = a[i] * 2
        b[i] = y[a[i]]
    return a, b


def test_errors_where_python_raises():
    p = ph.pipeline(raises)
    check(p, vec(6))
    with pytest.raises(ValueError, match="big"):
        p(np.arange(60.0))
    g = ph.pipeline(gathers)
    check(g, np.arange(3), np.arange(5.0))
    with pytest.raises(IndexError):
        g(np.arange(4), np.arange(5.0))


def scale_args(a, b, k):
    for i in range(a.shape[0]):
        a[i] *= k
        b[i] += a[i]
    return b


def test_argument_arrays():
    p = ph.pipeline(scale_args)
    for n in (0, 1, 5):
        a, b = vec(n), np.ones(n)
        pa, pb = a.copy(), b.copy()
        exp = scale_args(pa, pb, 2.0)
        got = p(a, b, 2.0)
        assert same(got, exp), f"{describe(got)} != {describe(exp)}"
        assert same(a, pa) and same(b, pb), f"{describe(a)}, {describe(b)}"


def read_next_written_later(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(n - 1):
        a[i] *= 3
        b[i] = a[i + 1] + a[i]          # a[i + 1]: written at the next iteration
    return a, b


def written_again(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(n):
        a[i] *= 3
        b[i] = a[i]
        a[i] += 1
    return a, b


def partial_sums(x):
    n, m = x.shape
    a = np.zeros(n)
    b = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            a[i] += x[i, j]
            b[i, j] = a[i]              # a[i] is written again at the next j
    return a, b


def each_other(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    for i in range(n):
        a[i] *= 2
        b[i] = a[i] + 1
        a[i] = b[i]
    return a, b


def through_view(x):
    n = x.shape[0]
    a = x.copy()
    b = np.zeros(n)
    v = a[1:]
    for i in range(n - 1):
        v[i] *= 2
        b[i] = a[i + 1] + v[i]          # the same element through the view: not related
    return a, b


@pytest.mark.parametrize("fn, snippet, args", [
    (read_next_written_later, "a[i + 1]", (vec(5),)),
    (written_again, "a[i]\n", (vec(5),)),
    (partial_sums, "a[i]  ", (vec(6).reshape(2, 3),)),
    (each_other, "a[i] + 1", (vec(5),)),
    (through_view, "a[i + 1]", (vec(5),)),
])
def test_read_before_a_later_write_is_refused(fn, snippet, args):
    expect(fn, snippet, "is read here but written", "copy the array before the loop",
           args=args)
