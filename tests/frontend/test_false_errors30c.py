"""Session 30 (h4b): array code inside loops whose inner range depends on an
outer loop's variable (a triangle) is computed over the bounding box of the
iterations; its run-time checks pass outside the loops' ranges
(frontend_ast/lifted_ranges.py), so they raise exactly where Python does:
no false IndexError at a column the loops never visit, the real one kept
where the triangle does go out of range. Compared with plain Python (value
and dtype bit for bit; the exception's type and NumPy's message)."""
import numpy as np
import pytest

import pyhalide as ph

RNG = np.random.default_rng(303)


def dot_triangle(M, data):
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        for k in range(M - i):
            cov[i, i + k] = data[:, i] @ data[:, i + k]
    return cov


def dot_triangle_past(M, data):
    # the first row reads column M: an IndexError unless data has M + 1 columns
    cov = np.zeros((M, M + 1), dtype=data.dtype)
    for i in range(M):
        for k in range(M - i + 1):
            cov[i, i + k] = data[:, i] @ data[:, i + k]
    return cov


def row_max_triangle(M, data):
    out = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        for k in range(M - i):
            out[i, k] = data[i + k].max()
    return out


def sum_from_i(M, data):
    out = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        for j in range(i, M):
            out[i, j] = data[:, j].sum() - data[:, j - i].sum()
    return out


def strided(M, data):
    out = np.zeros((M, 2 * M), dtype=data.dtype)
    for i in range(M):
        for j in range(i, 2 * M - i, 2):
            out[i, j] = (data[:, j] * data[:, i]).sum()
    return out


def downwards(M, data):
    out = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        for j in range(M - 1, i - 1, -1):
            out[i, j] = data[:, j - i].max()
    return out


def deep_triangle(M, data):
    out = np.zeros((M, M, M), dtype=data.dtype)
    for i in range(M):
        for j in range(M - i):
            for k in range(M - i - j):
                out[i, j, k] = data[:, i + j + k].sum()
    return out


def outer_column(M, data, extra):
    # data[:, i] is read where the k range is not empty: i < M (extra = 0),
    # i <= M (extra = 1: column M, an IndexError for M columns)
    out = np.zeros((M + 1, M + 2))
    for i in range(M + 1):
        for k in range(M - i + extra):
            out[i, k] = data[:, i].sum() + k
    return out


def sums_until(M, data, lim):
    out = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        for k in range(M):
            if k >= lim[i] or data[0, k] > 0.5:
                break
            out[i, k] = data[:, i + k].sum()
    return out


def sums_skipping(M, data, skip):
    out = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        for k in range(M):
            if skip[i + k] > 0:
                continue
            out[i, k] = data[:, i + k].sum()
    return out


def outcome(f, *args):
    try:
        return f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    except Exception as e:        # noqa: BLE001 (the type and message are compared)
        return e


def same(a, b, message=True) -> bool:
    if isinstance(a, Exception) or isinstance(b, Exception):
        return type(a) is type(b) and (not message or str(b).startswith(str(a)))
    return a.dtype == b.dtype and np.array_equal(a, b)


def check(f, cases, message=True):
    g = ph.pipeline(f)
    for args in cases:
        want, got = outcome(f, *args), outcome(g, *args)
        assert same(want, got, message), (f.__name__, [getattr(a, "shape", a) for a in args], want, got)


def ints(*shape):
    return RNG.integers(-9, 10, shape)


def test_dot_over_a_triangle():
    # Python reads columns i + k < M only; M past the columns raises
    check(dot_triangle, [(4, ints(5, 4)), (1, ints(3, 1)), (0, ints(3, 0)), (3, ints(2, 7)),
                         (5, ints(5, 4)), (4, ints(6, 4).astype(np.float64))])


def test_dot_over_a_triangle_going_out_of_range():
    # range(M - i + 1): column M at i = 0 is read (IndexError unless it exists)
    check(dot_triangle_past, [(4, ints(5, 4)), (3, ints(5, 4)), (4, ints(5, 5)),
                              (1, ints(2, 1)), (0, ints(5, 0))])


@pytest.mark.slow
def test_row_max_over_a_triangle():
    # a max's NumPy zero-sign pass (a definition with predicates)
    rows = RNG.random((4, 3))
    rows[1, 0] = -0.0
    check(row_max_triangle, [(4, rows), (5, rows), (4, np.zeros((4, 3))), (2, rows[:2])])


def test_sums_until_a_break():
    # the loop leaves before column i + k passes the end (Python reads no
    # further); a limit past it raises; a bad lim index raises at the test
    d = RNG.random((5, 4))
    d[0] = 0.25
    check(sums_until, [(4, d, np.array([4, 3, 2, 1])), (4, d, np.array([4, 3, 3, 1])),
                       (4, d, np.array([0, 0, 0, 0])), (4, d, np.array([9, -1, 2, 1])),
                       (4, d, np.array([4, 3, 2])), (4, np.full((5, 4), 0.75), np.full(4, 9))])


@pytest.mark.slow
def test_outer_column_where_the_inner_range_is_not_empty():
    d = RNG.random((3, 4))
    check(outer_column, [(M, d, extra) for M in (0, 1, 3, 4) for extra in (0, 1)])


@pytest.mark.slow
def test_sums_skipping_by_continue():
    d = RNG.random((5, 4))
    check(sums_skipping, [(4, d, np.array([0, 0, 0, 0, 1, 1, 1])),
                          (4, d, np.array([0, 0, 0, 0, 0, 1, 1])),
                          (4, d, np.array([0, 0, 0, 0, 1, 1]))])


@pytest.mark.slow
@pytest.mark.parametrize("f", [dot_triangle, dot_triangle_past, row_max_triangle, sum_from_i,
                               strided, downwards, deep_triangle])
def test_triangles_random(f):
    rng = np.random.default_rng(31)
    cases = []
    for _ in range(12):
        M = int(rng.integers(0, 7))
        rows, cols = int(rng.integers(1, 5)), int(rng.integers(0, 2 * M + 2))
        data = rng.integers(-9, 10, (rows, cols))
        if rng.random() < 0.5:     # (floats: NumPy's dots are BLAS order, ours element order)
            data = data.astype(np.float64) if f in (dot_triangle, dot_triangle_past) else \
                rng.random((rows, cols))
        if f is row_max_triangle:
            data = data.T.copy()
        cases.append((M, data))
    # (downwards: the IndexError's message names the first bad column in
    # ascending order, not Python's descending one; main aa13e0fa the same)
    check(f, cases, message=f is not downwards)
