"""A vectorized loop over x with a loop over c inside it stores the points of
an output in another order than the serial loop: vectorize_loops does so only
under a test, when the kernel runs, that the caller's output array gives each
point an element of its own (lowering/injective_layout.py); other layouts
(elements that meet, a stride of 0) keep the serial loop. Each result is
compared with plain Python loops in the schedule's serial order on the same
view (the last write wins where elements meet)."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import pyhalide as hl

W, H, C = 19, 3, 3


def _func():
    x, y, c = hl.Var("x"), hl.Var("y"), hl.Var("c")
    f = hl.Func("f")
    f[x, y, c] = x * 100 + y * 10 + c * 7
    f.reorder(c, x, y).vectorize(x, 8)       # c innermost inside the vector loop
    return f


def _reference(view):
    """The schedule's serial order: y, x, then c innermost."""
    for yy in range(H):
        for xx in range(W):
            for cc in range(C):
                view[cc, yy, xx] = xx * 100 + yy * 10 + cc * 7


def _views(base):
    n = base.itemsize
    return {
        "c_order": as_strided(base, (C, H, W), (H * W * n, W * n, n)),
        "interleaved": as_strided(base, (C, H, W), (n, W * C * n, C * n)),
        "reversed_x": as_strided(base[W - 1:], (C, H, W), (H * W * n, W * n, -n)),
        "planes_meet": as_strided(base, (C, H, W), (n, W * n, n)),
        "rows_meet": as_strided(base, (C, H, W), (H * W * n, 4 * n, n)),
        "stride_0_c": as_strided(base, (C, H, W), (0, W * n, n)),
    }


@pytest.mark.parametrize("layout", ["c_order", "interleaved", "reversed_x", "planes_meet",
                                    "rows_meet", "stride_0_c"])
def test_vectorized_output_layouts(layout):
    got = np.full(C * H * W + W, -1, np.int32)
    want = got.copy()
    _reference(_views(want)[layout])
    _func().realize(hl.Buffer(_views(got)[layout]))
    assert np.array_equal(got, want), layout

