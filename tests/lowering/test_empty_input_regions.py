"""Func API reads of an empty input (session 17): a realize over an empty
region reads nothing (compared with the reference evaluator); an eager
`select` evaluates its read everywhere, so a clamped read of an empty input
still raises the input-region ValueError, as Halide's bounds check does (the
Func API has no lazy if_then_else: the conditional requirement of
bounds_inference._StageBounds.parts serves @pipeline code)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _setup(n):
    x = ph.Var("x")
    a = ph.ImageParam(ph.Float(64), 1, "a")
    a.set(ph.Buffer(np.arange(1.0, n + 1.0)))
    return x, a


@pytest.mark.parametrize("n", [0, 3])
def test_realize_of_an_empty_region(n):
    x, a = _setup(n)
    f = ph.Func("f")
    f[x] = a[ph.clamp(x, 0, a.width() - 1)] * 2.0
    check(f, [0])


def test_eager_select_of_an_empty_input_still_raises():
    x, a = _setup(0)
    f = ph.Func("f")
    f[x] = ph.select(a.width() > 0, a[ph.clamp(x, 0, a.width() - 1)], -1.0)
    with pytest.raises(ValueError, match="input buffer a is read over"):
        f.realize([3])
