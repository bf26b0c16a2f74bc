"""Reshape and ravel of an argument the function writes through: NumPy's
result is a view only for a C-contiguous argument (ravel), or where the
strides allow it (reshape). A Fortran-ordered or strided argument's ravel is
a copy, so writes into it must not reach the argument (they did: the
caller's array changed and the sum was wrong); its reshape is refused."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import describe, same


def check_layout(fn, make):
    """fn compiled and plain, each on a fresh array from make() (the same
    layout: copies would be C-ordered), give the same result and leave the
    same array."""
    a, b = make(), make()
    got, exp = ph.pipeline(fn)(a), fn(b)
    assert same(got, exp), f"compiled {describe(got)} != plain {describe(exp)}"
    assert np.array_equal(a, b), f"argument after the call {describe(a)} != plain {describe(b)}"


def ravel_write(a):
    b = a.ravel()
    b[1] = 70
    return a.sum()


def reshape_write(a):
    b = a.reshape(-1)
    b[1] = 70
    return a.sum()


def reshape_transpose_write(a):
    b = a.reshape(3, 2).T
    b[0, 1] = 70
    return a.sum()


def c_order():
    return np.arange(6.0).reshape(2, 3)


def f_order():
    return np.asfortranarray(np.arange(6.0).reshape(2, 3))


def strided_rows():
    return np.arange(24.0).reshape(4, 6)[:, ::2]


def strided_1d():
    return np.arange(12.0)[::2]


@pytest.mark.parametrize("make", [c_order, f_order, strided_rows, strided_1d],
                         ids=lambda f: f.__name__)
def test_ravel_of_written_argument(make):
    check_layout(ravel_write, make)


@pytest.mark.parametrize("fn", [reshape_write, reshape_transpose_write], ids=lambda f: f.__name__)
def test_reshape_of_written_c_argument_is_a_view(fn):
    check_layout(fn, c_order)


@pytest.mark.parametrize("fn", [reshape_write, reshape_transpose_write], ids=lambda f: f.__name__)
def test_reshape_of_written_fortran_argument_is_refused(fn):
    a = f_order()
    with pytest.raises(ph.CompileError, match="not C-contiguous"):
        ph.pipeline(fn)(a)
    assert np.array_equal(a, f_order())


def test_read_only_reshape_of_fortran_argument_compiles():
    def total(a):
        return a.reshape(-1)[1] * 10 + a.ravel()[4]
    check_layout(total, f_order)
    check_layout(total, strided_rows)
