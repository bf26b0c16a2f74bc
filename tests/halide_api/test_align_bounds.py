"""Halide's bound_extent, align_bounds and align_extent: the region a Func
computes (shown by trace_realizations, whose lines are Halide 21's for the
same programs) grows to the alignment or to the extent given from the least
point needed; a bound_extent too small for the region needed is a ValueError
with Halide's message. Results are compared with the reference evaluator."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _realizations(capsys, name):
    return [line.split("(", 1)[1] for line in capsys.readouterr().out.splitlines()
            if line.startswith(f"Begin realization {name}.0(")]


def test_align_bounds_with_remainder_per_row(capsys):
    x, y = ph.vars("x y")
    f, g = ph.Func("f_al"), ph.Func("g_al")
    f[x, y] = x * 10 + y
    g[x, y] = f[x + 1, y] + f[x + 3, y]
    f.compute_at(g, y).align_bounds(x, 4, 1).trace_realizations()
    got = check(g, [5, 2])[0]
    np.testing.assert_array_equal(got, [[40, 60, 80, 100, 120], [42, 62, 82, 102, 122]])
    capsys.readouterr()
    g.realize([5, 2])
    # needed x in [1, 7]: min 1 (= 1 mod 4), extent 8
    assert _realizations(capsys, "f_al") == ["1, 8, 0, 1)", "1, 8, 1, 1)"]


def test_bound_extent_gives_a_vectorizable_constant_extent(capsys):
    x, xo, xi = ph.vars("x xo xi")
    f, g = ph.Func("f_be"), ph.Func("g_be")
    f[x] = x * 3
    g[x] = f[x] + f[x + 2]
    g.split(x, xo, xi, 4)
    f.compute_at(g, xo).bound_extent(x, 6).vectorize(x).trace_realizations()
    check(g, [8], [6 * np.arange(8) + 6])
    capsys.readouterr()
    g.realize([8])
    assert _realizations(capsys, "f_be") == ["0, 6)", "4, 6)"]


def test_align_extent_and_a_bound_extent_too_small(capsys):
    x = ph.Var("x")
    f, g = ph.Func("f_ae"), ph.Func("g_ae")
    f[x] = x * 3
    g[x] = f[x] + f[x + 2]
    f.compute_root().align_extent(x, 4).trace_realizations()
    check(g, [7], [6 * np.arange(7) + 6])
    capsys.readouterr()
    g.realize([7])
    assert _realizations(capsys, "f_ae") == ["0, 12)"]       # 9 needed, 12 computed

    f2, g2 = ph.Func("f_be_small"), ph.Func("g_be_small")
    f2[x] = x * 3
    g2[x] = f2[x] + f2[x + 2]
    f2.compute_root().bound_extent(x, 5)
    with pytest.raises(ValueError, match=r"Bounds given for f_be_small in x \(from 0 to 4\) do "
                                         r"not cover required region \(from 0 to 9\)"):
        g2.realize([8])
    np.testing.assert_array_equal(np.asarray(g2.realize([3])), 6 * np.arange(3) + 6)


def test_alignment_modulus_must_be_positive():
    x = ph.Var("x")
    f, g = ph.Func("f_am"), ph.Func("g_am")
    f[x] = x
    g[x] = f[x + 1]
    f.compute_root()
    with pytest.raises(ph.CompileError, match="modulus of f_am must be positive, not 0"):
        f.align_bounds(x, 0)
    m = ph.Param(ph.Int(32), "m_am", 3)
    f.align_extent(x, m)
    np.testing.assert_array_equal(np.asarray(g.realize([4])), np.arange(1, 5))
    m.set(-2)
    with pytest.raises(ValueError, match="modulus of f_am in x must be positive, not -2"):
        g.realize([4])
