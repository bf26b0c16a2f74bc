"""A time loop that swaps an argument array with a local one (`u, v = v,
u`): after an even number of iterations `u` is the caller's array again,
and the iterations that write through `v` write into it. The carried-array
recurrence holds values, not which array each name is: it returned the right
values but left the caller's array unwritten and returned a new array where
Python returns the argument itself (silently). Each such loop must equal plain
Python for even and odd trip counts (the result, whether it is the argument
itself, the argument after the call) or be refused with its line; swaps of
arrays the function owns compile and equal plain Python."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


def heat_pingpong(u, trips):
    v = u.copy()
    for _ in range(trips):
        v[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                                                u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
        u, v = v, u
    return u


def swap_through_temporary(u, trips):
    v = u.copy()
    for _ in range(trips):
        v[1:] = u[:-1] + 1
        tmp = u
        u = v
        v = tmp
    return v


def whole_writes(u, trips):
    v = np.zeros_like(u)
    for _ in range(trips):
        v[:] = u * 2
        u, v = v, u
    return u, v


def with_a_reduction(u, trips):
    v = u.copy()
    for _ in range(trips):
        v[:] = u * 2 + v.max()
        u, v = v, u
    return v


@pytest.mark.parametrize("fn,shape", [(heat_pingpong, (6, 6)), (swap_through_temporary, (6,)),
                                      (whole_writes, (6,)), (with_a_reduction, (6,))],
                         ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("trips", [0, 1, 2, 3])
def test_swapping_an_argument_into_a_local_name(fn, shape, trips):
    """Equal to plain Python (result, its identity, the argument after the
    call) for even and odd trip counts, or refused with the loop's line."""
    arg = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) ** 2 % 7
    p = ph.pipeline(fn)
    try:
        check_inplace(p, arg, trips)
    except ph.CompileError as e:
        assert "seen elsewhere" in str(e) and f"{__file__}:" in str(e), str(e)


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
