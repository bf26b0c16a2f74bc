"""Calls of the user's own functions from @pipeline code (frontend_ast/
inline_calls.py): module-level functions, functions of another module,
closures, @pipeline functions, default arguments (tuples and functions
too), imports inside the function, and the located errors (recursion,
errors inside a called function point at its file and line)."""
from math import ceil, floor
from math import sqrt as msqrt
from statistics import fmean

import numpy as np
import pytest
from numpy import tanh

import pyhalide as ph
from tests.frontend import user_calls_helpers as H
from tests.frontend.frontend_check import check
from tests.frontend.test_frontend_errors import where
from tests.frontend.user_calls_helpers import clip_index, norm2, scaled

SCALE = 100.0       # the helpers module has its own SCALE (3.0)


def expect_error(fn, args, at, snippet, *words):
    with pytest.raises(ph.CompileError) as info:
        ph.pipeline(fn)(*args)
    msg = str(info.value)
    assert msg.startswith(where(at, snippet) + ":"), msg
    for w in words:
        assert w in msg, msg
    assert "_ph_" not in msg, msg
    return msg


A = np.array([1.5, -2.0, 0.0, 3.25, 4.0, -0.5])
B = np.array([0.5, 1.0, 2.0, 3.0, 4.0, 5.0])
I = np.array([3, -1, 4, 1, -5, 9, 2, 6], dtype=np.int32)


# module-level helpers ----------------------------------------------------------------------
def sq(x):
    return x * x


def sign(x):
    """A docstring, skipped."""
    if x > 0:
        return 1.0
    elif x < 0:
        return -1.0
    return 0.0


def first_positive_or(a, i, fallback):
    if a[i] > 0:
        return a[i]
    t = fallback * 2
    return t


def bump(x, by=1):
    x = x + by
    return x


def total(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i]
    return s


def laplacian(grid):
    return np.roll(grid, 1) + np.roll(grid, -1) - 2 * grid


def uses_helpers(a):
    s = 0.0
    for i in range(len(a)):
        s += sq(a[i]) + sign(a[i]) + first_positive_or(a, i, 0.25)
    return s


def test_module_level_helpers():
    check(ph.pipeline(uses_helpers), A)
    check(ph.pipeline(uses_helpers), A.astype(np.float32))


def reassigns_parameter(a):
    out = np.empty(len(a), dtype=np.int64)
    for i in range(len(a)):
        out[i] = bump(a[i]) + bump(a[i], 3) + bump(by=2, x=a[i])
    return out


def test_parameter_reassigned_defaults_and_keywords():
    got = check(ph.pipeline(reassigns_parameter), I)
    assert got.tolist() == [3 * v + 6 for v in I.tolist()]


def whole_array_helpers(a):
    return laplacian(a) + total(a), total(a * 2)


def test_array_helpers_and_loops_in_helpers():
    check(ph.pipeline(whole_array_helpers), A)


def nested_calls(a):
    return sq(sq(a[0]) + sign(a[1])) + sq(total(a))


def test_nested_calls():
    check(ph.pipeline(nested_calls), A)


# another module: its globals, not the caller's --------------------------------------------
def other_module(a, b):
    out = np.empty(len(a))
    for i in range(len(a)):
        out[i] = norm2(a[i], b[clip_index(i + 1, len(b))]) + scaled(a[i]) + \
            H.ceil_half(i) + SCALE
    return out


def test_functions_of_another_module():
    got = check(ph.pipeline(other_module), A, B)
    assert got[0] == np.sqrt(1.5 ** 2 + 1.0) + 4.5 + 0 + 100.0


def fills_rows(a, n):
    out = np.zeros((n, 4))
    for i in range(n):
        H.fill_row(out, i, a[i])
    return out


def test_helper_writing_into_a_local_array():
    check(ph.pipeline(fills_rows), A, 4)


# closures and decorated helpers ---------------------------------------------------------
def make_adder(c):
    def add(x):
        return x + c
    return add


add3 = make_adder(3.0)


def uses_closure(a):
    return add3(a[0]) + add3(a[1])


