"""Func.memoize(): accepted as Halide accepts it (pyhalide keeps no cache
between realizations, so the values are those computed each time); a
memoized output is refused with Halide's message."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def test_memoized_intermediate_gives_the_computed_values():
    x = ph.Var("x")
    f, out = ph.Func("f_memo"), ph.Func("out_memo")
    f[x] = 0.0
    f[x] += 1
    f.compute_root().memoize()
    out[x] = f[x] * 2 + x
    check(out, [3], [np.array([2.0, 3.0, 4.0])])
    p = ph.Param(ph.Int(32), "p_memo", 1)
    g, h = ph.Func("g_memo"), ph.Func("h_memo")
    g[x] = x + p
    g.compute_root().memoize()
    h[x] = g[x]
    np.testing.assert_array_equal(np.asarray(h.realize([3])), [1, 2, 3])
    p.set(5)          # a new parameter value: the values follow it
    np.testing.assert_array_equal(np.asarray(h.realize([3])), [5, 6, 7])


def test_memoized_output_is_refused():
    x = ph.Var("x")
    f = ph.Func("f_memo_out")
    f[x] = x * 2.0
    f.memoize()
    with pytest.raises(ph.HalideError, match="Can't compile Pipeline with memoized output Func"):
        f.realize([3])
