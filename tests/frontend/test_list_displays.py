"""List displays of scalars as items of np.concatenate/np.stack (the array
np.asarray makes of each, array_create.sequence), compared with plain
Python; numpy-benchmarks grouping stops at np.where(x) with one argument,
whose size depends on the data (FRONTEND.md), with that reason."""
import numpy as np

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

V = np.array([1, 1, 2, 5, 5, 7, 7, 7], dtype=np.uint32)


def with_lists(values, x):
    d = np.concatenate(([1], np.diff(values), [x, 2 * x]))        # int64, as NumPy's
    e = np.concatenate(([[1.5, 2]], [values[:2]]), axis=0)
    f = np.stack(([x, 1], values[2:4]))
    return d, e, f


def floats(values, y):
    return np.concatenate([[y], values.astype(np.float32), [0.5]])


def grouping(values):
    diff = np.concatenate(([1], np.diff(values)))
    idx = np.concatenate((np.where(diff)[0], [len(values)]))
    return values[idx[:-1]], np.diff(idx)


def test_list_items_are_arrays():
    check(ph.pipeline(with_lists), V, 3)


def test_weak_scalars_in_a_list():
    check(ph.pipeline(floats), V, 2.25)


def test_grouping_is_refused_with_the_reason():
    expect_error(grouping, (V,), "np.where(diff)", "depends on the data")
