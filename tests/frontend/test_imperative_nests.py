"""Serial loop nests run as one serial update in Python's order: an array and a
per-iteration inner sum that read each other (forward and back substitution,
Gauss-Seidel sweeps: frontend_ast/imperative_nests.py), an array written at
two depths of one nest or read by its own writes at unrelated elements (LU
without pivoting, in-place transposes: imperative_writes.py). Every result,
and every argument after the call, is compared bit for bit with plain Python
at sizes 0, 1, 2, 5 and 17 with contiguous and non-contiguous arguments
(schedule="auto": sizes 0 and 5)."""
import math

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError


def forward(L, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(i):
            s += L[i, j] * x[j]
        x[i] = (b[i] - s) / L[i, i]
    return x


def back(U, b):
    n = b.shape[0]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = 0.0
        for j in range(i + 1, n):
            s += U[i, j] * x[j]
        x[i] = (b[i] - s) / U[i, i]
    return x


def forward_in_place(L, x):
    n = x.shape[0]
    for i in range(n):
        s = 0.0
        for j in range(i):
            s += L[i, j] * x[j]
        x[i] = (x[i] - s) / L[i, i]
    return x


def gauss_seidel(A, b, x, sweeps):
    n = b.shape[0]
    for it in range(sweeps):
        for i in range(n):
            s = 0.0
            for j in range(n):
                if j != i:
                    s += A[i, j] * x[j]
            x[i] = (b[i] - s) / A[i, i]
    return x


def gauss_seidel_skip(A, b, x, sweeps):
    """The write is conditional: the reduction starts from 0.0 again anyway."""
    n = b.shape[0]
    for it in range(sweeps):
        for i in range(n):
            s = 0.0
            for j in range(i):
                s += A[i, j] * x[j]
            if A[i, i] > 1.5:
                x[i] = (b[i] - s) / A[i, i]
    return x


def running_row(a):
    """Each element from the row sums of the elements before it (a descending
    inner loop; the write reads the array at another element too)."""
    n = a.shape[0]
    out = np.ones(n)
    for i in range(1, n):
        t = 0.5
        for j in range(i - 1, -1, -1):
            t = t * 0.5 + a[i, j] * out[j]
        out[i] = out[i - 1] - t
    return out


def int_triangle(m):
    """Python ints: the sums and the written array are int64."""
    n = m.shape[0]
    x = np.zeros(n, dtype=np.int64)
    for i in range(n):
        s = 1
        for j in range(i):
            s += m[i, j] * x[j]
        x[i] = s % 1000 + m[i, i]
    return x


def cholesky(A):
    """Cholesky-Banachiewicz, row by row (each element's sum reads the
    elements of L the nest wrote before it)."""
    n = A.shape[0]
    L = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            s = 0.0
            for k in range(j):
                s += L[i, k] * L[j, k]
            if i == j:
                L[i, j] = math.sqrt(A[i, i] - s)
            else:
                L[i, j] = (A[i, j] - s) / L[j, j]
    return L


def triangular_matvec(L, x):
    n = x.shape[0]
    y = np.zeros(n)
    for i in range(n):
        s = 0.0
        for j in range(i + 1):
            s += L[i, j] * x[j]
        y[i] = s
    return y


def lu(a):
    """LU without pivoting, in place."""
    n = a.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            a[i, k] /= a[k, k]
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]
    return a


def lu_write_after(a):
    """The column write after the row loop: other values, Python's order."""
    n = a.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i, j] -= a[i, k] * a[k, j]
            a[i, k] /= a[k, k]
    return a


def transpose_in_place(a):
    """Reads elements the nest already overwrote (Python's aliasing)."""
    n = a.shape[0]
    for i in range(n):
        for j in range(n):
            a[i, j] = a[j, i]
    return a


def int_elimination(a):
    n = a.shape[0]
    for k in range(n):
        for i in range(k + 1, n):
            a[i, k] = a[i, k] * 3 + a[k, k]
            for j in range(k + 1, n):
                if j % 2 == 0:
                    a[i, j] -= a[i, k] * a[k, j] % 7
    return a


RNG = np.random.default_rng(17)


def lower(n, strided=False):
    m = np.tril(RNG.random((2 * n, 2 * n))) + 2.0 * np.eye(2 * n)
    return m[::2, ::2] if strided else np.ascontiguousarray(m[:n, :n])