@ph.pipeline
def decorated(x):
    return x * 2.0 + 1.0


def uses_decorated(a):
    s = 0.0
    for i in range(len(a)):
        s += decorated(a[i])
    return s, decorated(a)


def test_closures_and_decorated_helpers():
    check(ph.pipeline(uses_closure), A)
    check(ph.pipeline(uses_decorated), A)
    assert decorated(2.0) == 5.0          # still callable on its own


def test_local_closure():
    k = 7

    def times_k(x):
        return x * k

    def f(a):
        return times_k(a[2]) + times_k(a[3])
    check(ph.pipeline(f), I)


# defaults of the decorated function -------------------------------------------------------
def tuple_default(a, k=2, m=(1, 0, 1)):
    t = 0.0
    for i in range(len(a)):
        t += a[i] * k * m[0] + m[1] - m[2]
    return t


def test_tuple_default_and_tuple_arguments():
    p = ph.pipeline(tuple_default)
    check(p, A)
    check(p, A, 3)
    check(p, A, 3, (0, 1, 1))
    check(p, A, 3, (2.5, 1, True))
    check(p, A, 3, (1, 0, 1))
    assert p(A) == tuple_default(A)       # the default again, after other tuples


def wrap(pos, offset, bound):
    return (pos + offset) % bound


def clamp(pos, offset, bound):
    return min(bound - 1, max(0, pos + offset))


def function_default(a, mode=wrap):
    out = np.empty(len(a))
    for i in range(len(a)):
        out[i] = a[mode(i, 1, len(a))]
    return out


def passes_function(a):
    return function_default(a, clamp) + function_default(a)


def test_function_default():
    p = ph.pipeline(function_default)
    check(p, A)
    check(p, A, wrap)
    check(ph.pipeline(passes_function), A)


def test_other_function_for_a_called_default_is_refused():
    expect_error(function_default, (A, clamp), function_default, "mode(i, 1, len(a))",
                 "'mode'", "'wrap'")


# imports ---------------------------------------------------------------------------------------
def imports_inside(a):
    import math
    from math import sqrt

    import numpy as np
    from numpy import zeros
    z = zeros(3)
    z[0] = sqrt(a[0] * a[0]) + math.floor(a[1])
    z[2] = np.tanh(a[2])
    return z + np.float64(1.0)


def module_imports(a):
    return tanh(a[0]) + ceil(a[1]) + msqrt(abs(a[2])) + floor(a[3]), tanh(a) - np.tanh(a)


def test_imports():
    check(ph.pipeline(imports_inside), A)
    check(ph.pipeline(module_imports), A)


def import_after_use(a):
    x = np.sum(a)  # noqa: F823
    import numpy as np  # noqa: F401
    return x


def test_name_used_before_its_import():
    expect_error(import_after_use, (A,), import_after_use, "np.sum", "before it is imported")


# errors ------------------------------------------------------------------------------------------
def recursive(a):
    return recursive(a)


def ping(x):
    return pong(x)


def pong(x):
    return ping(x)


def calls_ping(a):
    return ping(a[0])


def test_recursion_is_a_located_error():
    expect_error(recursive, (A,), recursive, "recursive(a)", "recursion", "hint:")
    expect_error(calls_ping, (A,), pong, "ping(x)", "recursion", "'ping'")


def calls_bad_helper(a):
    return H.bad_index(a, 0)


def test_error_inside_a_helper_points_at_the_helper():
    expect_error(calls_bad_helper, (A,), H.bad_index, "undefined_name", "undefined_name")


def out_of_bounds(a):
    s = 0.0
    for i in range(len(a)):
        s += second(a, i)
    return s


def second(a, i):
    return a[i + 1]


def test_run_time_index_error_inside_a_helper():
    with pytest.raises(IndexError):
        ph.pipeline(out_of_bounds)(A)


def loop_return(a):
    for i in range(len(a)):
        if a[i] > 0:
            return i
    return -1


def calls_loop_return(a):
    return loop_return(a)


