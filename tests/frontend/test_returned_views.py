"""A returned view of an argument is NumPy's view of the caller's array, as in
Python: the same values and dtype, the same memory (writing into the result
writes into the argument), for every call of a specialization."""
import numpy as np
import pytest

import pyhalide as ph


def _slices(a, k):
    return a[1:, ::2]


def _reversed(a, k):
    return a[::-1, -1:0:-2]


def _runtime_start(a, k):
    return a[k:, k // 2:]


def _shape_start(a, k):
    n = a.shape[0]
    return a[n // 2:]


def _transposed(a, k):
    return a.T[1:]


def _new_axis(a, k):
    return a[:, None, 1]


def _row(a, k):
    return a[k]


def _empty(a, k):
    return a[3:1]


def _ellipsis(a, k):
    return a[..., 2]


def _written(a, k):
    a[0, 0] = -5.0
    return a[:2]


def _tuple(a, k):
    return a[0], a[:, 0], a.sum()


CASES = [_slices, _reversed, _runtime_start, _shape_start, _transposed, _new_axis, _row,
         _empty, _ellipsis, _written, _tuple]


def _arguments():
    base = np.arange(42.0).reshape(6, 7)
    return [base, base[::2, 1:], np.asfortranarray(base), base[::-1]]


def _leaves(r):
    return list(r) if isinstance(r, tuple) else [r]


@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_returned_view_shares_the_argument(fn):
    p = ph.pipeline(fn)
    for k in (1, 2):
        for arg in _arguments():
            for _ in range(3):           # the general path, then the fast ones
                a_py, a_ph = arg.copy(order="K"), arg.copy(order="K")
                expected, got = _leaves(fn(a_py, k)), _leaves(p(a_ph, k))
                assert len(expected) == len(got)
                for e, g in zip(expected, got):
                    if not isinstance(e, np.ndarray):
                        assert e == g
                        continue
                    assert g.dtype == e.dtype and g.shape == e.shape
                    np.testing.assert_array_equal(g, e)
                    assert np.shares_memory(g, a_ph) == np.shares_memory(e, a_py)
                    if e.size and np.shares_memory(e, a_py):
                        e[...] = 7.5        # the caller writes through the result
                        g[...] = 7.5
                np.testing.assert_array_equal(a_ph, a_py)


def test_read_only_argument_gives_a_read_only_view():
    p = ph.pipeline(_slices)
    a = np.arange(42.0).reshape(6, 7)
    a.setflags(write=False)
    for _ in range(3):
        r = p(a, 1)
        assert not r.flags.writeable and np.shares_memory(r, a)


def test_a_view_of_a_local_array_is_still_a_new_array():
    def f(a):
        b = a * 2
        return b[1:]

    a = np.arange(5.0)
    r = ph.pipeline(f)(a)
    np.testing.assert_array_equal(r, f(a))
    assert not np.shares_memory(r, a)


def _as_is(a):
    return np.asarray(a)


def _as_is_typed(a):
    return a.astype(np.float64, copy=False)


def _at_least_2d(a):
    return np.atleast_2d(a)


def _whole_slice(a):
    return a[:]


def _ellipsis_only(a):
    return a[...]


@pytest.mark.parametrize("fn", [_as_is, _as_is_typed, _at_least_2d, _whole_slice,
                                _ellipsis_only], ids=lambda f: f.__name__)
def test_identity_of_a_returned_argument(fn):
    p = ph.pipeline(fn)
    for _ in range(3):
        a_py, a_ph = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3)
        e, g = fn(a_py), p(a_ph)
        assert (e is a_py) == (g is a_ph)
        assert np.shares_memory(g, a_ph)
        np.testing.assert_array_equal(g, e)


def test_a_start_computed_from_a_float_argument():
    def f(a, s):
        return a[int(s * 2.5):]

    p = ph.pipeline(f)
    a = np.arange(10.0)
    for s in (0.3, 1.9, 2.7, 3.99):
        r = p(a, s)
        np.testing.assert_array_equal(r, f(a, s))
        assert np.shares_memory(r, a)


def _ravel(a):
    return a.ravel()


def _reshape_chain(a):
    return a.reshape(-1).reshape(2, -1, 2)


def _ravel_then_reshape(a):
    return a.ravel().reshape(a.shape[1], -1)


@pytest.mark.parametrize("fn", [_ravel, _reshape_chain, _ravel_then_reshape],
                         ids=lambda f: f.__name__)
def test_a_returned_reshape_shares_memory_only_where_numpy_does(fn):
    """np.reshape of an evenly strided argument is a view where its ravel, or
    a chain that copies midway, is a copy: never a view where NumPy copies."""
    p = ph.pipeline(fn)
    makers = [lambda: np.arange(12.0).reshape(3, 4),
              lambda: np.asfortranarray(np.arange(12.0).reshape(3, 4)),
              lambda: np.arange(24.0).reshape(3, 8)[:, ::2],       # evenly strided
              lambda: np.arange(30.0).reshape(3, 10)[:, 1:5]]      # rows apart
    for make in makers:
        for _ in range(2):
            a_py, a_ph = make(), make()
            e, g = fn(a_py), p(a_ph)
            np.testing.assert_array_equal(g, e)
            if np.shares_memory(g, a_ph):
                assert np.shares_memory(e, a_py)
            g[...] = -1.0                       # writing the result
            e[...] = -1.0
            np.testing.assert_array_equal(a_ph, a_py)


def test_a_start_from_a_value_that_may_raise_raises_what_python_raises():
    # int() of a float argument may raise: its value is a deferred call-time value
    # (context.deferred_static) whose check the view's start reads (session 20)
    def f(a, s):
        return a[int(s * 2.5):]

    p = ph.pipeline(f)
    a = np.arange(10.0)
    for s, exc in ((float("inf"), OverflowError), (float("nan"), ValueError)):
        with pytest.raises(exc):
            f(a, s)
        with pytest.raises(exc):
            p(a, s)
    r = p(a, 1.9)
    assert np.shares_memory(r, a) and np.array_equal(r, a[4:])
