"""npbench's slice-form in-place LU and Cholesky (session 28, issue 17):
moving_slices.py / slice_dots.py turn `A[i, :j] @ A[:j, j]` into element
loops under a static `if` with `raise`s of NumPy's errors; phase mode runs
them as Blocks (carried_checks.py). Plain Python is the oracle: the values
written into A, the exception type and the writes made before it.

The element loops sum a dot product in element order. NumPy's dot of two
float64 vectors is OpenBLAS's ddot: element order where both vectors are
contiguous and shorter than 16, and for strided vectors shorter than 4;
the tests compare bit for bit where the order is the same, and elsewhere
with the scalar form of the same kernel (element order) bit for bit and
with NumPy's within a tolerance (docs/blocks28.md)."""
import warnings

import numpy as np
import pytest

import pyhalide as ph


def lu(A):
    N = A.shape[0]
    for i in range(N):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, N):
            A[i, j] -= A[i, :i] @ A[:i, j]


def cholesky(A):
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])


def lu_scalar(A):
    N = A.shape[0]
    for i in range(N):
        for j in range(i):
            acc = A.dtype.type(0)
            for k in range(j):
                acc += A[i, k] * A[k, j]
            A[i, j] -= acc
            A[i, j] /= A[j, j]
        for j in range(i, N):
            acc = A.dtype.type(0)
            for k in range(i):
                acc += A[i, k] * A[k, j]
            A[i, j] -= acc


def cholesky_scalar(A):
    A[0, 0] = np.sqrt(A[0, 0])
    for i in range(1, A.shape[0]):
        for j in range(i):
            acc = A.dtype.type(0)
            for k in range(j):
                acc += A[i, k] * A[j, k]
            A[i, j] -= acc
            A[i, j] /= A[j, j]
        acc = A.dtype.type(0)
        for k in range(i):
            acc += A[i, k] * A[i, k]
        A[i, i] -= acc
        A[i, i] = np.sqrt(A[i, i])


def _run(fn, a):
    a = a.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(a)
            return None, a
        except Exception as e:  # noqa: BLE001 - the exception type is the result
            return type(e), a


def _same(got, want):
    assert got[0] is want[0]
    assert got[1].dtype == want[1].dtype
    np.testing.assert_array_equal(got[1], want[1])


def _inputs(shapes, dtype=np.float64):
    rng = np.random.default_rng(28)
    out = []
    for shape in shapes:
        m = rng.standard_normal(shape)
        if shape[0] == shape[1] and shape[0]:
            n = shape[0]
            spd = m @ m.T + n * np.eye(n)
            sing = spd.copy()
            sing[:, n // 2] = 0.0
            sing[n // 2, :] = 0.0
            out += [m, spd, sing]
        else:
            out.append(m)
    return [a.astype(dtype) for a in out]


def test_lu_slice_form_equals_python():
    # dot products of length <= 3 (row @ column: OpenBLAS's strided order is
    # element order there); 5x3 raises IndexError after partial writes
    jit = ph.pipeline(lu)
    # (sizes of 1 are specializations of their own: in the slow run)
    for a in _inputs([(0, 0), (2, 2), (4, 4), (3, 5), (5, 3)]):
        _same(_run(jit, a), _run(lu, a))
    for a in _inputs([(9, 9)]):
        got = _run(jit, a)
        _same(got, _run(lu_scalar, a))
        np.testing.assert_allclose(got[1], _run(lu, a)[1], rtol=1e-9, atol=1e-12)


def test_cholesky_slice_form_equals_python():
    # rows @ rows: OpenBLAS's contiguous order is element order below 16;
    # 0x0 raises IndexError at A[0, 0], 5x3 at A[i, 3] after partial writes
    jit = ph.pipeline(cholesky)
    for a in _inputs([(0, 0), (2, 2), (7, 7), (16, 16), (3, 5), (5, 3)]):
        _same(_run(jit, a), _run(cholesky, a))
    for a in _inputs([(20, 20)]):
        got = _run(jit, a)
        _same(got, _run(cholesky_scalar, a))
        np.testing.assert_allclose(got[1], _run(cholesky, a)[1], rtol=1e-9, atol=1e-12)


def test_cholesky_slice_form_float32():
    # NumPy's float32 dot (sdot) is not element order: the scalar form is
    # the oracle of the values, Python's slice form of the errors
    jit = ph.pipeline(cholesky)
    for a in _inputs([(6, 6), (3, 5)], np.float32):
        got = _run(jit, a)
        _same(got, _run(cholesky_scalar, a))
        want = _run(cholesky, a)
        assert got[0] is want[0]
        np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)


def lu_pivot_list_swap(a):
    # a hand-written pivot search, NumPy's list-index row swap, the update
    n = a.shape[0]
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[p, k]):
                p = i
        a[[k, p]] = a[[p, k]]
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= f * a[k, j]
            a[i, k] = f


def test_list_index_row_swap_in_lu():
    jit = ph.pipeline(lu_pivot_list_swap)
    rng = np.random.default_rng(5)
    ties = rng.integers(-1, 3, (6, 6)).astype(float)
    ties[:, 2] = 0.0                      # a zero column: a zero pivot (inf, nan)
    for a in _inputs([(0, 0), (5, 5)]) + [ties, rng.standard_normal((3, 5)),
                                                    rng.standard_normal((5, 3))]:
        _same(_run(jit, a), _run(lu_pivot_list_swap, a))


def swap_rows(a):
    # outside loops, with `:`; the indices are ints computed from a's size
    k = a.shape[0] // 2
    p = a.shape[0] - 6
    a[[k, p], :] = a[[p, k], :]
    return a


def test_list_index_row_swap_outside_loops():
    jit = ph.pipeline(swap_rows)
    for rows in (5, 7, 6, 2, 0):          # p = -1, 1, 0, -4 (out of range), -6
        a = np.arange(3.0 * rows).reshape(rows, 3)
        _same(_run(jit, a), _run(swap_rows, a))



def lu_vector(A, x):
    # a dot product with another array, whose length may not fit
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ x[:j]
            A[i, j] /= A[j, j]
        A[i, i] = np.sqrt(abs(A[i, i]))


def test_value_error_of_a_dot_keeps_the_writes_before_it():
    # x of length 2: A[4, :3] @ x[:3] raises ValueError at i = 4, j = 3,
    # after the writes of rows 0..3 and of A[4, :3]; x of length 5: no error
    jit = ph.pipeline(lu_vector)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 5)) + 5 * np.eye(5)
    for x in (rng.standard_normal(2), rng.standard_normal(5)):
        want = _run(lambda m: lu_vector(m, x), a)
        got = _run(lambda m: jit(m, x), a)
        _same(got, want)

@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 5, 8, 17, 33])
def test_lu_slice_form_sizes(n):
    jit = ph.pipeline(lu)
    for a in _inputs([(n, n), (n, n + 2), (n + 2, n)]):
        got = _run(jit, a)
        _same(got, _run(lu_scalar, a))
        want = _run(lu, a)
        assert got[0] is want[0]


@pytest.mark.slow
@pytest.mark.parametrize("fn", [lu, cholesky, lu_pivot_list_swap])
def test_sizes_of_one(fn):
    jit = ph.pipeline(fn)
    for a in _inputs([(1, 1), (4, 1), (1, 4), (1, 0), (0, 1)]):
        _same(_run(jit, a), _run(fn, a))
