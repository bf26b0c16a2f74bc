"""A reduction whose operator has no two-sided identity (argmin, argmax)
starts each block with the value of its first point and folds from the
second: that first point's run-time checks (an index out of range, a Python
int leaving int64) must still raise as the one-machine call raises."""
import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import pyhalide as ph  # noqa: E402


@ph.pipeline
def argmin_lut(idx, t):
    best = t[idx[0]]
    pos = 0
    for i in range(1, idx.shape[0]):
        v = t[idx[i]]
        if v < best:
            best = v
            pos = i
    return pos


@ph.pipeline
def argmax_pow(a):
    best = int(a[0]) ** 4
    pos = 0
    for i in range(1, a.shape[0]):
        v = int(a[i]) ** 4
        if v > best:
            best = v
            pos = i
    return pos


def _outcome(fn, *args):
    try:
        return "value", int(fn(*args))
    except (IndexError, OverflowError) as e:
        return type(e).__name__, str(e)


def _dask_outcome(fn, x, *rest):
    try:
        return "value", int(fn.dask(x, *rest).compute(scheduler="synchronous"))
    except (IndexError, OverflowError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("bad", [None, 4, 5, 7])
def test_index_check_at_a_blocks_first_point(bad):
    t = np.arange(10, dtype=np.int64)[::-1].copy()
    idx = np.array([1, 2, 3, 4, 8, 5, 6, 7], np.int32)
    if bad is not None:
        idx[bad] = 50            # 4: the first point of the second block of 4
    want = _outcome(argmin_lut, idx, t)
    assert want[0] == ("value" if bad is None else "IndexError")
    assert _dask_outcome(argmin_lut, da.from_array(idx, chunks=4), t) == want


@pytest.mark.parametrize("chunks", [4, 3, (4, 1, 3)])
def test_overflow_check_at_a_blocks_first_point(chunks):
    a = np.array([1, 2, 3, 4, 70000, 5, 6, 7], np.int64)
    want = _outcome(argmax_pow, a)
    assert want[0] == "OverflowError"
    assert _dask_outcome(argmax_pow, da.from_array(a, chunks=chunks)) == want
    a[4] = 9
    assert _dask_outcome(argmax_pow, da.from_array(a, chunks=chunks)) == \
        _outcome(argmax_pow, a) == ("value", 4)
