"""The compiled call entry (pyhalide/dispatch.py) of calls with complex
array arguments, complex results, returned reshapes, views of arguments,
transposed (Fortran-ordered) results, views of returned arrays, and of
functions that run no kernel (a view of an argument): after the call key
is hot the builtin answers it (not MISS), and every result equals plain
Python's: values, dtype, strides, memory shared with the arguments and
between the results, the arguments unchanged; aliasing (one array passed
twice) and read-only arguments too."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.dispatch import MISS

HOT = 8


def cplx_arg(z, w):
    return z.real * 2.0 + w.imag, (z * w).sum()


def cplx_res(x):
    return x * (1.0 + 2.0j), complex(x[0, 0], x[0, 1])


def reshape_out(x):
    y = x * 2.0
    return y.reshape(-1), y.sum()


def arg_view(x, k):
    return x[k:, ::2], x.T


def view_and_sum(x):
    return x[1:], x.sum()


def fortran_out(x):
    z = x * 2.0
    return z, z.T[1:]


def cplx_view(z):
    return z[1:], z.real


CASES = [
    (cplx_arg, lambda: (np.arange(12.0).reshape(3, 4) * (1 + 0.5j),
                        np.arange(12.0).reshape(3, 4) * (0.25 - 1j))),
    (cplx_res, lambda: (np.arange(12.0).reshape(3, 4),)),
    (reshape_out, lambda: (np.arange(12.0).reshape(3, 4),)),
    (arg_view, lambda: (np.arange(12.0).reshape(3, 4), 1)),
    (view_and_sum, lambda: (np.arange(12.0).reshape(3, 4),)),
    (fortran_out, lambda: (np.asfortranarray(np.arange(12.0).reshape(3, 4)),)),
    (cplx_view, lambda: (np.arange(12.0).reshape(3, 4) * (1 - 1j),)),
]


def _leaves(r):
    return list(r) if isinstance(r, tuple) else [r]


def _compare(expected, got, args_py, args_ph):
    e, g = _leaves(expected), _leaves(got)
    assert len(e) == len(g)
    for x, y in zip(e, g):
        assert type(y) is type(x)
        if isinstance(x, np.ndarray):
            assert y.dtype == x.dtype and y.shape == x.shape and y.strides == x.strides
            np.testing.assert_array_equal(y, x)
            for a, b in zip(args_py, args_ph):
                if isinstance(a, np.ndarray):
                    assert np.shares_memory(y, b) == np.shares_memory(x, a)
        else:
            assert y == x
    for a, b in zip(args_py, args_ph):
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(b, a)


def _copies(args):
    return [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]


@pytest.mark.parametrize("fn,make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_entry_answers_and_equals_python(fn, make):
    p = ph.pipeline(fn)
    args = make()
    for k in range(HOT + 4):
        a_py, a_ph = _copies(args), _copies(args)
        _compare(fn(*a_py), p(*a_ph), a_py, a_ph)
    assert p._entry is not None
    a_py, a_ph = _copies(args), _copies(args)
    got = p._entry(*a_ph)
    assert got is not MISS
    _compare(fn(*a_py), got, a_py, a_ph)


def test_entry_misses_another_key_and_python_answers():
    p = ph.pipeline(arg_view)
    x = np.arange(12.0).reshape(3, 4)
    for _ in range(HOT):
        p(x, 1)
    assert p._entry is not None
    for k in (0, 2):                     # another start: the key holds k
        _compare(arg_view(x, k), p(x, k), [x], [x])
    y = np.arange(20.0).reshape(4, 5)
    _compare(arg_view(y, 1), p(y, 1), [y], [y])


def test_aliased_complex_arguments():
    p = ph.pipeline(cplx_arg)
    z = np.arange(12.0).reshape(3, 4) * (1 + 0.5j)
    for _ in range(HOT + 2):
        _compare(cplx_arg(z, z), p(z, z), [z], [z])


def test_read_only_arguments_give_read_only_views():
    p = ph.pipeline(view_and_sum)
    x = np.arange(12.0).reshape(3, 4)
    x.setflags(write=False)
    for _ in range(HOT + 2):
        v, s = p(x)
        assert not v.flags.writeable and np.shares_memory(v, x)
        assert s == x.sum()


def test_writes_into_a_returned_view_reach_the_argument():
    p = ph.pipeline(arg_view)
    for _ in range(HOT + 2):
        x_py, x_ph = np.arange(12.0).reshape(3, 4), np.arange(12.0).reshape(3, 4)
        (v_py, t_py), (v_ph, t_ph) = arg_view(x_py, 1), p(x_ph, 1)
        v_py[...] = -1.0
        v_ph[...] = -1.0
        t_py[0, 0] = 9.0
        t_ph[0, 0] = 9.0
        np.testing.assert_array_equal(x_ph, x_py)


def unbound_after_loop(x, n):
    for i in range(n):
        last = x[i] * 2.0
    return x[1:], last


def test_an_exception_of_the_converter_is_raised_by_the_entry():
    p = ph.pipeline(unbound_after_loop)
    x = np.arange(5.0)
    for _ in range(HOT):
        p(x, 2)
    with pytest.raises(UnboundLocalError):
        unbound_after_loop(x, 0)
    for _ in range(HOT):
        with pytest.raises(UnboundLocalError):
            p(x, 0)
