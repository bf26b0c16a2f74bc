"""Row sums in NumPy's pairwise order computed ROWS rows at a time
(frontend_ast/sum_order.py: name_lanes has a constant extent of ROWS rows,
those past the last row are not updated and read nothing): every row count
around the group size, 0 rows included (a false IndexError once: the rows
past the last were read), equal np.sum bit for bit, with the default
schedule and with suite 4's parallel schedule."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite4_kernels as K
from pyhalide.frontend_ast.sum_order import ROWS


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


@pytest.mark.parametrize("f", [DEFAULT, SCHEDULED], ids=["default", "scheduled"])
@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_row_counts_around_the_group(f, dt):
    for rows in (0, 1, ROWS - 1, ROWS, ROWS + 1, 2 * ROWS + 3):
        for cols in (0, 1, 8, 129, 1001):
            a = data((rows, cols), dt, seed=rows * 1000 + cols)
            assert_bits(f(a), np.sum(a, axis=1))


@pytest.mark.parametrize("rows", [2 * 8 * K.GROUPS_PER_TASK + 13, 3 * 8 * K.GROUPS_PER_TASK])
def test_rows_of_several_parallel_tasks(rows):
    """suite 4's schedule: tasks of GROUPS_PER_TASK groups, a partial last
    task and group, and whole tasks only."""
    a = data((rows, 37), np.float64, seed=rows)
    assert_bits(SCHEDULED(a), np.sum(a, axis=1))
    # one copy of a group's code: no partition copies the group's Funcs for
    # the guards of its rows and groups, tested a few times per task
    # (lowering/partition_loops.py, CHEAP_TESTS)
    text = SCHEDULED.lower("final")
    assert text.count("produce sum_tree") == 1, text.count("produce sum_tree")


def test_long_rows_and_a_view():
    """Few long rows (the tree's slots computed one at a time) and a
    transposed F-ordered input (summed along its memory rows)."""
    a = data((3, 2 ** 15 + 5), np.float64, seed=7)
    assert_bits(DEFAULT(a), np.sum(a, axis=1))
    b = np.asfortranarray(data((300, 11), np.float64, seed=8)).T
    assert_bits(DEFAULT(b), np.sum(b, axis=1))
