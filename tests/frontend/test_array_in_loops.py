"""Array code inside loops: array values computed per iteration (lifted over
the loops, lifted.py) and slice/mask assignments inside loops
(array_store_loops.py), compared with plain Python; what is not compiled is
a located error, never a result that differs."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError

RNG = np.random.default_rng(7)
A = RNG.random((6, 5))
B = RNG.random((6, 4))
W = RNG.random((6, 5)) + 0.5


def wdist(A, B, W):
    k, m = A.shape
    _, n = B.shape
    D = np.zeros((m, n))
    for ii in range(m):
        for jj in range(n):
            wdiff = (A[:, ii] - B[:, jj]) / W[:, ii]
            D[ii, jj] = np.sqrt((wdiff ** 2).sum())
    return D


def multiple_sum(array):
    rows = array.shape[0]
    out = np.zeros((rows, array.shape[1]))
    for row in range(0, rows):
        out[row, :] = np.sum(array - array[row, :], 0)
    return out


def row_reductions(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.sum(a[i] * 2) + a[i].max() - a[i, 1:].mean()
    return out


def argmin_per_row(a, b):
    out = np.zeros(a.shape[0], dtype=np.int64)
    for i in range(a.shape[0]):
        out[i] = np.argmin(np.abs(b - a[i, 0]))
    return out


def masked_store_in_if(a):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        if a[i, 0] > 0.5:
            out[i, 1:] = a[i, :-1] + 1
    return out


def nested_loops_int(a):
    out = np.zeros((a.shape[0], a.shape[0]), dtype=np.int64)
    for i in range(a.shape[0]):
        for j in range(i, a.shape[0]):
            out[i, j] = (a[i] * a[j]).sum()
    return out


def scan_in_loop(a):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        out[i, :] = np.cumsum(a[i])
    return out


def dot_in_loop(a, b):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = np.dot(a[i, :4], b[i])
    return out


def guarded_row(a, b):
    n = a.shape[0]
    out = np.zeros(n)
    for i in range(n):
        if i < n - 1:
            t = a[i + 1] * b
            out[i] = t.sum() + t[0]
    return out


def gather_in_loop(a, idx):
    out = np.zeros(idx.shape[0])
    for i in range(idx.shape[0]):
        g = a[idx[i]] * 2
        out[i] = g.sum()
    return out


def test_a_bad_gather_index_in_a_loop_raises_numpys_error():
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0 with size 6"):
        ph.pipeline(gather_in_loop)(A, np.array([0, 7, 2]))


CASES = [
    (guarded_row, (A, W[0].copy())),
    (gather_in_loop, (A, np.array([0, 5, 2, 2]))),
    (wdist, (A, B, W)),
    (multiple_sum, (A,)),
    (row_reductions, (A,)),
    (argmin_per_row, (A, B[:, 0].copy())),
    (masked_store_in_if, (A,)),
    (nested_loops_int, ((A * 10).astype(np.int32),)),
    (scan_in_loop, (A,)),
    (dot_in_loop, (A, B)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_array_code_in_loops_equals_python(fn, args):
    got = ph.pipeline(fn)(*[a.copy() for a in args])
    want = fn(*[a.copy() for a in args])
    assert got.dtype == want.dtype and got.shape == want.shape
    if fn is dot_in_loop:       # NumPy's np.dot is BLAS's order: docs/numpy_code.md's bound
        a, b = args
        bound = 2 * 4 * np.finfo(got.dtype).eps * np.einsum("ik,ik->i", abs(a[:, :4]), abs(b))
        assert np.all(np.abs(got - want) <= bound), (got, want)
        return
    np.testing.assert_array_equal(got, want)


def uses_carried_scalar(a):
    s = 0.0
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        s += 1.0
        out[i] = (a[i] * s).sum()
    return out


def reads_what_it_writes(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        out[i] = out.sum() + a[i, 0]
    return out


def array_after_loop(a):
    for i in range(3):
        t = a * i
    return t


def two_writes(a):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * i
        out[i, 0] = 7.0
    return out


def size_from_loop(a):
    out = np.zeros(a.shape[0])
    for i in range(1, a.shape[0]):
        out[i] = a[:i, 0].sum()
    return out


ERRORS = [
    (uses_carried_scalar, (A,), "which the loop changes from one iteration"),
    (reads_what_it_writes, (A,), "cannot read 'out', which the same loop writes"),
    (array_after_loop, (A[0],), "the array 't' computed inside this loop is read after it"),
    (size_from_loop, (A,), "slice bounds must be known when the function is called"),
]


def test_row_and_element_write_in_one_iteration():
    """Refused before session 14; now phase mode (element writes at two
    index expressions, test_element_swaps_in_loops.py)."""
    np.testing.assert_array_equal(ph.pipeline(two_writes)(A), two_writes(A))


@pytest.mark.parametrize("fn,args,message", ERRORS, ids=[c[0].__name__ for c in ERRORS])
def test_refused_forms_are_located_errors(fn, args, message):
    with pytest.raises(FrontendError, match=message) as e:
        ph.pipeline(fn)(*args)
    assert "test_array_in_loops.py:" in str(e.value)
