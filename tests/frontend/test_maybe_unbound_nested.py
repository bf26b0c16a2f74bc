"""A variable first assigned inside a loop (of a nest) and read where it
may be unbound: after the inner loop in the enclosing loop's body, in a
later iteration, after the nest. Python raises UnboundLocalError at run
time only where no iteration so far assigned it; the loop's group carries
an "assigned" flag and each read is checked against it
(frontend_ast/unbound_reads.py). A read after an assignment under a
condition (`if c: x = ...` then `s += x`) was a silent value (the loop's
initial 0) where Python raises. Compared with plain Python, default and
automatic schedules."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check


def read_in_outer(m):
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            x = m[i, j] * 2.0
        out[i] = x
    return out


def read_in_outer_cond(m):
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > 0.5:
                x = m[i, j]
        out[i] = x
    return out


def sum_of_row_lasts(m):
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            x = m[i, j]
        s += x
    return s


def cond_then_read(a):
    s = 0.0
    for j in range(len(a)):
        if a[j] > 0.5:
            x = a[j]
        s += x
    return s


def cond_then_read_nested(m):
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > 0.5:
                x = m[i, j]
            s += x
    return s


def prev_in_select(a):
    s = 0.0
    for j in range(len(a)):
        s += x if j > 0 else 0.0       # noqa: F821 (the previous iteration's)
        x = a[j]                        # noqa: F841
    return s


def prev_in_if(m):
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if j > 0:
                s += x * 2.0            # noqa: F821 (the previous iteration's)
            x = m[i, j]                 # noqa: F841
    return s


def prev_row_value(m):
    out = np.zeros(m.shape[0])
    for i in range(m.shape[0]):
        if i > 0:
            out[i] = x                  # noqa: F821 (the previous row's)
        for j in range(m.shape[1]):
            x = m[i, j]                 # noqa: F841
    return out


def last_index_above(m):
    out = np.zeros(m.shape[0], np.int64)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > 0.5:
                k = j
        out[i] = k
    return out


def last_of_nest(m):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            x = m[i, j] * 2.0
    return x + 1.0


def last_of_three(t):
    for i in range(t.shape[0]):
        for j in range(t.shape[1]):
            for k in range(t.shape[2]):
                x = t[i, j, k]
    return x


def halve_running(a):
    for j in range(len(a)):
        if j == 0:
            x = a[0]
        else:
            x = x // 2 + a[j]      # noqa: F821 (the previous iteration's)
    return x


M = np.array([[0.9, 0.1, 0.7], [0.2, 0.3, 0.1], [0.4, 0.8, 0.6]])
CASES = [
    (read_in_outer, (M,)), (read_in_outer, (M[:0],)), (read_in_outer, (M.T,)),
    (read_in_outer_cond, (M,)),            # row 1 keeps row 0's value
    (read_in_outer_cond, (M[1:],)),        # unbound at row 0: UnboundLocalError
    (read_in_outer_cond, (M[::-1, ::2],)),
    (sum_of_row_lasts, (M,)), (sum_of_row_lasts, (M[:0],)),
    (cond_then_read, (M[0],)), (cond_then_read, (M[1],)), (cond_then_read, (M[:, 0],)),
    (cond_then_read_nested, (M,)), (cond_then_read_nested, (M[1:],)),
    (prev_in_select, (M[0],)), (prev_in_select, (M[0, :1],)), (prev_in_select, (M[0, :0],)),
    (prev_in_if, (M,)), (prev_in_if, (M[:, :1],)),
    (prev_row_value, (M,)), (prev_row_value, (M[:1],)),
    (last_index_above, (M,)), (last_index_above, (M[1:],)), (last_index_above, (M * 0,)),
    (last_of_nest, (M,)), (last_of_nest, (M[:0],)), (last_of_nest, (M[:, :0],)),
    (last_of_three, (np.arange(24.0).reshape(2, 3, 4),)),
    (last_of_three, (np.zeros((2, 0, 3)),)),
    # the typing's first run reads x before its type is known
    (halve_running, (np.array([5, 9, 2]),)), (halve_running, (np.array([5, 9, 2], np.uint8),)),
    (halve_running, (np.zeros(0, np.int64),)),
]


@pytest.mark.parametrize("schedule", [None, "auto"])
@pytest.mark.parametrize("k", range(len(CASES)),
                         ids=[f"{fn.__name__}{k}" for k, (fn, _) in enumerate(CASES)])
def test_against_python(k, schedule):
    fn, args = CASES[k]
    check(ph.pipeline(fn, schedule=schedule), *args)


def test_raises_where_python_does():
    """The reads that raise, with Python's message."""
    f = ph.pipeline(cond_then_read)
    assert f(np.array([0.9, 0.1])) == cond_then_read(np.array([0.9, 0.1]))
    with pytest.raises(UnboundLocalError, match="'x' where it is not associated"):
        f(np.array([0.1, 0.9]))
    g = ph.pipeline(read_in_outer_cond)
    with pytest.raises(UnboundLocalError, match="'x'"):
        g(M[1:])
