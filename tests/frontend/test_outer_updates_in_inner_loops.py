"""A scalar carried by an outer loop and updated inside an inner loop that
starts a scalar of its own (reset every outer iteration). The inner loop's
typing runs (which find its scalars' types) reached the outer scalar's
update and defined it again each run: `total += 1` in such a nest counted
5x (silently wrong before). A condition on the inner scalar's running value
(`if a > best: best = a; changes += 1`: growcut's counter) also failed with
an internal error. Each result is compared with plain Python."""
import numpy as np

import pyhalide as ph

from .frontend_check import check


@ph.pipeline
def count_with_inner_counter(a):
    total = 0
    for i in range(a.shape[0]):
        c = 0
        for j in range(a.shape[1]):
            c += 1
            total += 1
    return total


@ph.pipeline
def sum_beside_row_max(a):
    total = 0.0
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        best = 0.0
        for j in range(a.shape[1]):
            if a[i, j] > best:
                best = a[i, j]
            total += a[i, j]
        out[i] = best
    return total, out


@ph.pipeline
def three_deep(a):
    tot = 0.0
    for i in range(a.shape[0]):
        m = -np.inf
        for j in range(a.shape[1]):
            m = max(m, a[i, j])
            for k in range(2):
                tot += a[i, j] * k
    return tot


@ph.pipeline
def inner_counter_in_middle_loop(a):
    tot = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            c = 0
            for k in range(3):
                c += 1
                tot += 1
    return tot


@ph.pipeline
def array_sum_beside_inner_sum(a):
    tot = 0.0
    for i in range(a.shape[0]):
        c = 0.0
        for j in range(a.shape[1]):
            c += a[i, j]
            tot += a[i].sum()
    return tot


@ph.pipeline
def record_breaks(a, start):
    changes = 0
    for i in range(a.shape[0]):
        best = start[i]
        for j in range(a.shape[1]):
            v = a[i, j] * 2.0
            if v > best:
                best = v
                changes += 1
    return changes


def test_outer_scalar_updated_once_per_inner_iteration():
    rng = np.random.default_rng(0)
    for shape in [(5, 6), (1, 1), (3, 0), (0, 4)]:
        a = rng.random(shape)
        check(count_with_inner_counter, a)
        check(sum_beside_row_max, a)
        check(three_deep, a)
        check(inner_counter_in_middle_loop, a)
        check(array_sum_beside_inner_sum, a)


def test_counter_conditioned_on_the_inner_running_max():
    rng = np.random.default_rng(1)
    a = rng.random((7, 9))
    check(record_breaks, a, rng.random(7))
    check(record_breaks, a, np.full(7, 3.0))            # never broken
    check(record_breaks, np.zeros((3, 0)), rng.random(3))
