"""A time loop that swaps an argument array with a local one (`u, v = v,
u`): after an even number of iterations `u` is the caller's array again,
and the iterations that write through `v` write into it. The carried-array
recurrence holds values, not which array each name is: it returned the right
values but left the caller's array unwritten and returned a new array where
Python returns the argument itself (silently). Such loops are refused until
the names' arrays are tracked; swaps of arrays the function owns compile and
equal plain Python."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


def heat_pingpong(u):
    v = u.copy()
    for _ in range(4):
        v[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                                                u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
        u, v = v, u
    return u


def swap_through_temporary(u):
    v = u.copy()
    for _ in range(3):
        v[1:] = u[:-1] + 1
        tmp = u
        u = v
        v = tmp
    return v


def whole_writes(u):
    v = np.zeros_like(u)
    for _ in range(2):
        v[:] = u * 2
        u, v = v, u
    return u, v


def with_a_reduction(u):
    v = u.copy()
    for _ in range(2):
        v[:] = u * 2 + v.max()
        u, v = v, u
    return v


@pytest.mark.parametrize("fn,shape", [(heat_pingpong, (6, 6)), (swap_through_temporary, (6,)),
                                      (whole_writes, (6,)), (with_a_reduction, (6,))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_swapping_an_argument_into_a_local_name_is_refused(fn, shape):
    with pytest.raises(ph.CompileError) as e:
        ph.pipeline(fn)(np.arange(np.prod(shape), dtype=np.float64).reshape(shape))
    assert "binds" in str(e.value) and "seen elsewhere" in str(e.value)
    assert f"{__file__}:" in str(e.value)


@ph.pipeline
def owned_swaps(u):
    a = u.copy()
    b = np.zeros_like(u)
    c = u
    for _ in range(3):
        b[:] = a + 1
        a, b = b, a
    c[0] = 7.0
    return a, b


@ph.pipeline
def copied_in_and_out(u):
    w = u.copy()
    v = np.zeros_like(u)
    for _ in range(4):
        v[1:-1] = 0.5 * (w[:-2] + w[2:])
        w, v = v, w
    u[:] = w
    return u


@pytest.mark.parametrize("p", [owned_swaps, copied_in_and_out], ids=lambda p: p.__name__)
def test_swaps_of_owned_arrays_equal_python(p):
    check_inplace(p, np.arange(8.0) ** 2)
