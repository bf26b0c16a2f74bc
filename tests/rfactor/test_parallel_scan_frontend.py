"""parallel_scan in schedules of @pipeline loops: `p.funcs[name]` is the
scan Func (the array a `c[i] = c[i - 1] + h[i]` loop writes, the array
`out` of `acc += x[i]; out[i] = acc`, or the state of a tuple scan such as
argmax-so-far, whose array stores one of its values), `p.vars[...]` its
loop variable. Results
equal plain Python exactly for integers, at 1 and 3 threads, on empty,
one-element and longer inputs."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override

RNG = np.random.default_rng(7)


def cdf(h):
    c = np.zeros(h.shape[0], np.int64)
    c[0] = h[0]
    for i in range(1, h.shape[0]):
        c[i] = c[i - 1] + h[i]
    return c


def running_sum(x):
    out = np.zeros(x.shape[0], np.int64)
    acc = np.int64(0)
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


def running_max(x):
    out = np.empty(x.shape[0], x.dtype)
    best = x[0]
    for i in range(x.shape[0]):
        if x[i] > best:
            best = x[i]
        out[i] = best
    return out


def argmax_so_far(x):
    out = np.empty(x.shape[0], np.int64)
    best, k = x[0], 0
    for i in range(x.shape[0]):
        if x[i] > best:
            best, k = x[i], i
        out[i] = k
    return out


def segmented_sum(x, flag):
    out = np.empty(x.shape[0], x.dtype)
    s = x.dtype.type(0)
    for i in range(x.shape[0]):
        s = x[i] if flag[i] else s + x[i]
        out[i] = s
    return out


def recurrence(a, b):
    out = np.empty(b.shape[0], np.int32)
    s = np.int32(0)
    for i in range(b.shape[0]):
        s = a[i] * s + b[i]
        out[i] = s
    return out


def _ints(n):
    return RNG.integers(-40, 40, size=n).astype(np.int32)


CASES = [
    (cdf, "c", 1, lambda n: (_ints(n).astype(np.int64),), 1),
    (running_sum, "out", 0, lambda n: (_ints(n),), 0),
    (running_max, "out", 0, lambda n: (_ints(n),), 1),
    (argmax_so_far, "best", 0, lambda n: (RNG.integers(0, 5, n).astype(np.int32),), 1),
    (segmented_sum, "out", 0, lambda n: (_ints(n), RNG.random(n) < 0.2), 0),
    (recurrence, "out", 0, lambda n: (RNG.integers(-2, 3, n).astype(np.int32), _ints(n)), 0),
]


@pytest.mark.parametrize("fn, name, update, inputs, smallest", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_scan_loops_equal_python(fn, name, update, inputs, smallest):
    def schedule(p):
        p.funcs[name].update(update).parallel_scan(p.vars[name, "i"], 5)
    p = ph.pipeline(fn, schedule=schedule)
    for n in sorted({smallest, 1, 2, 23}):
        args = inputs(n)
        want = fn(*args)
        for threads in (1, 3):
            with override(num_threads=threads):
                got = p(*args)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"n={n}, {threads} threads")
    lowered = p.lower()
    assert "_scan_carry" in lowered and ("_scan_local" in lowered or "_scan_total" in lowered)


def test_python_int_accumulators_keep_their_overflow_check_and_are_refused():
    def squares(x):
        out = np.zeros(x.shape[0], np.int64)
        acc = 0
        for i in range(x.shape[0]):
            acc += i * i
            out[i] = acc
        return out

    def schedule(p):
        p.funcs["acc"].update(0).parallel_scan(p.vars["acc", "i"], 4)
    p = ph.pipeline(squares, schedule=schedule)
    with pytest.raises(ph.CompileError, match=r"overflow\) reads acc.*np.int64\(0\)") as e:
        p(np.zeros(10))
    assert "test_parallel_scan_frontend.py:" in str(e.value)


def test_a_range_of_a_python_int_argument_is_bounded_and_scanned():
    """range(n) of a Python-int argument: its bound is an int32 parameter
    checked at call time (frontend_ast/loop_params.py), so the chunks are
    bounded (it was refused with "cannot bound its chunks" before)."""
    def count(n):
        out = np.zeros(n, np.int64)
        acc = np.int64(0)
        for i in range(n):
            acc += i
            out[i] = acc
        return out

    def schedule(p):
        p.funcs["out"].update(0).parallel_scan(p.vars["out", "i"], 4)
    p = ph.pipeline(count, schedule=schedule)
    for n in (0, 1, 5, 23):
        for threads in (1, 3):
            with override(num_threads=threads):
                got = p(n)
            np.testing.assert_array_equal(got, count(n), err_msg=f"n={n}, {threads} threads")
            assert got.dtype == np.int64
    assert "_scan_carry" in p.lower()


def np_scans(v, b, m):
    return np.cumsum(v), np.cumprod(b), np.maximum.accumulate(m, axis=1)


def test_numpy_scans_are_scan_funcs_a_schedule_parallelizes():
    def schedule(p):
        p.funcs["cumsum"].update(0).parallel_scan(p.vars["cumsum", "axis0"], 4)
        p.funcs["cumprod"].update(0).parallel_scan(p.vars["cumprod", "axis0"], 3)
        p.funcs["maximum_accumulate"].update(0).parallel_scan(
            p.vars["maximum_accumulate", "axis1"], 2)
    p = ph.pipeline(np_scans, schedule=schedule)
    for rows, cols in ((1, 1), (3, 7), (4, 0)):
        a = RNG.integers(-50, 50, size=(rows, cols)).astype(np.int32)
        b = RNG.integers(-3, 4, size=29).astype(np.int64)
        for threads in (1, 3):
            with override(num_threads=threads):
                got = p(a[0] if rows == 1 else a[1], b, a)
            want = np_scans(a[0] if rows == 1 else a[1], b, a)
            for g, w in zip(got, want):
                assert g.dtype == w.dtype
                np.testing.assert_array_equal(g, w)
    assert len(re.findall(r"produce \S+_scan_carry", p.lower())) == 3


def test_a_flattened_cumsum_of_a_2d_array_scans_in_parallel():
    # its length (rows * columns, narrowed from int64) was unbounded to interval
    # arithmetic and the schedule was refused; bounds inference now takes such a
    # call-time value as exact (session 14)
    def flat(a):
        return np.cumsum(a)

    def schedule(p):
        p.funcs["cumsum"].update(0).parallel_scan(p.vars["cumsum", "axis0"], 4)
    p = ph.pipeline(flat, schedule=schedule)
    for shape in ((3, 4), (1, 1), (0, 5), (7, 13), (100, 37)):
        a = RNG.integers(-100, 100, size=shape).astype(np.int32)
        for threads in (1, 3):
            with override(num_threads=threads):
                got = p(a)
            want = flat(a)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    assert "scan_carry" in p.lower()
