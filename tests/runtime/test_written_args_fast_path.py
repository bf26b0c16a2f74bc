"""The call fast path (frontend_ast/direct_call.py) of functions that write
into their argument arrays: repeated calls with one key run the kernel
directly and copy the written arguments back, as the general path does; the
call-time refusals (read-only, shared memory, a stride of 0) still come
first. (The compiled entry of such functions: tests/runtime/test_written_args_entry.py.)
Every result is
compared with the plain Python function on copies of the same arguments."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_imperative_nests import gauss_seidel as gauss_seidel_py

gauss_seidel = ph.pipeline(gauss_seidel_py)


@ph.pipeline
def scale_two(a, b, k):
    for i in range(a.shape[0]):
        a[i] *= k
    for i in range(b.shape[0]):
        b[i] += a[i]
    return a.sum() + b.sum()


def _system(n, seed):
    rng = np.random.default_rng(seed)
    return rng.random((n, n)) + n * np.eye(n), rng.random(n), rng.random(n)


def _on_fast_path(p, *args) -> bool:
    """Whether the fast path has an entry for the key of `args`."""
    direct = p.last_specialization.direct
    return direct is not None and direct.entries.get(direct.key(args)) is not None


@pytest.mark.parametrize("sweeps", [0, 2])
def test_repeated_calls_write_into_each_callers_array(sweeps):
    A, b, x0 = _system(7, sweeps)
    for k in range(8):                      # the third call on runs the fast path
        x, want = x0 + k, x0 + k
        got = gauss_seidel(A, b, x, sweeps)
        gauss_seidel.py_func(A, b, want, sweeps)
        assert got is x                     # the caller's own array, written
        assert np.array_equal(x, want)
    assert _on_fast_path(gauss_seidel, A, b, x, sweeps)


def test_fast_path_of_two_written_arguments_with_strides():
    for k in range(6):
        base = np.arange(24.0).reshape(2, 12) + k
        a, b = base[0, ::3], base[1, 1::3]       # strided views of one array
        want = base.copy()
        got = scale_two(a, b, 1.5)
        exp = scale_two.py_func(want[0, ::3], want[1, 1::3], 1.5)
        assert got == exp
        assert np.array_equal(base, want)       # the views' elements only
    assert _on_fast_path(scale_two, a, b, 1.5)


def test_refusals_on_the_fast_path():
    A, b, x0 = _system(5, 3)
    for _ in range(3):
        gauss_seidel(A, b, x0.copy(), 1)
    assert _on_fast_path(gauss_seidel, A, b, x0.copy(), 1)
    ro = x0.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        gauss_seidel(A, b, ro, 1)
    same = b.copy()                         # x is b: the same key as a fresh x
    with pytest.raises(ValueError, match="shares memory with argument 'b'"):
        gauss_seidel(A, same, same, 1)
    assert np.array_equal(same, b)
    zero = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(5,), strides=(0,))
    with pytest.raises(ValueError, match="stride of 0"):
        gauss_seidel(A, b, zero, 1)
    x, want = x0.copy(), x0.copy()          # and the next call is right again
    assert gauss_seidel(A, b, x, 1) is x
    gauss_seidel.py_func(A, b, want, 1)
    assert np.array_equal(x, want)
