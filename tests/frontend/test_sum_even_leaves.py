"""Row sums whose split tree has leaves of one size side by side
(frontend_ast/sum_order.py even_chunks: powers of two from 128 elements,
runs of 8 to 135 elements, 4096 = 32 leaves of 16 chunks) take their own
update, which reads slot s's chunks at s * even + k; the other row lengths
take the leaf table. Both equal np.sum bit for bit, with the default
schedule and with suite 4's parallel schedule, on row lengths of both kinds
read by one kernel (the choice is a call-time parameter), row counts around
the group of ROWS rows, and signed zeros, infinities and NaN."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite4_kernels as K
from pyhalide.frontend_ast.deftext import defs_text
from pyhalide.frontend_ast.sum_order import (
    BLOCK,
    LANES,
    even_chunks,
    most_chunks,
    split_depth,
)


def data(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dt).reshape(shape)


def row_sums(a):
    s = a.sum(axis=1)
    return s


DEFAULT = ph.pipeline(row_sums)
SCHEDULED = ph.pipeline(row_sums, schedule=K.sched_sum_axis1)


def assert_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (got, want)


def leaves(m):
    """(first chunk, chunks) of each leaf of NumPy's split tree of m
    elements, left to right (a direct port of pairwise_sum's recursion)."""
    out, rem = [], m % LANES

    def split(first, q, last):
        if q * LANES + (rem if last else 0) <= BLOCK:
            out.append((first, q))
            return
        h = q // 2
        split(first, h, False)
        split(first + h, q - h, last)
    split(0, m // LANES, True)
    return out


def test_even_chunks_is_the_split_tree_of_equal_leaves():
    for m in list(range(0, 700)) + [1000, 1024, 2048, 2056, 3000, 4096, 6144, 8200]:
        lv = leaves(m)
        even = even_chunks(m)
        equal = bool(m // LANES) and len(lv) == 2 ** split_depth(m) and \
            all(q == lv[0][1] for _, q in lv)
        assert (even > 0) == equal, m
        if even:
            assert even == most_chunks(m) == lv[0][1]
            assert [f for f, _ in lv] == [s * even for s in range(len(lv))], m


@pytest.mark.parametrize("f", [DEFAULT, SCHEDULED], ids=["default", "scheduled"])
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_even_and_uneven_rows_equal_numpy(f, dt):
    for rows in (1, 7, 9):
        for cols in (8, 100, 129, 136, 256, 257, 1000, 1024, 4096):
            a = data((rows, cols), dt, rows * 10000 + cols)
            assert_bits(f(a), np.sum(a, axis=1))


def test_special_values_in_even_rows():
    a = data((9, 512), np.float64, 3)
    a[0, :] = -0.0
    a[1, 7] = np.inf
    a[2, 300] = -np.inf
    a[2, 10] = np.inf
    a[3, 511] = np.nan
    with np.errstate(invalid="ignore"):         # inf + -inf
        want = np.sum(a, axis=1)
    assert_bits(DEFAULT(a), want)
    assert_bits(SCHEDULED(a), want)


def test_even_rows_have_their_own_update():
    a = data((3, 256), np.float64, 4)
    assert_bits(DEFAULT(a), np.sum(a, axis=1))
    text = defs_text(next(iter(DEFAULT._specs._d.values())))
    assert "sum_even$x" in text and "sum_chunk$x" in text
