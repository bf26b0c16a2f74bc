"""The compiled entry (pyhalide/dispatch.py, dispatch_written.py) of
functions that write into their argument arrays: a hot key runs as a
builtin that copies the final values into the caller's arrays; a read-only
argument, memory shared with another argument, a stride of 0 and a failing
kernel go to the general path, which raises what Python raises (a failing
kernel: with the writes Python made before the error). Every result and
every written array is compared with the plain Python function run on
copies of the same arguments."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.dispatch import MISS
from tests.frontend.test_imperative_nests import gauss_seidel as gauss_seidel_py
from tests.runtime.test_written_args_fast_path import scale_two

HOT = 8


def _hist_py(data, hist):
    for v in data:
        hist[v] += 1
    return hist


_scale_two_py = scale_two.py_func


def _system(n, seed):
    """A diagonally dominant system A x = b and a start x."""
    rng = np.random.default_rng(seed)
    A = rng.random((n, n)) + n * np.eye(n)
    return A, rng.random(n), rng.random(n)


def _compare(p, *args):
    """p(*args) against p.py_func on copies: the result and every array
    argument afterwards (or the same exception type and the same arrays)."""
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        want = p.py_func(*mine)
    except Exception as e:
        with pytest.raises(type(e)):
            p(*args)
        for a, m in zip(args, mine):
            if isinstance(a, np.ndarray):
                assert np.array_equal(a, m)
        return None
    got = p(*args)
    if isinstance(want, np.ndarray):
        assert np.array_equal(got, want)
    else:
        assert got == want
    for a, m in zip(args, mine):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, m)
    return got


def _make_hot(p, make_args):
    for _ in range(HOT):
        _compare(p, *make_args())
    assert p._entry is not None


@pytest.mark.parametrize("n,sweeps", [(2, 1), (7, 0), (7, 3), (40, 2)])
def test_gauss_seidel_runs_in_the_entry_and_writes_the_callers_array(n, sweeps):
    p = ph.pipeline(gauss_seidel_py)
    A, b, x0 = _system(n, n + sweeps)
    _make_hot(p, lambda: (A, b, x0.copy(), sweeps))
    for k in range(4):
        x = x0 + k
        want = x.copy()
        gauss_seidel_py(A, b, want, sweeps)
        got = p._entry(A, b, x, sweeps)         # the builtin itself answers
        assert got is x and np.array_equal(x, want)


def test_strided_written_views():
    p = ph.pipeline(_scale_two_py)

    def views():
        base = np.arange(24.0).reshape(2, 12)
        return base[0, ::3], base[1, 1::3], 1.5
    _make_hot(p, views)
    for k in range(3):
        base = np.arange(24.0).reshape(2, 12) + k
        want = base.copy()
        exp = _scale_two_py(want[0, ::3], want[1, 1::3], 1.5)
        got = p._entry(base[0, ::3], base[1, 1::3], 1.5)
        assert got is not MISS and got == exp
        assert np.array_equal(base, want)       # the views' elements only


def test_refusals_go_to_the_general_path():
    p = ph.pipeline(gauss_seidel_py)
    A, b, x0 = _system(5, 3)
    _make_hot(p, lambda: (A, b, x0.copy(), 1))
    ro = x0.copy()
    ro.flags.writeable = False
    assert p._entry(A, b, ro, 1) is MISS
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        p(A, b, ro, 1)
    assert np.array_equal(ro, x0)
    same = b.copy()                              # x is b
    assert p._entry(A, same, same, 1) is MISS
    with pytest.raises(ValueError, match="shares memory with argument 'b'"):
        p(A, same, same, 1)
    assert np.array_equal(same, b)
    inside = np.concatenate([A.ravel(), x0])     # x's bytes inside A's? no: right after them
    A2, x2 = inside[:25].reshape(5, 5), inside[25:]
    want = x2.copy()
    gauss_seidel_py(A2.copy(), b, want, 1)
    assert p(A2, b, x2, 1) is x2 and np.array_equal(x2, want)   # adjacent, not shared
    x3 = x0.copy()                                # and the next call is right again
    want = x0.copy()
    gauss_seidel_py(A, b, want, 1)
    assert p._entry(A, b, x3, 1) is x3 and np.array_equal(x3, want)


def test_a_failing_kernel_leaves_pythons_partial_writes():
    p = ph.pipeline(_hist_py)
    rng = np.random.default_rng(5)
    _make_hot(p, lambda: (rng.integers(-8, 8, 50), np.zeros(8, np.int64)))
    for bad in (8, -9, 100):
        data = rng.integers(-8, 8, 50)
        data[17] = bad
        h = np.zeros(8, np.int64)
        assert p._entry(data, h) is MISS and not h.any()   # nothing written by the entry
        _compare(p, data, np.zeros(8, np.int64))
        partial = np.zeros(8, np.int64)
        with pytest.raises(IndexError, match=f"index {bad} is out of bounds"):
            p(data, partial)
        want = np.zeros(8, np.int64)
        with pytest.raises(IndexError):
            _hist_py(data, want)
        assert np.array_equal(partial, want)
    data = rng.integers(-8, 8, 50)
    h = np.zeros(8, np.int64)
    assert p._entry(data, h) is h and np.array_equal(h, _hist_py(data, np.zeros(8, np.int64)))
