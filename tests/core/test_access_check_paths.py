"""Index checks of reads inside Let expressions and under shared lazy
branches (lowering/access_checks.py, access_rules.bind_expression_lets).

A read whose index uses a name bound by a Let inside its own expression is
checked inside that Let (the check names it), and bounds inference gives the
name its value's interval: it broke with "variable t is used outside its
scope" before. A running value updated under `if c: s -= x[...]` holds the
previous value in the condition and in both branches; the checks' walk took
3**levels paths (three levels: over 5 minutes to compile, now about a
second)."""
import numpy as np
import pytest

import pyhalide as ph
from lowering.access_checks import _reads_with_paths
from pyhalide import ir
from pyhalide.expr import Expr

from ..frontend.frontend_check import check


def _let_gather(idx_values, tag):
    """g(x) = let t = idx(x) in lut(t + 1)."""
    lut = ph.Buffer(np.arange(10, dtype=np.int32) * 3, "lut_" + tag)
    idx = ph.Buffer(np.array(idx_values, dtype=np.int32), "idx_" + tag)
    x = ph.Var("x")
    g = ph.Func("g_" + tag)
    t = ir.Variable(ir.INDEX, "t")
    g[x] = Expr.wrap(ir.Let("t", idx[x].node, lut[Expr.wrap(ir.Add(t, ir.index(1)))].node))
    return g


def test_let_bound_data_index_is_read_and_checked():
    got = np.asarray(_let_gather([0, 3, 8], "in").realize([3]))
    np.testing.assert_array_equal(got, (np.array([0, 3, 8]) + 1) * 3)
    with pytest.raises(IndexError, match="lut_out is read at index 10"):
        _let_gather([0, 3, 9], "out").realize([3])
    with pytest.raises(IndexError, match="lut_neg is read at index -1"):
        _let_gather([-2, 0], "neg").realize([2])


def test_let_bound_affine_index_extends_the_producer_region():
    # h(x) = let u = x * 2 in f(u + 1): f's region is [1, 2 * 4 + 1], from u's bounds
    x = ph.Var("x")
    f, h = ph.Func("f_aff"), ph.Func("h_aff")
    f[x] = x * 10
    u = ir.Variable(ir.INDEX, "u")
    xi = ir.Variable(ir.INDEX, "x")
    h[x] = Expr.wrap(ir.Let("u", ir.Mul(xi, ir.index(2)),
                            f[Expr.wrap(ir.Add(u, ir.index(1)))].node))
    f.compute_root()
    got = np.asarray(h.realize([5]))
    np.testing.assert_array_equal(got, (np.arange(5) * 2 + 1) * 10)


def test_let_shadowing_a_name_is_checked_with_each_binding():
    # let t = idx(x) in (lut(t) + let t = t + 4 in lut(t)): the inner read uses t + 4
    lut = ph.Buffer(np.arange(6, dtype=np.int32), "lut_sh")
    idx = ph.Buffer(np.array([0, 1, 2], dtype=np.int32), "idx_sh")
    x = ph.Var("x")
    g = ph.Func("g_sh")
    t = ir.Variable(ir.INDEX, "t")
    inner = ir.Let("t", ir.Add(t, ir.index(4)), lut[Expr.wrap(t)].node)
    g[x] = Expr.wrap(ir.Let("t", idx[x].node, ir.Add(lut[Expr.wrap(t)].node, inner)))
    np.testing.assert_array_equal(np.asarray(g.realize([2])), [0 + 4, 1 + 5])
    with pytest.raises(IndexError, match="lut_sh is read at index 6"):
        g.realize([3])


def _running_levels(levels):
    lines = ["def f(a, iout, n):", "    s = 0", "    for i in range(n):"]
    for k in range(levels):
        lines += [f"        if s > {k} and a[i % 3] > {k}:",
                  "            s -= (a[1] - (a[0] & iout[1]))"]
    return "\n".join(lines + ["    return s"]) + "\n"


def test_shared_running_value_under_lazy_branches(tmp_path):
    path = tmp_path / "running_levels.py"
    path.write_text(_running_levels(3))
    ns = {}
    exec(compile(path.read_text(), str(path), "exec"), ns)
    p = ph.pipeline(ns["f"])
    check(p, np.array([5, -3, 7], np.int64), np.array([1, 2, 3], np.int64), 4)
    check(p, np.array([5, 9, 7], np.int64), np.array([1, -2, 3], np.int64), 7)
    check(p, np.array([5, 9], np.int64), np.array([1, -2, 3], np.int64), 7)   # IndexError


def test_paths_extending_a_visited_one_are_not_walked_again():
    # s_k = if_then_else(s_{k-1} > k && c_k, s_{k-1} - x[k], s_{k-1}): s_{k-1} is in the
    # condition, so its reads are checked before either branch and not again under them
    x = ph.Buffer(np.arange(4, dtype=np.int32), "x_lv")
    i = ir.Variable(ir.INDEX, "i")
    s = x[Expr.wrap(i)].node
    for k in range(40):
        cond = ir.GT(s, ir.index(k))
        s = ir.lazy_select(cond, ir.Sub(s, x[Expr.wrap(ir.Add(i, ir.index(k)))].node), s)
    reads = _reads_with_paths([s])
    assert len(reads) == 41
