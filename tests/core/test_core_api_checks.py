"""Errors Halide raises at the same place: Param.set with a value of the
wrong kind (the message says which Python values fit), compute_at a Func
outside the pipeline, a pure Var of an update moved to another position."""
import numpy as np
import pytest

import pyhalide as ph


@pytest.mark.parametrize("t,bad", [(ph.Int(32), 1.5), (ph.Int(32), 2.0), (ph.Int(32), "a"),
                                   (ph.Int(8), 300), (ph.Bool(), 2), (ph.Float(32), "x"),
                                   (ph.Float(64), True)])
def test_param_set_checks_at_the_call(t, bad):
    p = ph.Param(t, "pp")
    with pytest.raises(TypeError, match="pp"):
        p.set(bad)


def test_param_set_accepts_numbers_of_its_kind():
    p = ph.Param(ph.Int(16), "k", 3)
    p.set(np.int64(-7))
    x = ph.Var("x")
    f = ph.Func("pk")
    f[x] = x * p
    np.testing.assert_array_equal(np.asarray(f.realize([3])), [0, -7, -14])
    q = ph.Param(ph.Float(32), "s")
    q.set(2)
    q.set(np.float64(0.5))


def test_compute_at_a_func_outside_the_pipeline():
    x = ph.Var("x")
    g, h, out = ph.Func("ca_g"), ph.Func("ca_h"), ph.Func("ca_out")
    g[x] = x
    h[x] = x
    out[x] = g[x]
    g.compute_at(h, x)
    with pytest.raises(ph.CompileError, match="ca_g is computed at ca_h.x"):
        out.realize([3])


def test_update_pure_var_must_keep_its_position():
    x, y = ph.Var("x"), ph.Var("y")
    f = ph.Func("pv")
    f[x, y] = 0
    with pytest.raises(ph.CompileError, match="pure Var y at position 0"):
        f[y, x] = x * 10 + y
    r = ph.RDom([(0, 2)])
    with pytest.raises(ph.CompileError, match="pure Var x at position 1"):
        f[r.x, x] = f[r.x, x] + 1
    f[x, r.x] = f[x, r.x] + 1                      # in place: fine
    np.testing.assert_array_equal(np.asarray(f.realize([2, 3])), [[1, 1], [1, 1], [0, 0]])


@pytest.mark.parametrize("t,bad,fits", [
    (ph.Int(8), 300, "an integer from -128 to 127 (a Python int or a NumPy integer scalar)"),
    (ph.UInt(16), 2.5, "an integer from 0 to 65535"),
    (ph.Bool(), 2, "True or False"),
    (ph.Float(32), "x", ("a real number (a Python int or float, or a NumPy integer or "
                         "floating scalar)"))])
def test_param_errors_say_which_values_fit(t, bad, fits):
    p = ph.Param(t, "pp")
    with pytest.raises(TypeError) as e:
        p.set(bad)
    assert str(e.value) == f"Param pp of type {t} takes {e.value.args[0].split(' takes ')[1]}"
    assert fits in str(e.value) and f"not {bad!r}" in str(e.value)
    assert "cast" not in str(e.value)
