"""npbench-style loop kernels, session 29 (issue 17): seidel_2d (a slice
update beside element writes of one array, frontend_ast/nest_slices.py),
gramschmidt (dot products and slice updates of columns the loop writes)
and CSR spmv (named slices with bounds read from an array, a gather:
frontend_ast/gather_dots.py) compile unchanged and equal plain Python
(the dot products in element order, the order the frontend's dot of two
vectors sums in: compared bit for bit with that order, and within rounding
of NumPy's), with Python's errors."""
import numpy as np
import pytest

import pyhalide as ph

RNG = np.random.default_rng(29)


def seidel_2d(TSTEPS, N, A):
    for t in range(0, TSTEPS - 1):
        for i in range(1, N - 1):
            A[i, 1:-1] += (A[i - 1, :-2] + A[i - 1, 1:-1] + A[i - 1, 2:] + A[i, 2:] +
                           A[i + 1, :-2] + A[i + 1, 1:-1] + A[i + 1, 2:])
            for j in range(1, N - 1):
                A[i, j] += A[i, j - 1]
                A[i, j] /= 9.0
    return A


def gramschmidt(A):
    m, n = A.shape
    Q = np.zeros_like(A)
    R = np.zeros((n, n), dtype=A.dtype)
    for k in range(n):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def spmv(A_row, A_col, A_val, x):
    y = np.empty(A_row.size - 1, A_val.dtype)
    for i in range(A_row.size - 1):
        cols = A_col[A_row[i]:A_row[i + 1]]
        vals = A_val[A_row[i]:A_row[i + 1]]
        y[i] = vals @ x[cols]
    return y


def shifted_dots(ptr, a, b):
    out = np.zeros(ptr.shape[0] - 1)
    for i in range(ptr.shape[0] - 1):
        u = a[ptr[i]:ptr[i + 1]]
        v = b[ptr[i] + 1:ptr[i + 1] + 1]
        out[i] = u @ v
    return out


def shifted_dots_seq(ptr, a, b):
    out = np.zeros(ptr.shape[0] - 1)
    for i in range(ptr.shape[0] - 1):
        out[i] = _seq_dot(a[ptr[i]:ptr[i + 1]], b[ptr[i] + 1:ptr[i + 1] + 1])
    return out


def row_alias(A, r):
    # the rows meet where r == i: NumPy reads the row before writing it
    for i in range(A.shape[0]):
        A[i, 1:] += A[r, :-1]
        for j in range(1, A.shape[1]):
            A[i, j] += A[i, j - 1]
    return A


def _seq_dot(a, b):
    if len(a) != len(b):
        raise ValueError("matmul: mismatch")
    s = a.dtype.type(0) * b.dtype.type(0)
    for p, q in zip(a, b):
        s += p * q
    return s


def gramschmidt_seq(A):
    """gramschmidt with its dot products summed in element order."""
    m, n = A.shape
    Q = np.zeros_like(A)
    R = np.zeros((n, n), dtype=A.dtype)
    for k in range(n):
        R[k, k] = np.sqrt(_seq_dot(A[:, k], A[:, k]))
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = _seq_dot(Q[:, k], A[:, j])
            A[:, j] -= Q[:, k] * R[k, j]
    return Q, R


def spmv_seq(A_row, A_col, A_val, x):
    y = np.empty(A_row.size - 1, A_val.dtype)
    for i in range(A_row.size - 1):
        cols = A_col[A_row[i]:A_row[i + 1]]
        vals = A_val[A_row[i]:A_row[i + 1]]
        y[i] = _seq_dot(vals, x[cols])
    return y


_JIT = {}


def jit(f):
    return _JIT.setdefault(f, ph.pipeline(f))


