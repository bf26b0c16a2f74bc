"""A scalar assigned in a loop body that only a later inner loop, `if` or
short-circuit part reads (check_order.LoopSinks, _maybe_unread): Python
evaluates it at every iteration, so its IndexError is raised even when
that reader does not run; where the nest writes the array read, only the
read's checks are stored. Every outcome (the exception, and the array as
written before it) equals plain Python."""
import numpy as np
import pytest

import pyhalide as ph

from .test_hoisted_reads22 import odd_columns_from_even


def in_inner_loop(a, m):
    s = 0.0
    for i in range(a.shape[0]):
        t = a[i // 2 + 3]               # a[5] at i = 4 (n = 5): IndexError
        for j in range(m):
            s += t
    return s


def under_if(a, m):
    s = 0.0
    for i in range(a.shape[0]):
        t = a[i // 2 + 3]
        if m > 0:
            s += t
    return s


def in_short_circuit(a, m):
    s = 0.0
    for i in range(a.shape[0]):
        t = a[(i * i) % 7 + 2]
        s += float(m > 0 and t > 0.5)
    return s


def read_under_if(a, m):
    # the read itself under an `if` of the loop body
    s = 0.0
    for i in range(a.shape[0]):
        if i >= 1:
            t = a[i // 2 + 3]
            for j in range(m):
                s += t
    return s


_COMPILED = {}


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except IndexError:
        return "IndexError", None


@pytest.mark.parametrize("fn", [in_inner_loop, under_if, in_short_circuit, read_under_if])
def test_unread_scalar_raises_as_python(fn):
    if fn not in _COMPILED:
        _COMPILED[fn] = ph.pipeline(fn)
    for n, m in ((5, 0), (5, 2), (2, 0), (9, 0), (9, 3)):
        a = np.linspace(0.0, 1.0, n)
        assert _outcome(_COMPILED[fn], a, m) == _outcome(fn, a, m), (fn.__name__, n, m)


# The nest writes the array read: only the read's checks are stored
# (LoopSinks, _flags), since a hidden store of the value would read the
# array the nest writes.

def writes_in_inner_loop(a, m):
    for i in range(a.shape[0]):
        t = a[i, i // 2]                # a[4, 2] on a (5, 2) array: IndexError
        for j in range(m):
            a[i, j] = t
    return a


def writes_under_if(a, m):
    for i in range(a.shape[0]):
        t = a[i, i // 2]
        if m > 0:
            a[i, 0] = t + 1.0
    return a


def writes_short_circuit(a, m):
    for i in range(a.shape[0]):
        t = a[i, (i * i) % 5]
        a[i, 0] = float(m > 0 and t > 0.5)
    return a


def writes_with_read_under_if(a, m):
    for i in range(a.shape[0]):
        if i >= 1:
            t = a[i, i // 2]
            for j in range(m):
                a[i, j] = t
    return a


def writes_in_outer_while(a, m):
    # the while loop becomes `?stop = False` and a for loop, both at the
    # while's line: a failure there is one of a loop writing `a`, so the
    # plain function runs and makes Python's writes before its IndexError
    # (check_order._same_statement; the array was left unchanged)
    i = 0
    while i < a.shape[0]:
        t = a[i, i // 2]
        for j in range(m):
            a[i, j] = t
        i += 1
    return a


def _written_outcome(fn, a, m):
    a = a.copy()
    try:
        fn(a, m)
    except IndexError:
        return "IndexError", a.tolist()
    return "ok", a.tolist()


@pytest.mark.parametrize("fn", [writes_in_inner_loop, writes_under_if, writes_short_circuit,
                                writes_with_read_under_if, writes_in_outer_while])
def test_written_array_read_raises_as_python(fn):
    if fn not in _COMPILED:
        _COMPILED[fn] = ph.pipeline(fn)
    for shape, m in (((5, 2), 0), ((5, 2), 2), ((3, 1), 0), ((3, 1), 1), ((2, 2), 0),
                     ((4, 5), 0), ((4, 5), 3)):
        a = np.arange(float(np.prod(shape))).reshape(shape) / 7.0
        assert _written_outcome(_COMPILED[fn], a, m) == _written_outcome(fn, a, m), \
            (fn.__name__, shape, m)


def test_odd_columns_from_even_raises_as_python():
    # on (3, 1) the inner loop does not run and a[2, 2] raises
    compiled = ph.pipeline(odd_columns_from_even)
    for shape in ((3, 1), (5, 2), (5, 3), (4, 4), (3, 3)):
        a = np.arange(float(np.prod(shape))).reshape(shape)
        assert _written_outcome(lambda x, _: compiled(x), a, 0) == \
            _written_outcome(lambda x, _: odd_columns_from_even(x), a, 0), shape


def writes_at_indirect_column(a, k, m):
    # the read's check reads k, which the function does not write
    for i in range(a.shape[0]):
        t = a[i, k[i]]
        for j in range(m):
            a[i, j] = t
    return a


def test_indirect_read_raises_as_python():
    compiled = ph.pipeline(writes_at_indirect_column)
    for shape, m in (((5, 2), 0), ((3, 1), 0), ((3, 1), 1), ((4, 4), 0)):
        for k in (np.zeros(shape[0], np.int64), np.arange(shape[0])):
            a = np.arange(float(np.prod(shape))).reshape(shape)
            assert _written_outcome(lambda x, n: compiled(x, k, n), a, m) == \
                _written_outcome(lambda x, n: writes_at_indirect_column(x, k, n), a, m), \
                (shape, m, k)
