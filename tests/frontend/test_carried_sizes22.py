"""A carried array whose size after the loop's body is not provably its size
before the loop (examples/numpy_kernels `mandelbrot_where`: `zi =
np.zeros_like(ci)` becomes a broadcast of `cr` and `ci`) compiles; a
call-time check refuses (NotImplementedError naming the line) the calls
where the loop runs and the sizes differ (Python would carry a grown array),
and accepts those where the loop does not run. Results compared with plain
Python."""
import inspect
import os
import sys

import numpy as np
import pytest

import pyhalide as ph

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples"))
from numpy_kernels.k_masks import mandelbrot_where  # noqa: E402


def damped(a, b, steps, start):
    x = a * 0.0
    for _ in range(start, steps):
        x = 0.5 * x + b
    return x


def grid(h, w):
    re = np.linspace(-2.0, 0.5, w)
    im = np.linspace(-1.2, 1.2, h)
    return re[None, :] + 0 * im[:, None], im[:, None] + 0 * re[None, :]


@pytest.mark.parametrize("h,w,maxit", [(7, 9, 20), (1, 1, 5), (4, 3, 0), (0, 5, 3), (16, 33, 64)])
def test_mandelbrot_where_equals_python(h, w, maxit):
    cr, ci = grid(h, w)
    expect = mandelbrot_where(cr.copy(), ci.copy(), maxit)
    got = ph.pipeline(mandelbrot_where)(cr, ci, maxit)
    assert got.dtype == expect.dtype and got.shape == expect.shape
    np.testing.assert_array_equal(got, expect)


def test_sizes_that_differ_are_refused_at_the_call_where_the_loop_runs():
    f = ph.pipeline(mandelbrot_where)
    cr, ci = grid(3, 4)
    with pytest.raises(NotImplementedError, match="'z[ri]' has another size after this loop.*broadcast shape"):
        f(cr[:1], ci, 3)
    # no iteration: nothing is carried, Python's result whatever the sizes
    got = f(cr[:1], ci, 0)
    np.testing.assert_array_equal(got, mandelbrot_where(cr[:1], ci, 0))


@pytest.mark.parametrize("n,start", [(4, 0), (4, 4), (4, 6), (1, 0)])
def test_a_broadcast_rebinding_with_a_range_from_arguments(n, start):
    a = np.arange(5.0)
    b = np.linspace(1.0, 2.0, 5)
    got = ph.pipeline(damped)(a, b, n, start)
    np.testing.assert_array_equal(got, damped(a, b, n, start))
    if n > start:
        lines, first = inspect.getsourcelines(damped)
        line = first + next(k for k, t in enumerate(lines) if "for _ in" in t)
        with pytest.raises(NotImplementedError,
                           match=rf"test_carried_sizes22.py:{line}: .x. has another size"):
            ph.pipeline(damped)(a[:1], b, n, start)
    else:
        np.testing.assert_array_equal(ph.pipeline(damped)(a[:1], b, n, start),
                                      damped(a[:1], b, n, start))
