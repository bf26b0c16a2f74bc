"""A loop variable named like another axis's pure Var (x for the last axis,
y for the one before) indexing an update of an existing array: `for x in
range(a.shape[0]): out[x, 0] = ...` of a 2-d argument was refused ("the
update of out_ has its pure Var x at position 1 of the left side, but x is
dimension 0"); the update now uses the array's own Var at that axis
(defs._own_positions). Each call compared with plain Python (result and the
argument written)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.test_exception_order import same_outcome


@ph.pipeline
def first_column(out, a):
    for x in range(out.shape[0]):
        out[x, 0] = a[x, 0] * 2.0
    return out


@ph.pipeline
def swapped_names(out, a):
    for x in range(out.shape[0]):
        for y in range(out.shape[1]):
            out[x, y] = a[x, y] + y
    return out


@ph.pipeline
def channels_inside(out, a):
    for y in range(out.shape[0]):
        for x in range(out.shape[1]):
            for c in range(out.shape[2]):
                out[y, x, c] = a[y, x] * (c + 1) + x
    return out


@ph.pipeline
def partial_rows_of_new_array(a):
    out = np.zeros((a.shape[0], a.shape[1]))
    for x in range(a.shape[0]):
        for y in range(1, a.shape[1]):
            out[x, y] = a[x, y] - y
    return out


@pytest.mark.parametrize("h, w", [(2, 9), (1, 1), (3, 4)])
def test_loop_variables_named_like_other_axes(h, w):
    a = np.arange(h * w, dtype=np.float64).reshape(h, w) - 3.5
    same_outcome(first_column, np.zeros((h, w)), a)
    same_outcome(swapped_names, np.zeros((h, w)), a)
    same_outcome(swapped_names, np.zeros((w, h)).T, a)       # a transposed view written
    same_outcome(channels_inside, np.zeros((h, w, 3)), a)
    same_outcome(partial_rows_of_new_array, a)
