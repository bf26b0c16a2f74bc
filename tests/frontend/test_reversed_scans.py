"""Scans of arrays read backwards (issue 17, numpy-benchmarks' reverse_cumsum):
`np.cumsum(x[::-1])` is computed in the order of x's memory (the scan's
Func holds result element i at position n - 1 - i), so
`np.cumsum(x[::-1])[::-1]` is the Func itself: two passes (the pure
definition and the scan), no reversed copy. The additions are NumPy's, in
its order: results are compared bit for bit with plain Python, including
writes into the result and into arguments afterwards, empty and length-1
arrays, other steps and axes."""
import re

import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


@ph.pipeline
def reverse_cumsum(x):
    return np.cumsum(x[::-1])[::-1]


@ph.pipeline
def cumsum_of_reversed(x):
    return np.cumsum(x[::-1])


@ph.pipeline
def reversed_steps(x):
    c = np.cumprod(x[::-2])
    c[0] = -1.0
    return c[::-1], np.maximum.accumulate(x[::-1])


@ph.pipeline
def reversed_axes(m):
    return np.cumsum(m[::-1, :], axis=0)[::-1], np.cumsum(m[:, ::-1], axis=1), \
        np.add.accumulate(m[::-1], axis=1)


@ph.pipeline
def reversed_local_then_written(x):
    y = x * 2.0 + 1.0
    c = np.cumsum(y[::-1])[::-1]
    x[:] = c[::-1]
    return c


def _floats(n, seed=0):
    return np.random.default_rng(seed).standard_normal(n) * 1e3


def _close_and_same(f, *args):
    got = f(*[a.copy() for a in args])
    exp = f.py_func(*[a.copy() for a in args])
    for g, e in zip(got if isinstance(got, tuple) else (got,),
                    exp if isinstance(exp, tuple) else (exp,)):
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 1000])
def test_reverse_cumsum_bit_exact(n):
    x = _floats(n)
    _close_and_same(reverse_cumsum, x)
    _close_and_same(cumsum_of_reversed, x)
    _close_and_same(reverse_cumsum, np.arange(n, dtype=np.int32))


@pytest.mark.parametrize("n", [1, 2, 9])
def test_steps_and_writes(n):
    x = np.random.default_rng(n).uniform(0.5, 1.5, n)
    _close_and_same(reversed_steps, x)
    check_inplace(reversed_local_then_written, _floats(n))


def test_axes():
    m = _floats(35).reshape(5, 7)
    _close_and_same(reversed_axes, m)


def test_result_is_the_scan_itself():
    """No reversed copy: the scan's Func is the result, its pure definition
    reads x forwards."""
    reverse_cumsum(np.zeros(8))
    text = reverse_cumsum.lower("final")
    assert "produce result" not in text, text
    assert re.search(r"= x\[cumsum(\$\d+)?\.s0\.x_\]", text), text


def test_parallel_scan_schedule_of_a_reversed_read():
    """With a schedule the scan keeps its own order (parallel_scan needs the
    scan written at its RVar): integers equal Python's at 1 and 3 threads."""
    from pyhalide.ir.config import override

    def rc(v):
        return np.cumsum(v[::-1])[::-1]

    def schedule(p):
        p.funcs["cumsum"].update(0).parallel_scan(p.vars["cumsum", "axis0"], 4)
    p = ph.pipeline(rc, schedule=schedule)
    rng = np.random.default_rng(5)
    for n in (0, 1, 23):
        v = rng.integers(-40, 40, n).astype(np.int64)
        for threads in (1, 3):
            with override(num_threads=threads):
                np.testing.assert_array_equal(p(v), rc(v))


@ph.pipeline
def twice_reversed_argument(a):
    return a[::-1][::-1]


@ph.pipeline
def twice_reversed_argument_written(a):
    b = a[::-1][::-1]
    b[0] = 5.0
    return b


def test_a_reversal_of_a_reversal_of_an_argument_is_not_the_argument():
    """Only arrays the function makes are their own double reversal: Python
    returns a view of an argument, another object than the argument."""
    check_inplace(twice_reversed_argument, np.arange(4.0))
    check_inplace(twice_reversed_argument_written, np.arange(4.0))
