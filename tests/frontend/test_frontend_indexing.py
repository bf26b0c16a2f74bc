"""Array reads and writes of @pipeline functions: reads happen only where
Python makes them (top-level reads are lazy; loops over empty ranges and
zero-size extents read nothing), unsigned and 64-bit indices are checked
without wrapping, and IndexErrors name the index, axis, size, array and the
user's line as NumPy does. Each compiled result is compared with the plain
function."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


# reads happen only where Python makes them ----------------------------------------------------
@ph.pipeline
def top_if_else(a, k):
    if k >= len(a):
        v = -1
    else:
        v = a[k]
    return v


@ph.pipeline
def top_conditional(a, k):
    v = a[k] if k < len(a) else -1
    return v


@ph.pipeline
def fixed_read_in_loop(a, n):
    s = 0
    for i in range(n):
        s += a[5]
    return s


@ph.pipeline
def first_element_in_loop(a):
    s = 0
    for i in range(len(a)):
        s += a[0]
    return s


def test_top_level_reads_are_lazy():
    a = np.arange(5, dtype=np.int32)
    for k in (40, 4, -1):
        check(top_if_else, a, k)
        check(top_conditional, a, k)


def test_a_loop_that_runs_zero_times_reads_nothing():
    a = np.arange(3, dtype=np.int32)
    assert check(fixed_read_in_loop, a, 0) == 0
    with pytest.raises(IndexError):
        fixed_read_in_loop(a, 2)
    assert check(first_element_in_loop, np.zeros(0, np.int32)) == 0
    check(first_element_in_loop, np.arange(4, dtype=np.int32))


# zero-size extents never read -----------------------------------------------------------------
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
    # (the element's read raises, as in Python: the write's check is that one)
    assert "'h'" in msg and f":{_line_of(count, 'h[a[i]] += 1')}" in msg, msg


# a constant index out of range names the line ------------------------------------------------
@ph.pipeline
def taps_filter(x, t):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = t[0] * x[i] + t[4]
    return y


def test_constant_index_out_of_range_names_index_size_and_line():
    with pytest.raises(IndexError) as e:
        taps_filter(np.ones(5), np.ones(4))
    msg = str(e.value)
    assert msg.startswith("index 4 is out of bounds for axis 0 with size 4"), msg
    assert "'t'" in msg and f":{_line_of(taps_filter, 't[0] * x[i] + t[4]')}" in msg, msg
    check(taps_filter, np.ones(5), np.arange(5.0))


def test_func_api_input_read_out_of_range_names_the_definition_line():
    import inspect
    taps = ph.ImageParam(ph.Float(32), 1, "taps")
    x = ph.Var("x")
    f = ph.Func("f")
    line = inspect.currentframe().f_lineno + 1
    f[x] = taps[0] + taps[4] * ph.cast(ph.Float(32), x)
    taps.set(np.ones(4, np.float32))
    with pytest.raises(ValueError) as e:
        f.realize([5])
    msg = str(e.value)
    assert "input buffer taps is read over [0, 4]" in msg, msg
    assert f"test_frontend_indexing.py:{line}" in msg, msg
    taps.set(np.arange(5, dtype=np.float32))
    assert np.array_equal(np.asarray(f.realize([3])), np.float32(4) * np.arange(3, dtype=np.float32))
