"""parallel_scan in schedules of @pipeline loops: `p.funcs[name]` is the
scan Func (the array a `c[i] = c[i - 1] + h[i]` loop writes, or the scalar
of `acc += x[i]; out[i] = acc`), `p.vars[...]` its loop variable. Results
equal plain Python exactly for integers, at 1 and 3 threads, on empty,
one-element and longer inputs."""
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
    (running_sum, "acc", 0, lambda n: (_ints(n),), 0),
    (running_max, "best", 0, lambda n: (_ints(n),), 1),
    (argmax_so_far, "best", 0, lambda n: (RNG.integers(0, 5, n).astype(np.int32),), 1),
    (segmented_sum, "s", 0, lambda n: (_ints(n), RNG.random(n) < 0.2), 0),
    (recurrence, "s", 0, lambda n: (RNG.integers(-2, 3, n).astype(np.int32), _ints(n)), 0),
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
    assert "_scan_local" in p.lower() and "_scan_carry" in p.lower()


def test_python_int_accumulators_keep_their_overflow_check_and_are_refused():
    def squares(n):
        out = np.zeros(n, np.int64)
        acc = 0
        for i in range(n):
            acc += i * i
            out[i] = acc
        return out

    def schedule(p):
        p.funcs["acc"].update(0).parallel_scan(p.vars["acc", "i"], 4)
    p = ph.pipeline(squares, schedule=schedule)
    with pytest.raises(ph.CompileError, match=r"overflow\) reads acc.*np.int64\(0\)") as e:
        p(10)
    assert "test_parallel_scan_frontend.py:" in str(e.value)
