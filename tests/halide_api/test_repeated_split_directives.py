"""vectorize/unroll/parallel with a factor split a fresh inner loop each time, as
Halide's (a Var made per call): asking twice nests two splits (found by the
lead's differential fuzz of Func-API pipelines against Halide 21, session 20)."""
import numpy as np
import pytest

import pyhalide as ph


def _ramp_func():
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("f")
    f[x, y] = x * 3 + y * 7
    return f, x, y


@pytest.mark.parametrize("directive", ["vectorize", "unroll"])
def test_same_directive_twice(directive):
    f, x, y = _ramp_func()
    getattr(getattr(f, directive)(x, 4), directive)(x, 2)
    got = np.asarray(f.realize([19, 5]))
    want = np.arange(19)[None, :] * 3 + np.arange(5)[:, None] * 7
    assert np.array_equal(got, want)


def test_parallel_task_size_twice_then_vectorize_twice():
    f, x, y = _ramp_func()
    f.parallel(y, 2).parallel(y, 2).vectorize(x, 8).vectorize(x, 8)
    got = np.asarray(f.realize([37, 9]))
    want = np.arange(37)[None, :] * 3 + np.arange(9)[:, None] * 7
    assert np.array_equal(got, want)