def upper(n, strided=False):
    return lower(n, strided).T


def vec(n, strided=False):
    v = RNG.random(2 * n + 1)
    return v[::-2][:n] if strided else v[:n].copy()


def spd(n, strided=False):
    m = RNG.random((n, n))
    m = m @ m.T + n * np.eye(n)
    if strided:
        big = np.zeros((n, 2 * n))
        big[:, ::2] = m
        return big[:, ::2]
    return m


CASES = {
    "forward": (forward, lambda n, s: (lower(n, s), vec(n, s))),
    "back": (back, lambda n, s: (upper(n, s), vec(n, s))),
    "forward_in_place": (forward_in_place, lambda n, s: (lower(n, s), vec(n, s))),
    "gauss_seidel": (gauss_seidel, lambda n, s: (spd(n, s), vec(n, s), vec(n, s), 3)),
    "gauss_seidel_skip": (gauss_seidel_skip,
                          lambda n, s: (lower(n, s) + np.diag(RNG.random(n)), vec(n, s),
                                        vec(n, s), 2)),
    "running_row": (running_row, lambda n, s: (lower(n, s),)),
    "cholesky": (cholesky, lambda n, s: (spd(n, s),)),
    "triangular_matvec": (triangular_matvec, lambda n, s: (lower(n, s), vec(n, s))),
    "lu": (lu, lambda n, s: (spd(n, s),)),
    "lu_write_after": (lu_write_after, lambda n, s: (spd(n, s),)),
    "transpose_in_place": (transpose_in_place, lambda n, s: (spd(n, s),)),
    "int_elimination": (int_elimination,
                        lambda n, s: (RNG.integers(-9, 9, (n, 2 * n))[:, ::2] if s else
                                      RNG.integers(-9, 9, (n, n)),)),
    "int_triangle": (int_triangle,
                     lambda n, s: (RNG.integers(-50, 50, (n, 2 * n))[:, ::2] if s else
                                   RNG.integers(-50, 50, (n, n)),)),
}


def _copy(a):
    """An argument with the same values and the same strides."""
    if not isinstance(a, np.ndarray):
        return a
    base = np.empty_like(a.base if a.base is not None else a)
    base[...] = a.base if a.base is not None else a
    if a.base is None:
        return base
    offset = (a.__array_interface__["data"][0] - a.base.__array_interface__["data"][0])
    return np.ndarray(a.shape, a.dtype, base, offset, a.strides)


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and \
        np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # lu_write_after overflows (as Python)
