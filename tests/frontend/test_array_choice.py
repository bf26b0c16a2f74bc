"""A name bound to one of two arrays by a condition (issue 17):
`x = a if flag else b`, and if/else binding arrays that other names also
know, of the same or of different (call-time) shapes. Reads through x see
what Python's x holds, `return x` returns the argument itself where Python
does, and writes that would have to reach the chosen array (through x, or
into the arrays after the choice) are located errors. Every result is
compared with the plain function on copies of the same arguments."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


@ph.pipeline
def pick_expr(a, b, flag):
    x = a if flag else b
    return x * 2.0 + x[0]


@ph.pipeline
def pick_return(a, b, flag):
    x = a if flag else b
    return x


@ph.pipeline
def pick_if(a, b, flag):
    if flag:
        x = a
    else:
        x = b
    return x.sum() + x[-1]


@ph.pipeline
def pick_shapes(a, n):
    """Different sizes by a condition on an argument."""
    if n > 2:
        x = a[:n]
    else:
        x = a[1:]
    return x * 3.0, x.shape[0]


@ph.pipeline
def pick_views(a, b, k):
    x = a[k:] if k < 3 else b
    return x.sum()


@ph.pipeline
def pick_by_data(a, b):
    """A condition on the data chooses between arrays of one shape."""
    x = a if a[0] > b[0] else b
    return x - 1.0


@ph.pipeline
def pick_fresh(a, flag):
    x = a * 2.0 if flag else a + 1.0
    x[0] = 7.0
    return x


@ph.pipeline
def write_through_choice(a, b, flag):
    x = a if flag else b
    x[0] = 5.0
    return x


@ph.pipeline
def write_source_after_choice(a, b, flag):
    x = a if flag else b
    a[1:3] = 0.0
    return x


@ph.pipeline
def ragged_by_data(a, b):
    x = a if a[0] > 0 else b[1:]
    return x.sum()


A = np.linspace(-1.0, 2.0, 7) ** 3
B = np.cos(np.arange(7.0))


@pytest.mark.parametrize("flag", [True, False, 0, 3])
def test_choice_same_shape(flag):
    check_inplace(pick_expr, A, B, flag)
    check_inplace(pick_return, A, B, flag)
    check_inplace(pick_if, A, B, flag)


@pytest.mark.parametrize("n", [0, 1, 3, 5])
def test_choice_different_shapes(n):
    check_inplace(pick_shapes, A, n)
    check_inplace(pick_views, A, B, n)


def test_choice_by_data():
    check_inplace(pick_by_data, A, B)
    check_inplace(pick_by_data, B, A)
    check_inplace(pick_fresh, A, True)
    check_inplace(pick_fresh, A, False)


def test_writes_after_choice_refused():
    with pytest.raises(ph.CompileError, match="writing through it is not supported"):
        write_through_choice(A.copy(), B.copy(), True)
    with pytest.raises(ph.CompileError, match="writing into it after that"):
        write_source_after_choice(A.copy(), B.copy(), True)
    with pytest.raises(NotImplementedError, match="sizes differ in this call"):
        ragged_by_data(A, B)
    with pytest.raises(NotImplementedError, match="sizes differ in this call"):
        pick_by_data(A, B[1:])
