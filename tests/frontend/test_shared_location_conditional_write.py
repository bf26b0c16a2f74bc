"""A read, a conditional write and a read of one element where several
iterations of the nest write that element (`out[i]` inside loops over i and
j): each iteration reads the previous iteration's write. The nest's first
reads took the value from before the nest (arrays.before_write assumed one
location per iteration), so a row maximum `if a[i, j] > out[i]: out[i] =
a[i, j]` returned each row's last element. Such reads now see the running
value (or the program is refused), never the old one."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


def row_max(a):
    out = np.full(a.shape[0], -np.inf)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > out[i]:
                out[i] = a[i, j]
    return out


def col_max(a):
    out = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > out[j]:
                out[j] = a[i, j]
    return out


def row_argmax(a):
    best = np.full(a.shape[0], -np.inf)
    where = np.zeros(a.shape[0], np.int64)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] > best[i]:
                best[i] = a[i, j]
                where[i] = j
    return where


def clipped_row_sum(a):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if out[i] < 2.0:
                out[i] = out[i] + a[i, j]
    return out


def plane_max(a):
    out = np.full((a.shape[0], a.shape[1]), -5.0)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            for k in range(a.shape[2]):
                if a[i, j, k] > out[i, j]:
                    out[i, j] = a[i, j, k]
    return out


def one_location_per_iteration(a):
    out = a.copy()
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if out[i, j] > 0.5:
                out[i, j] = out[i, j] / 2
    return out


@pytest.mark.parametrize("fn", [row_max, col_max, clipped_row_sum,
                                one_location_per_iteration], ids=lambda f: f.__name__)
def test_shared_location_equals_python(fn):
    p = ph.pipeline(fn)
    rng = np.random.default_rng(8)
    for shape in [(3, 4), (1, 7), (5, 1), (4, 6)]:
        check(p, rng.standard_normal(shape))


def test_three_deep_nest_equals_python():
    p = ph.pipeline(plane_max)
    check(p, np.random.default_rng(2).standard_normal((3, 4, 5)))


def test_two_arrays_updated_together_are_refused_with_the_line():
    # best[i] and where[i] per row: not compiled yet (it returned each row's
    # last index before); refused at the read, never a different value
    p = ph.pipeline(row_argmax)
    with pytest.raises(ph.CompileError, match=r"test_shared_location_conditional_write.py:38"):
        p(np.ones((2, 3)))
