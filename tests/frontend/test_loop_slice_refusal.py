"""numpy-benchmarks' cma_pt and grouping (issue 17): cma_pt's window
`E[:, i*os:i*os+ntaps]` inside `for i` compiles (array_windows.py,
tests/frontend/test_loop_windows.py); the same slice with a step is a
located refusal naming the loop variable, the line and the column;
np.where(condition) with one argument (grouping) has a size that depends
on the data. Plain Python runs all."""
import numpy as np
import pytest

import pyhalide as ph


def cma_like(E, w, os):
    ntaps = w.shape[-1]
    N = E.shape[1] // os // ntaps - 1
    err = np.zeros(N)
    for i in range(N):
        X = E[:, i * os:i * os + ntaps]
        err[i] = np.sum(X * w)
    return err


def cma_like_stepped(E, w, os):
    ntaps = w.shape[-1]
    N = E.shape[1] // os // ntaps - 1
    err = np.zeros(N)
    for i in range(N):
        X = E[:, i * os:i * os + 2 * ntaps:2]
        err[i] = np.sum(X * w)
    return err


def grouping(values):
    diff = np.concatenate(([1], np.diff(values)))
    idx = np.concatenate((np.where(diff)[0], [len(values)]))
    return values[idx[:-1]], np.diff(idx)


def test_moving_window_compiles():
    E, w = np.arange(120.0).reshape(2, 60), np.arange(10.0).reshape(2, 5)
    np.testing.assert_array_equal(ph.pipeline(cma_like)(E, w, 2), cma_like(E, w, 2))


def test_stepped_loop_dependent_slice_is_located():
    E, w = np.ones((2, 60)), np.ones((2, 5))
    cma_like_stepped(E, w, 2)                           # Python runs it
    with pytest.raises(ph.CompileError) as e:
        ph.pipeline(cma_like_stepped)(E, w, 2)
    text = str(e.value)
    assert "depend on the loop variable 'i'" in text, text
    assert "X = E[:, i * os:i * os + 2 * ntaps:2]" in text and ":28:" in text, text
    assert "inner loop" in text, text


def test_data_dependent_size_is_located():
    v = np.array([1, 1, 2, 5, 5, 5], dtype=np.uint32)
    grouping(v)
    with pytest.raises(ph.CompileError, match="size that depends on the data") as e:
        ph.pipeline(grouping)(v)
    assert "np.where(diff)" in str(e.value)
