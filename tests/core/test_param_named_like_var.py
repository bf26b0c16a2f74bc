"""A Param named like a Var or RVar: lowering identifies variables by name, so
`f[x] = x + p` with p named "x" computed x + x (Halide 21 does too: [0 2 4 6] for
realize([4]) with p = 1000). Refused in the Func API; the frontend never names a Var
like an argument."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError


def test_param_named_like_a_pure_var_is_refused():
    x = ph.Var("x")
    p = ph.Param(ph.Int(32), "x", 1000)
    g = ph.Func("g")
    g[x] = x + p
    with pytest.raises(CompileError, match="Param 'x' has the name of a Var or RVar of Func 'g"):
        g.realize([4])


def test_param_named_like_a_var_of_an_inlined_producer_is_refused():
    x, y = ph.Var("x"), ph.Var("y")
    p = ph.Param(ph.Float(32), "y", 7.0)
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = ph.cast(ph.Float(32), x + y)
    g[x] = f[x, 0] + p
    with pytest.raises(CompileError, match="Param 'y'"):
        g.realize([3])


def test_param_named_like_an_rvar_is_refused():
    r = ph.RDom([(0, 4)], "r")
    p = ph.Param(ph.Int(32), r.x.name(), 5)
    h = ph.Func("h")
    h[()] = 0
    h[()] = h[()] + r.x * p
    with pytest.raises(CompileError, match="has the name of a Var or RVar"):
        h.realize([])


def test_distinct_names_compute_the_sum():
    x = ph.Var("x")
    p = ph.Param(ph.Int(32), "offset", 1000)
    g = ph.Func("g")
    g[x] = x + p
    assert np.asarray(g.realize([4])).tolist() == [1000, 1001, 1002, 1003]


@ph.pipeline
def loop_variable_named_like_an_argument(a, i, x):
    t = a[i] * 2
    out = np.zeros_like(a)
    for i in range(len(a)):
        out[i] = a[i] + t + x
    return out


@ph.pipeline
def arguments_named_like_wrapper_vars(a, v0, v1):
    return a * v0 + v1, v0 + v1


def test_frontend_vars_are_never_named_like_arguments():
    a = np.arange(6.0)
    got = loop_variable_named_like_an_argument(a, 2, 0.5)
    assert got.tolist() == loop_variable_named_like_an_argument.py_func(a, 2, 0.5).tolist()
    b = np.arange(6.0).reshape(2, 3)
    got, s = arguments_named_like_wrapper_vars(b, 2.0, 3.0)
    assert got.tolist() == (b * 2.0 + 3.0).tolist() and s == 5.0