def outcome(f, *args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return f(*args), args
    except Exception as e:  # noqa: BLE001 - the exception type is the result
        return type(e), args


def check_exact(f, oracle, *args):
    want, wargs = outcome(oracle, *args)
    got, gargs = outcome(jit(f), *args)
    if isinstance(want, type):
        assert got is want
        return
    for w, g in zip(want if isinstance(want, tuple) else (want,),
                    got if isinstance(got, tuple) else (got,)):
        assert g.dtype == w.dtype and np.array_equal(g, w)
    for w, g in zip(wargs, gargs):
        if isinstance(w, np.ndarray):
            assert np.array_equal(g, w)


def csr(m, n, density, rng):
    dense = rng.random((m, n)) * (rng.random((m, n)) < density)
    rows, cols = np.nonzero(dense)
    ptr = np.searchsorted(rows, np.arange(m + 1))
    return ptr, cols, dense[rows, cols]


def test_seidel_2d_equals_python():
    check_exact(seidel_2d, seidel_2d, 3, 7, RNG.random((7, 7)))


def test_gramschmidt_equals_python():
    A = RNG.random((7, 5))
    check_exact(gramschmidt, gramschmidt_seq, A)
    Q, R = jit(gramschmidt)(A.copy())
    Qn, Rn = gramschmidt(A.copy())
    np.testing.assert_allclose(Q, Qn, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(R, Rn, rtol=1e-12, atol=1e-13)


def test_spmv_equals_python_and_raises_as_python():
    x = RNG.random(4)
    for row, col, nv in [([0, 2, 3, 3, 6], [0, 3, 1, 0, 2, 3], 6),
                         ([0, -4, 3, -1, 6], [0, -1, 1, -4, 2, 3], 6),   # negative bounds
                         ([0, 2, 9, 3, 6], [0, 3, 1, 0, 2, 3], 6),       # past the end
                         ([0, 2, 3, 3, 6], [0, 4, 1, 0, 2, 3], 6),       # IndexError
                         ([0, 2, 3, 3, 6], [0, -5, 1, 0, 2, 3], 6),
                         ([0, 2, 3, 3, 6], [0, 3, 1, 0, 2, 3], 5),       # ValueError
                         ([0, 2, 3, 3, 6], [0, 7, 1, 0, 2, 3], 5),       # IndexError first
                         ([0, 2, 3, 3, 7], [0, 3, 1, 0, 2, 3], 6),       # clamped
                         ([0, 5, 5, 5, 6], [0, 3, 1, 0, 2, 9], 4)]:      # row 0's ValueError
                                                                         # before row 3's index
        check_exact(spmv, spmv_seq, np.array(row), np.array(col), RNG.random(nv), x)


def test_row_alias_raises_where_it_cannot_be_exact():
    A = RNG.random((4, 5))
    check_exact(row_alias, row_alias, A, 7)      # row 7: IndexError as Python
    with pytest.raises(NotImplementedError, match="reads elements"):
        jit(row_alias)(A.copy(), 2)      # the rows meet at i == 2


@pytest.mark.slow
@pytest.mark.parametrize("n,steps", [(3, 2), (2, 3), (12, 4), (1, 2)])
def test_seidel_2d_sizes(n, steps):
    check_exact(seidel_2d, seidel_2d, steps, n, RNG.random((n, n)))


@pytest.mark.slow
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (5, 7), (40, 30), (3, 0)])
def test_gramschmidt_shapes(shape):
    check_exact(gramschmidt, gramschmidt_seq, RNG.random(shape))


@pytest.mark.slow
@pytest.mark.parametrize("m,n,density", [(1, 1, 1.0), (30, 20, 0.2), (50, 50, 0.0), (8, 3, 0.9)])
def test_spmv_sizes(m, n, density):
    ptr, cols, vals = csr(m, n, density, RNG)
    check_exact(spmv, spmv_seq, ptr, cols, vals, RNG.random(n))
    check_exact(spmv, spmv_seq, ptr.astype(np.int32), cols.astype(np.int32),
                vals.astype(np.float32), RNG.random(n).astype(np.float32))


@pytest.mark.slow
@pytest.mark.parametrize("ptr", [[0, 2, 3, 3, 5], [0, 2, 3, 3, 6], [0, 2, -3, 3, -1], [0, 9]])
def test_named_slice_dots(ptr):
    # [0, 2, 3, 3, 6]: the last rows' lengths differ (b's slice is clamped): ValueError
    check_exact(shifted_dots, shifted_dots_seq, np.array(ptr), RNG.random(6), RNG.random(6))
