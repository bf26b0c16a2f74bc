"""Slices whose bounds change from one loop iteration to the next
(frontend_ast/moving_slices.py): dot products of such slices and
assignments into them compile as element loops and equal plain Python,
including Python's slice rules for negative and out-of-range bounds and
NumPy's IndexError / ValueError; forms whose element loop would differ
from NumPy (overlapping reads of the target, other ranks, casts `op=`
refuses) stay located errors."""
import numpy as np
import pytest

import pyhalide as ph

RNG = np.random.default_rng(27)


def trisolv(L, b):
    x = np.zeros_like(b)
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def dot_window(L, x, a, b):
    out = np.zeros(L.shape[0])
    for i in range(L.shape[0]):
        out[i] = np.dot(L[i, a + i:b + i], x[a + i:b + i])
    return out


def dot_row(L, x, r, d):
    s = 0.0
    for i in range(3):
        s += L[r, i:i + d] @ x[i:i + 1]
    return s


def syrk(C, A, alpha):
    for i in range(C.shape[0]):
        C[i, :i + 1] *= 0.5
        for k in range(A.shape[1]):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
    return C


def broadcast_store(C, A, d):
    for i in range(C.shape[0]):
        C[i, :i + 1] = np.sqrt(A[i, :i + 1 + d]) * 2.0 - A[0, 0:1]
    return C


def shifted_copy(x):
    for i in range(2, x.shape[0]):
        x[1:i] = x[0:i - 1] + 1.0
    return x


_JIT = {}


def jit(f):
    """One compiled function per kernel in this file (its parametrizations
    share the specialization)."""
    return _JIT.setdefault(f, ph.pipeline(f))


def run(f, *args):
    """(value or exception type, the arguments after the call)."""
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return f(*args), args
    except Exception as e:  # noqa: BLE001 - the exception type is the result
        return type(e), args


def check(f, *args):
    want, wargs = run(f, *args)
    got, gargs = run(jit(f), *args)
    if isinstance(want, type):
        assert got is want
    else:
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)
        assert np.asarray(got).dtype == np.asarray(want).dtype
    for w, g in zip(wargs, gargs):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15)


def test_triangular_solve_reads_the_values_written_before():
    L = RNG.random((7, 7)) + 7 * np.eye(7)
    check(trisolv, L, RNG.random(7))


@pytest.mark.parametrize("a,b", [(0, 0), (-2, 3), (-9, 9), (3, -1), (2, 7)])
def test_dot_bounds_follow_python_slice_rules(a, b):
    check(dot_window, RNG.random((5, 5)), RNG.random(5), a, b)


@pytest.mark.parametrize("r,d", [(4, 1), (5, 1), (-6, 1), (7, 0), (1, 0), (1, 2)])
def test_dot_raises_what_numpy_raises(r, d):
    # r out of range: IndexError (also for empty slices); lengths differ: ValueError
    check(dot_row, RNG.random((5, 5)), RNG.random(5), r, d)


def test_symmetric_rank_k_update_in_place():
    check(syrk, np.zeros((5, 5)), RNG.random((5, 4)), 1.5)


def test_augmented_store_numpy_refuses_to_cast_stays_refused():
    # NumPy: UFuncTypeError (float64 into int64 by same_kind); the element
    # loop would truncate: not rewritten, so the slice stays a located error
    with pytest.raises(ph.CompileError, match="slice bounds"):
        jit(syrk)(np.zeros((5, 5), np.int64), RNG.random((5, 4)), 1.5)


@pytest.mark.parametrize("d", [0, 1, -1])
def test_store_broadcasts_and_raises_as_numpy(d):
    check(broadcast_store, np.zeros((5, 5)), RNG.random((5, 5)), d)


def test_overlapping_read_of_the_target_stays_refused():
    # NumPy reads x[0:i-1] before writing x[1:i]; an element loop would read
    # what it wrote
    with pytest.raises(ph.CompileError, match="slice bounds"):
        jit(shifted_copy)(np.arange(6.0))
