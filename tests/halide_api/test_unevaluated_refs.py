"""`f[x] op= e` and `f[x] op e` as Halide's bindings give them: an Expr
while f is defined (an update only when assigned to the same f[args]), an
unevaluated reference while f is undefined (only `f[args] = ref` at the same
Func and args takes it: the operator's identity, then the update). Results
compared with the reference evaluator and plain Python."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def test_augmented_ref_of_a_defined_func_is_an_expr_not_an_update():
    x = ph.Var("x")
    f = ph.Func("f_uref_def")
    f[x] = x * 2
    left = f[x]
    left += 5
    left += x            # still an Expr: no update is defined by these
    assert f.num_update_definitions() == 0
    g = ph.Func("g_uref_def")
    g[x] = left
    check(g, [4], [np.arange(4) * 2 + 5 + np.arange(4)])


def test_augmented_value_assigned_elsewhere_is_its_value():
    # f[x] += 1 read at x, assigned at x + 1 in an update: the value f[x] + 1
    x = ph.Var("x")
    f = ph.Func("f_uref_move")
    f[x] = x * 10
    ref = f[x]
    ref += 1
    r = ph.RDom([(0, 3)])
    f[r + 1] = f[r] + 1
    g = ph.Func("g_uref_move")
    g[x] = ref
    got = check(g, [5])[0]
    v = [i * 10 for i in range(6)]
    for i in range(3):
        v[i + 1] = v[i] + 1
    np.testing.assert_array_equal(got, [v[i] + 1 for i in range(5)])


def test_unevaluated_reference_defines_identity_and_update():
    x = ph.Var("x")
    f = ph.Func("f_uref_new")
    ref = f[x]
    ref += 3
    with pytest.raises(TypeError, match="unsupported operand"):
        ref += 1
    f[x] = ref
    with pytest.raises(ph.HalideError, match="when a pure definition already exists"):
        f[x] = ref
    check(f, [3], [np.full(3, 3)])
    h = ph.Func("h_uref_new")
    with pytest.raises(ph.HalideError, match="at a different location"):
        h[x] = ref
    g = ph.Func("g_uref_new")
    g[x] = g[x] * 4       # identity 1 then * 4
    check(g, [2], [np.full(2, 4)])
    k = ph.Func("k_uref_new")
    with pytest.raises(ph.HalideError, match="at a different location"):
        k[0] = k[x] + 1
    u = ph.Func("u_uref_new")
    with pytest.raises(ph.HalideError, match="because it has not yet been defined"):
        u[x] = 1 + u[x]


def test_unevaluated_reference_with_placeholder_and_funcref_index():
    x = ph.Var("x")
    g = ph.Func("g_uref_ph")
    g[x] = 2
    f = ph.Func("f_uref_ph")
    f[ph._] += g[ph._]
    check(f, [1], [np.array([2])])
    f2 = ph.Func("f2_uref_ph")
    f2[g[0]] += 1
    check(f2, [3], [np.array([0, 0, 1])])