def writes_in_expression(a, n):
    out = np.zeros((n, 4))
    x = out[0, 0] + H.fill_row(out, 0, a[0])
    return out, x


def branch_call(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] if a[i] > 0 else sign(a[i])
    return s


def branch_expression_helper(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] if a[i] > 0 else sq(a[i] + 1) + (a[i] > -1 and sq(a[i]) > 0)
    return s


def test_limits_are_located_errors():
    check(ph.pipeline(calls_loop_return), A)     # a return in a helper's loop (loop_exits)
    check(ph.pipeline(calls_loop_return), -A)
    expect_error(writes_in_expression, (A, 3), writes_in_expression, "H.fill_row",
                 "fill_row()", "statement")
    expect_error(branch_call, (A,), branch_call, "sign(a[i])", "sign()", "x if c else y")
    check(ph.pipeline(branch_expression_helper), A)


def unused_result(a):
    sq(a[0])
    return a[1]


def test_call_as_a_statement_of_a_function_without_effects():
    check(ph.pipeline(unused_result), A)


def helper_with_reserved_name(x):
    _ph_1_x = x
    return _ph_1_x


def calls_reserved(a):
    return helper_with_reserved_name(a[0])


def test_reserved_names():
    with pytest.raises(ph.CompileError) as info:
        ph.pipeline(calls_reserved)(A)
    msg = str(info.value)
    assert msg.startswith(where(helper_with_reserved_name, "_ph_1_x = x") + ":"), msg
    assert "reserved" in msg, msg


def uses_function_as_value(a):
    f = sq  # noqa: F841
    return a[0]


def test_function_as_value():
    expect_error(uses_function_as_value, (A,), uses_function_as_value, "sq", "'sq'",
                 "called")


def plus_one(x):
    return x + 1


def plus_two(x):
    return x + 2


current = plus_one


def calls_current(a):
    return current(a[0])


def test_redefined_helper_is_compiled_again():
    global current
    p = ph.pipeline(calls_current)
    assert p(A) == 2.5
    current = plus_two
    try:
        assert p(A) == 3.5
    finally:
        current = plus_one
    assert p(A) == 2.5


def maybe_unbound(x):
    if x > 0:
        t = 1.0
    return t


def calls_maybe_unbound(a):
    return maybe_unbound(a[0])


def import_in_branch(a):
    if a[0] > 0:
        import math
        return math.floor(a[0])
    return 0


def test_messages_name_the_helpers_variables_and_imports():
    expect_error(calls_maybe_unbound, (A,), maybe_unbound, "t\n", "'t'", "before")
    expect_error(import_in_branch, (A,), import_in_branch, "import math", "import",
                 "start of the function")


def calls_library_function(a):
    return fmean(a)


def test_a_library_python_function_is_not_inlined():
    expect_error(calls_library_function, (A,), calls_library_function, "fmean(a)",
                 "'fmean'", "statistics")


def min_max(a):
    return a.min(), a.max()


def tuple_result(a):
    lo, hi = min_max(a)
    return hi - lo, min_max(a)[0]


def calls_passed_function(fn, x):
    return fn(x) + 1


def passes_default_on(a, mode=sq):
    return calls_passed_function(mode, a[0]) + calls_passed_function(sign, a[1])


def no_return(a):
    pass


def uses_none_result(a):
    x = no_return(a)
    return x, a[0]


def test_tuple_results_function_arguments_and_none():
    check(ph.pipeline(tuple_result), I)
    check(ph.pipeline(passes_default_on), A)
    check(ph.pipeline(uses_none_result), A)


def calls_argument(a, fn):
    return fn(a[0])


def test_calling_a_function_argument_without_default():
    expect_error(calls_argument, (A, sq), calls_argument, "fn(a[0])", "passed as an argument",
                 "default")


exec(compile("def from_exec(x):\n    return x + 1\n", "<generated>", "exec"))


def calls_exec_function(a):
    return from_exec(a[0])  # noqa: F821


def test_function_without_source_is_a_located_error():
    expect_error(calls_exec_function, (A,), calls_exec_function, "from_exec(a[0])",
                 "from_exec()", "source")
