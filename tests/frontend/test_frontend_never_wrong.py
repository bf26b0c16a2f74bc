"""Issue 11 regressions in @pipeline: loops over empty ranges read nothing,
unsigned and 64-bit indices are checked without wrapping, and IndexErrors
name the index, axis, size, array and the user's line as NumPy does. Each
compiled result is compared with the plain function."""
import numpy as np
import pytest

import pyhalide as ph
from frontend_check import check


# zero-size extents never read ------------------------------------------------------------
@ph.pipeline
def cumulative(h):
    n = h.shape[0]
    c = np.empty(n)
    for i in range(n):
        c[i] = h[i]
    for i in range(1, n):
        c[i] = c[i - 1] + h[i]
    return c


@ph.pipeline
def row_scan(h):
    c = np.empty(h.shape)
    for y in range(h.shape[0]):
        for x in range(h.shape[1]):
            c[y, x] = h[y, x]
    for y in range(h.shape[0]):
        for x in range(1, h.shape[1]):
            c[y, x] = c[y, x - 1] + h[y, x]
    return c


@ph.pipeline
def column_scan(h):
    c = np.empty(h.shape)
    for y in range(h.shape[0]):
        for x in range(h.shape[1]):
            c[y, x] = h[y, x]
    for y in range(1, h.shape[0]):
        for x in range(h.shape[1]):
            c[y, x] = c[y - 1, x] + h[y, x]
    return c


@ph.pipeline
def shifted_reads(h, m):
    c = np.zeros(h.shape[0])
    for i in range(m):
        c[i] = h[i + 5]
    return c


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_scan_over_any_length(n):
    check(cumulative, np.arange(n, dtype=np.float64))


@pytest.mark.parametrize("shape", [(5, 0), (0, 5), (0, 0), (1, 1), (3, 4)])
def test_two_dimensional_scans_over_any_shape(shape):
    h = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    check(row_scan, h)
    check(column_scan, h)


@pytest.mark.parametrize("n, m", [(3, 0), (8, 2), (3, 1)])
def test_an_empty_loop_reads_nothing(n, m):
    check(shifted_reads, np.arange(n, dtype=np.float64), m)


def test_func_api_update_over_an_empty_rdom_reads_nothing():
    h = ph.ImageParam(ph.Float(64), 1, "h")
    m = ph.Param(ph.Int(32), "m")
    x = ph.Var("x")
    r = ph.RDom([(0, m)], "r")
    f = ph.Func("f")
    f[x] = ph.f64(0)
    f[r.x] = h[r.x + 5]
    for n, mv in ((3, 0), (8, 2)):
        data = np.arange(n, dtype=np.float64)
        h.set(data)
        m.set(mv)
        got = np.asarray(f.realize([n]))
        exp = np.zeros(n)
        exp[:mv] = data[5:5 + mv]
        assert np.array_equal(got, exp)


# unsigned and 64-bit indices -------------------------------------------------------------
@ph.pipeline
def count(a):
    h = np.zeros(4, np.int64)
    for i in range(a.shape[0]):
        h[a[i]] += 1
    return h


@pytest.mark.parametrize("values, dtype", [
    ([2 ** 64 - 1], np.uint64), ([2 ** 63], np.uint64), ([5], np.uint64), ([3, 0, 3], np.uint64),
    ([-5], np.int64), ([-4, 3], np.int64), ([2 ** 40], np.int64), ([2 ** 32 - 1], np.uint32),
    ([3, 1], np.uint32), ([255], np.uint8)])
def test_wide_and_unsigned_indices_never_wrap(values, dtype):
    check(count, np.array(values, dtype=dtype))


def test_uint64_index_past_int64_is_an_overflow_error():
    with pytest.raises(OverflowError):
        count(np.array([2 ** 64 - 1], np.uint64))


# IndexError messages ---------------------------------------------------------------------
@ph.pipeline
def gather(a, idx):
    out = np.zeros(idx.shape[0])
    for i in range(idx.shape[0]):
        out[i] = a[idx[i]]
    return out


@ph.pipeline
def gather_row(a, idx):
    out = np.zeros(idx.shape[0])
    for i in range(idx.shape[0]):
        out[i] = a[1, idx[i]]
    return out


def _line_of(p, text):
    import inspect
    lines, first = inspect.getsourcelines(p.py_func)
    return first + next(k for k, s in enumerate(lines) if text in s)


def test_read_index_error_names_index_axis_size_array_and_line():
    with pytest.raises(IndexError) as e:
        gather(np.arange(4.0), np.array([1, 7]))
    msg = str(e.value)
    assert msg.startswith("index 7 is out of bounds for axis 0 with size 4"), msg
    assert "'a'" in msg and f":{_line_of(gather, 'out[i] = a[idx[i]]')}" in msg, msg
    with pytest.raises(IndexError, match=r"index -7 is out of bounds for axis 0 with size 4"):
        gather(np.arange(4.0), np.array([-7]))
    with pytest.raises(IndexError, match=r"index 3 is out of bounds for axis 1 with size 3"):
        gather_row(np.ones((2, 3)), np.array([0, 3]))


def test_write_index_error_names_index_axis_size_array_and_line():
    with pytest.raises(IndexError) as e:
        count(np.array([5], np.uint64))
    msg = str(e.value)
    assert msg.startswith("index 5 is out of bounds for axis 0 with size 4"), msg
    assert "'h'" in msg and "assignment" in msg and \
        f":{_line_of(count, 'h[a[i]] += 1')}" in msg, msg