@pytest.mark.parametrize("schedule", [None, "auto"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_python(name, schedule):
    fn, make = CASES[name]
    p = ph.pipeline(fn) if schedule is None else ph.pipeline(fn, schedule=schedule)
    for strided in (False, True) if schedule is None else (False,):
        for n in (0, 1, 2, 5, 17) if schedule is None else (0, 5):
            args = make(n, strided)
            plain, comp = [_copy(a) for a in args], [_copy(a) for a in args]
            if strided:
                assert any(isinstance(a, np.ndarray) and not a.flags.c_contiguous
                           for a in comp if getattr(a, "size", 0) > 1) or n < 2
            exp, got = fn(*plain), p(*comp)
            assert _same(got, exp), (name, n, strided, got, exp)
            for a, b in zip(comp, plain):
                if isinstance(a, np.ndarray):
                    assert _same(a, b), (name, n, strided)


def test_index_error_as_python():
    """A read past the end inside the inner sum raises IndexError, as in Python."""
    def bad(L, b):
        n = b.shape[0]
        x = np.zeros(n)
        for i in range(n):
            s = 0.0
            for j in range(i + 2):
                s += L[i, j] * x[j]
            x[i] = (b[i] - s) / L[i, i]
        return x
    L, b = lower(4), vec(4)
    with pytest.raises(IndexError):
        bad(L, b)
    with pytest.raises(IndexError):
        ph.pipeline(bad)(L, b)


def test_sum_read_after_the_nest_is_refused():
    """The sum is read after the nest too: still the located refusal."""
    def both(L, b):
        n = b.shape[0]
        x = np.zeros(n)
        s = 0.0
        for i in range(n):
            s = 0.0
            for j in range(i):
                s += L[i, j] * x[j]
            x[i] = (b[i] - s) / L[i, i]
        return x, s
    with pytest.raises(FrontendError):
        ph.pipeline(both)(lower(3), vec(3))


def test_write_before_the_sum_is_refused():
    """The array is written before the inner loop in the same iteration."""
    def before(L, b):
        n = b.shape[0]
        x = np.zeros(n)
        for i in range(n):
            x[i] = b[i]
            s = 0.0
            for j in range(n):
                s += L[i, j] * x[j]
            x[i] = s
        return x
    L, b = lower(5), vec(5)
    try:
        got = ph.pipeline(before)(L, b)
    except FrontendError:
        return
    assert _same(got, before(L, b))


def test_math_in_the_write():
    """math.sqrt of the sum in the write (a Cholesky-like diagonal)."""
    def diag(A):
        n = A.shape[0]
        d = np.zeros(n)
        for i in range(n):
            s = 0.0
            for k in range(i):
                s += d[k] * d[k] * A[i, k]
            d[i] = math.sqrt(A[i, i] + s)
        return d
    for n in (0, 1, 6):
        A = spd(n)
        assert _same(ph.pipeline(diag)(A), diag(A))


def test_two_depths_written_before_read():
    """A write whose element an earlier write of the same iteration made."""
    def two(a):
        n = a.shape[0]
        for i in range(1, n - 1):
            a[i, 0] = a[i - 1, 0] + a[i + 1, 1]
            a[i + 1, 0] = a[i, 0] * 0.5
        return a
    for n in (3, 4, 9):
        a = RNG.random((n, n))
        plain, comp = a.copy(), a.copy()
        assert _same(ph.pipeline(two)(comp), two(plain))
        assert _same(comp, plain)


def test_underscore_loop_variable():
    """`for _ in range(k)`: `_` (and `_0`) also name the Func API's placeholder
    and implicit Vars; a loop variable of that name was a false CompileError."""
    def sweeps(A, b, x, k):
        n = b.shape[0]
        for _ in range(k):
            for i in range(n):
                s = 0.0
                for j in range(n):
                    if j != i:
                        s += A[i, j] * x[j]
                x[i] = (b[i] - s) / A[i, i]
        return x

    def count(b, k):
        t = 0.0
        for _0 in range(k):
            for _ in range(b.shape[0]):
                t += b[_] * _0
        return t
    for n in (0, 1, 4):
        A, b, x = spd(n), vec(n), vec(n)
        plain, comp = x.copy(), x.copy()
        assert _same(ph.pipeline(sweeps)(A, b, comp, 3), sweeps(A, b, plain, 3))
        assert _same(comp, plain)
        assert ph.pipeline(count)(b, 3) == count(b, 3)


def test_value_read_before_an_earlier_write():
    """`f` is read from the array before `a[i, k] = f` writes it, and used
    after: a merged update would compute `f` where it is used (a wrong value,
    found while building the merge); it is refused unless exact."""
    def lu_multiplier(a):
        n = a.shape[0]
        for k in range(n):
            for i in range(k + 1, n):
                f = a[i, k] / a[k, k]
                a[i, k] = f
                for j in range(k + 1, n):
                    a[i, j] -= f * a[k, j]
        return a
    for n in (2, 5):
        a = spd(n)
        plain, comp = a.copy(), a.copy()
        try:
            got = ph.pipeline(lu_multiplier)(comp)
        except FrontendError:
            continue
        assert _same(got, lu_multiplier(plain)) and _same(comp, plain)


def test_sibling_loops_of_one_name():
    """Two inner loops both named `j` (their Vars have one name): the merge
    took them for one loop and computed other values (found while building
    it); refused unless exact."""
    def two_loops(a):
        n = a.shape[0]
        for k in range(n):
            for j in range(k):
                a[k, j] += a[j, k] * 0.5
            for j in range(n - 1, k, -1):
                a[j, k] -= a[k, j] * 0.25
        return a
    for n in (2, 5):
        a = RNG.random((n, n))
        plain, comp = a.copy(), a.copy()
        try:
            got = ph.pipeline(two_loops)(comp)
        except FrontendError:
            continue
        assert _same(got, two_loops(plain)) and _same(comp, plain)
