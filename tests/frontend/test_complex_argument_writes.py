"""Writes into complex argument arrays (issue 17 item 4 for complex dtypes):
the caller sees them after the call, as in Python. Before, every such write
failed with an AssertionError of the build (the complex argument's parts
stayed read-only). Each case runs the plain function and the compiled one on
copies of the same arguments and compares results and arguments."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


@ph.pipeline
def copy_strided(n, cx, incx, cy, incy):
    """BLAS ccopy (pythran's test case): a bare return, strided indices."""
    if n <= 0:
        return
    if incx == 1 and incy == 1:
        for i in range(n):
            cy[i] = cx[i]
    else:
        ix = 0
        iy = 0
        if incx < 0:
            ix = (-n + 1) * incx
        if incy < 0:
            iy = (-n + 1) * incy
        for i in range(n):
            cy[iy] = cx[ix]
            ix = ix + incx
            iy = iy + incy
    return


@ph.pipeline
def set_first(a):
    a[0] = 5 + 1j
    return a


@ph.pipeline
def write_then_real_view(a):
    a[1] = a[0] * 2j
    return a.real


@ph.pipeline
def scale_in_place(a):
    a *= 2j
    return a.sum()


@ph.pipeline
def shifted_slice(a, b):
    a[1:] = b[:-1] + 1


X = np.array([1 + 2j, 2 + 3j, 3 + 4j, 5 + 6j])
Y = np.array([3 + 4j, 1 + 2j, 2 + 3j, 5 + 6j])


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_arguments_are_written(dtype):
    x, y = X.astype(dtype), Y.astype(dtype)
    check_inplace(copy_strided, 2, x, 2, y, 3)
    check_inplace(copy_strided, 2, x, 1, y, 1)
    check_inplace(copy_strided, 0, x, 1, y, 1)
    check_inplace(set_first, x)
    check_inplace(set_first, x.reshape(2, 2)[:, 0])      # a strided view
    check_inplace(write_then_real_view, x)
    check_inplace(scale_in_place, x)
    check_inplace(shifted_slice, x, y)


def test_returned_argument_is_the_callers_array():
    z = X.copy()
    assert set_first(z) is z and z[0] == 5 + 1j


def test_read_only_and_shared_complex_arguments_are_refused():
    r = X.copy()
    r.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        set_first(r)
    z = X.copy()
    with pytest.raises(ValueError, match="shares memory"):
        shifted_slice(z, z)
    assert np.array_equal(z, X)
