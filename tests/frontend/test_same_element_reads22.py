"""A read, after a write in the same loop iteration, of an element named by
another index expression that is the same element for some iteration
(`x[n - 1 - i]` at the middle, `x[j, i]` on the diagonal, a reversed view's
`v[n - 1 - i]`, Python's negative index `x[i - n]`): Python reads the value
just written. Each of these returned the value from before the iteration on
session 21's main (found by the lead after h1c's fix of the same cause,
ArrayAccess.aliased); each now equals plain Python."""
import numpy as np
import pytest

import pyhalide as ph


def mirror(x):
    n = x.shape[0]
    for i in range(n):
        x[i] = x[i] * 3.0
        x[i] = x[i] + x[n - 1 - i]
    return x


def transpose_read(x):
    n = x.shape[0]
    for i in range(n):
        for j in range(n):
            x[i, j] = x[i, j] + 1.0
            x[i, j] = x[i, j] * 2.0 + x[j, i]
    return x


def reversed_view_read(x):
    v = x[::-1]
    n = x.shape[0]
    for i in range(n):
        x[i] = x[i] + 10.0
        x[i] = x[i] + v[n - 1 - i]
    return x


def negative_index_read(x):
    n = x.shape[0]
    for i in range(n):
        x[i] = x[i] + 1.0
        x[i] = x[i] + x[i - n]
    return x


# (main returned [8, 10, 12, 22, 23] for mirror, [3, 5, 7, 9] for
# negative_index_read, [12, 14, ...] for reversed_view_read)
@pytest.mark.parametrize("fn,arg", [(mirror, np.arange(1.0, 6.0)),
                                    (transpose_read, np.arange(9.0).reshape(3, 3)),
                                    (reversed_view_read, np.arange(1.0, 6.0)),
                                    (negative_index_read, np.arange(1.0, 5.0))])
def test_a_read_of_the_element_just_written_sees_the_write(fn, arg):
    expect_arg = arg.copy()
    expect = fn(expect_arg)
    got_arg = arg.copy()
    got = ph.pipeline(fn)(got_arg)
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(got_arg, expect_arg)


def write_at_argument(x, y, k):
    # (lead's fuzz, wrong on session 21's main: n = 5, k = 2 gave x[2] = 23, Python 6:
    # the second statement's x[i // 2] did not see the first's write at x[k] when
    # i // 2 == k)
    n = x.shape[0]
    for i in range(n):
        x[k] = x[(i + 1) % n] - x[(i * 2) // 2]
        x[k] = y[n - 1 - i] + x[i // 2]
    return x, y


def test_reads_see_a_write_at_an_argument_position():
    p = ph.pipeline(write_at_argument)
    for n, k in [(5, 2), (4, 0), (6, 5), (1, 0)]:
        x, y = np.arange(1.0, n + 1.0), np.arange(10.0, 10.0 + n)
        expect = write_at_argument(x.copy(), y.copy(), k)
        got = p(x.copy(), y.copy(), k)
        for e, g in zip(expect, got):
            np.testing.assert_array_equal(g, e)
