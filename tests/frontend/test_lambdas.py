"""Expression lambdas bound to a name and called (frontend_ast/lambdas.py):
inlined like helper functions, compared with plain Python; the forms that
are not compiled are located errors."""
import numpy as np
from numpy import power, tanh

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

A = np.array([0.5, -1.25, 2.0, 0.0, 3.5, -0.75])
M = np.arange(24, dtype=np.float64).reshape(4, 6) / 7.0


def scalar_loop(a):
    sq = lambda x: x * x + 1.0          # noqa: E731
    s = 0.0
    for i in range(len(a)):
        s += sq(a[i])
    return s


def array_values(a, m):
    fprime = lambda x: 1 - power(x, 2)           # noqa: E731
    out = np.zeros((m.shape[0], len(a), m.shape[1]))
    for k in range(len(a)):
        for i in range(m.shape[0]):
            out[i, k, :] = fprime(a[k]) * fprime(m[i]) * m[i]
    return out


def slowparts_like(a, m):
    fprime = lambda x: 1 - power(tanh(x), 2)     # noqa: E731
    out = np.zeros((m.shape[0], len(a), m.shape[1]))
    for k in range(len(a)):
        for i in range(m.shape[0]):
            out[i, k, :] = fprime(a[k]) * fprime(m[i]) * m[i]
    return out


def two_params_swapped(a):
    f = lambda x, y: x - 2.0 * y        # noqa: E731
    x, y = a[0], a[1]
    return f(y, x), f(x, y)


def late_binding(a):
    c = 1.0
    g = lambda x: x * c                  # noqa: E731
    c = 3.0                              # read when g is called, as in Python
    return g(a) + c


def calls_lambda(a):
    f = lambda x: x + 1.0                # noqa: E731
    g = lambda x: f(x) * f(2.0 * x)      # noqa: E731
    return g(a).sum()


def int_lambda(n):
    h = lambda i: (i * 7) % 5            # noqa: E731
    t = 0
    for i in range(n):
        t += h(i)
    return t


def test_scalar_loop():
    check(ph.pipeline(scalar_loop), A)


def test_array_values():
    check(ph.pipeline(array_values), A, M)


def test_transcendental_body():
    # tanh is within 2 ulp of NumPy's (FRONTEND.md), not bit-exact
    got = ph.pipeline(slowparts_like)(A, M)
    exp = slowparts_like(A, M)
    assert got.dtype == exp.dtype and got.shape == exp.shape
    np.testing.assert_allclose(got, exp, rtol=1e-13, atol=0)


def test_parameters_are_replaced_at_once():
    check(ph.pipeline(two_params_swapped), A)


def test_free_names_are_read_at_the_call():
    check(ph.pipeline(late_binding), A)


def test_lambda_calling_lambda():
    check(ph.pipeline(calls_lambda), A)


def test_python_ints():
    assert check(ph.pipeline(int_lambda), 9) == int_lambda(9)


# refused forms ----------------------------------------------------------------------------
def in_loop(a):
    s = 0.0
    for i in range(len(a)):
        f = lambda x: x + i              # noqa: E731
        s += f(a[i])
    return s


def passed_on(a):
    f = lambda x: x + 1.0                # noqa: E731
    g = f  # the lambda as a value
    return g(a)


def rebound(a):
    f = lambda x: x + 1.0                # noqa: E731
    b = f(a)
    f = lambda x: x - 1.0                # noqa: E731
    return f(b)


def conditional_argument(a):
    f = lambda x, c: x if c else 0.0     # noqa: E731
    return f(a[7], False)


def called_before(a):
    b = f(a)                             # noqa: F821
    f = lambda x: x + 1.0                # noqa: E731,F841
    return b


def recursive(a):
    f = lambda x: f(x - 1.0)             # noqa: E731
    return f(a)


def test_lambda_in_a_loop_is_refused():
    expect_error(in_loop, (A,), "lambda x: x + i", "top level")


def test_lambda_used_as_a_value_is_refused():
    expect_error(passed_on, (A,), "f  # the lambda", "used other than called")


def test_rebound_lambda_name_is_refused():
    expect_error(rebound, (A,), "f = lambda x: x - 1.0", "bound twice")


def test_argument_read_only_sometimes_is_refused():
    # plain Python raises IndexError evaluating a[7]; the body would skip it
    expect_error(conditional_argument, (A,), "a[7]", "does not always read")


def test_call_before_binding_is_refused():
    expect_error(called_before, (A,), "f(a)", "before it is bound")


def test_recursion_is_refused():
    expect_error(recursive, (A,), "f(x - 1.0)", "recursion")
