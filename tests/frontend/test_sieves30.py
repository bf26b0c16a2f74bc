"""Issue 17, session 30: seidel_2d on an integer array (`A[i, j] /= 9.0`
stores int(A[i, j] / 9.0), NumPy's element store, with its ValueError /
OverflowError), and the Sieve of Eratosthenes. Plain Python is the
oracle."""
import re
import warnings

import numpy as np
import pytest

import pyhalide as ph


def seidel_2d(TSTEPS, N, A):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] +
                           A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0
    return A


def scaled_rows(TSTEPS, N, A, f):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += A[i - 1, :-2] + A[i + 1, 2:]
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] *= f
    return A


_JIT = {}


def jit(f):
    return _JIT.setdefault(f, ph.pipeline(f))


def outcome(f, *args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return f(*args), args
    except Exception as e:  # noqa: BLE001 - the exception type is the result
        return type(e), args


def check(f, *args):
    want, wargs = outcome(f, *args)
    got, gargs = outcome(jit(f), *args)
    if isinstance(want, type):
        assert got is want
        return
    assert not isinstance(got, type), got
    for w, g in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,)):
        w, g = np.asarray(w), np.asarray(g)
        assert g.dtype == w.dtype and np.array_equal(g, w)
    for w, g in zip(wargs, gargs):
        if isinstance(w, np.ndarray):
            assert np.array_equal(g, w)


@pytest.mark.slow   # (5 s: seidel's phase-mode build)
def test_seidel_2d_int():
    A = (np.arange(81).reshape(9, 9) * 7 % 13).astype(np.int64)
    check(seidel_2d, 4, 9, A)
    check(seidel_2d, 3, 9, -A)


def test_element_augassign_casts_as_numpy_stores():
    A = (np.arange(64).reshape(8, 8) * 7 % 13).astype(np.int8)
    for f in (0.5, 9.0, np.nan, 1e3):       # ok, OverflowError, ValueError, OverflowError
        check(scaled_rows, 3, 8, A, f)


def sieve(n):
    is_p = np.ones(n + 1, np.bool_)
    is_p[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_p[i]:
            for j in range(i * i, n + 1, i):
                is_p[j] = False
    return is_p


def test_sieve_loop_form():
    for n in (0, 1, 2, 3, 4, 24, 25, 97, 1000):
        check(sieve, n)


def sieve_slices(n):
    is_p = np.ones(n + 1, np.bool_)
    is_p[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_p[i]:
            is_p[i * i::i] = False
    return is_p


def test_sieve_slice_form():
    for n in (0, 1, 2, 3, 4, 24, 25, 97, 1000):
        check(sieve_slices, n)


def stepped_store(a, s, e, k):
    a[s:e:k] = 1
    return a


def test_slice_store_with_a_run_time_step():
    a = np.arange(7, dtype=np.int16)
    for s, e, k in [(1, 6, 2), (-2, 0, -1), (6, -9, -3), (0, 7, 0), (-9, 12, 4), (12, -12, -5)]:
        check(stepped_store, a, s, e, k)     # (k == 0: ValueError)


def test_sieve_inner_loop_is_a_branch_without_checks():
    # the test `is_p[i]` is read once per i, outside the inner loop (no
    # iteration of it writes is_p[i]), and the stores carry no index check
    # (a pipeline of its own: jit(sieve)'s specializations depend on which
    # tests ran before in the process)
    p = ph.pipeline(sieve)
    assert np.array_equal(p(100), sieve(100))
    text = p.lower("final")
    # (the names hold counters of the process's compiles: is_p$2, _ph_6)
    k = re.search(r"for \((is_p(?:\$\d+)?)\.s2\.(r_i__ph_\d+_k)\$x", text)
    assert k, [ln.strip()[:60] for ln in text.splitlines() if "for (" in ln]
    loop = text[k.start():]
    assert f"{k.group(1)}.internal[{k.group(1)}.s2.{k.group(2)}$y]" not in loop
    assert "assert" not in loop and "IndexError" not in loop


def marked_twice(a, m):
    # the test of a[i] moves out of the j loop but stays inside the t loop,
    # where the j loops of earlier t iterations write a[i]; a later
    # statement of the i loop writes a[i] too
    n = len(a)
    for t in range(2):
        for i in range(2, m):
            if a[i] == t:
                for j in range(i * i, n, i):
                    a[j] = a[j] + 1
            a[i] = a[i] + t
    return a


def test_tests_of_elements_written_elsewhere_keep_python_order():
    a = (np.arange(40) % 3 == 0).astype(np.int64)
    for m in (0, 3, 7):
        check(marked_twice, a, m)
