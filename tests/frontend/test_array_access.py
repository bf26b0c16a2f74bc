"""Array element access: a read finds the pending write of the same element
in the same iteration, whatever check its index needs."""
import numpy as np

import pyhalide as ph


@ph.pipeline
def _scatter_then_update(a, idx):
    out = np.zeros(4, np.int64)
    for i in range(4):
        k = idx[i]                      # a data-dependent index: checked at run time
        out[k] = a[i] * 10
        out[k] = out[k] + 1             # reads the value written just above
    return out


@ph.pipeline
def _scatter_read_twice(a, idx):
    out = np.zeros(4, np.int64)
    for i in range(4):
        k = idx[i]
        out[k] = a[i] * 10
        s = out[k] + out[k]
        out[k] = s
    return out


@ph.pipeline
def _scatter_conditional_read(a, idx):
    out = np.zeros(4, np.int64)
    for i in range(4):
        k = idx[i]
        out[k] = a[i] * 10
        t = 0
        if a[i] > 1:
            t = out[k]
        out[k] = t + 1
    return out


@ph.pipeline
def _scatter_then_gather(a, idx):
    out = np.zeros(4, np.int64)
    res = np.zeros(4, np.int64)
    for i in range(4):
        k = idx[i]
        out[k] = a[i]
        res[i] = out[k] * 2             # the element written above, into another array
    return out, res


def test_read_after_write_with_a_run_time_checked_index():
    a = np.arange(4, dtype=np.int64)
    for idx in ([3, 2, 1, 0], [0, 0, 2, 2], [-1, 1, -3, 3]):
        idx = np.array(idx, dtype=np.int64)
        for f in (_scatter_then_update, _scatter_read_twice, _scatter_conditional_read):
            np.testing.assert_array_equal(f(a, idx), f.py_func(a, idx))
        for got, want in zip(_scatter_then_gather(a, idx), _scatter_then_gather.py_func(a, idx)):
            np.testing.assert_array_equal(got, want)


def test_read_after_write_out_of_range_index_raises_as_numpy():
    a = np.arange(4, dtype=np.int64)
    idx = np.array([0, 7, 1, 2], dtype=np.int64)
    messages = []
    for f in (_scatter_then_update.py_func, _scatter_then_update):
        try:
            f(a, idx)
        except IndexError as e:
            messages.append(str(e))
    assert len(messages) == 2, messages
    assert messages[1].startswith(messages[0] + " (array 'out'"), messages
