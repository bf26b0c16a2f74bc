"""What @pipeline refuses: a CompileError naming file:line:col, with a caret
under the code and a hint of what to write instead; errors found later
(schedules, lowering) point at the user's definition line."""
import inspect
import os

import numpy as np
import pytest

import pyhalide as ph

helper = lambda x: x + 1  # noqa: E731


def where(fn, snippet):
    """file:line:col (1-based col) of the first occurrence of snippet in fn."""
    lines, first = inspect.getsourcelines(fn)
    for k, text in enumerate(lines):
        if k == 0:
            continue                      # the def line
        col = text.find(snippet)
        if col >= 0:
            return f"{inspect.getsourcefile(fn)}:{first + k}:{col + 1}"
    raise AssertionError(f"{snippet!r} not in {fn.__name__}")


def expect(fn, snippet, *words, args=None):
    p = ph.pipeline(fn)
    a = args if args is not None else (np.arange(6, dtype=np.int32),)
    with pytest.raises(ph.CompileError) as info:
        p(*a)
    msg = str(info.value)
    assert msg.startswith(where(fn, snippet) + ":"), msg
    assert "^" in msg and "hint:" in msg, msg
    for w in words:
        assert w in msg, msg
    return msg


def uses_while(a):
    out = np.zeros(6)
    for k in range(2):
        i = 0
        while a[i] != 0:        # (without a stated bound, writing at each iteration)
            out[i] += a[i]
            i += 1
    return out


def uses_break(a):
    s = 0
    c = 0
    for i in range(len(a)):
        t = 0
        for j in range(len(a)):
            if a[j] > 3:
                break
            s += a[j]
            t += a[j]
        c += t
    return s + c


def calls_helper(a):
    s = 0
    for i in range(len(a)):
        s += helper(a[i])
    return s


def builds_list(a):
    out = []
    for i in range(len(a)):
        out.append(a[i])
    return out


def slices(a):
    return a[1:a[0]]


def early_return(a):
    for i in range(len(a)):
        for j in range(len(a)):
            if a[i] == 3:
                return i
    return -1


def data_bound(a):
    s = 0
    for i in range(a[0]):
        s += 1
    return s


def recursive(a):
    return recursive(a)


def array_in_loop(a):
    for i in range(len(a)):
        t = np.zeros(3)
        t[0] = a[i]
    return a


def vector_op_in_loop(a):
    s = 0
    for i in range(3):
        s += (a * 2)[i]
    return s


def state_two_depths(a):
    s = 0
    for i in range(len(a)):
        s += 1
        for j in range(len(a)):
            s += a[j]
    return s


def non_range(a):
    s = 0
    for v, x in np.ndenumerate(a):
        s += a[v]
    return s


def float_index(a):
    return a[1.5]


def test_while():
    expect(uses_while, "while a[i]", "while", "i += 1", "for k in range")


def test_break():
    expect(uses_break, "break", "stop early", "carried over different loops")


def test_call_of_other_function():
    expect(calls_helper, "helper(a[i])", "helper", "lambda", "def")


def test_lists():
    expect(builds_list, "[]", "lists")


def test_slicing():
    expect(slices, "a[0]", "slice bounds must be known when the function is called")


def test_early_return_from_nested_loops_compiles():
    p = ph.pipeline(early_return)
    for a in (np.arange(5), np.array([1, 3, 3]), np.array([0, 1]), np.zeros(0, np.int64)):
        assert p(a) == early_return(a)


def test_data_dependent_loop_bound():
    expect(data_bound, "a[0]", "loop bounds")


def test_recursion():
    expect(recursive, "recursive(a)", "recursi")


def test_array_created_in_loop():
    expect(array_in_loop, "np.zeros(3)", "outside loops")


def test_whole_array_operation_in_a_loop_compiles():
    a = np.arange(5.0)
    assert ph.pipeline(vector_op_in_loop)(a) == vector_op_in_loop(a)


def test_state_updated_at_two_depths_compiles():
    p = ph.pipeline(state_two_depths)
    for a in (np.arange(5), np.array([7]), np.zeros(0, np.int64)):
        got, exp = p(a), state_two_depths(a)
        assert got == exp and type(got) is type(exp)


def test_iterating_over_an_array():
    expect(non_range, "np.ndenumerate", "ndenumerate", "range")


def test_float_index():
    expect(float_index, "1.5", "integers")


def test_error_is_raised_again_on_each_call():
    p = ph.pipeline(uses_while)
    for _ in range(2):
        with pytest.raises(ph.CompileError):
            p(np.arange(3))


def reads_future(a):
    n = len(a)
    b = np.zeros(n)
    c = np.zeros(n)
    for i in range(n - 1):
        c[i] = b[i + 1]
        b[i] = a[i]
    return c


def test_read_of_a_later_write_in_the_same_nest():
    expect(reads_future, "b[i + 1]", ".copy()")


# refusals name the line (basename:line and a caret) -------------------------------------------
def _line_of(fn, snippet):
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, t in enumerate(lines) if snippet in t)


def _refused(fn, snippet, *words):
    with pytest.raises(ph.CompileError) as info:
        ph.pipeline(fn)(np.arange(4, dtype=np.int32))
    msg = str(info.value)
    where = f"{os.path.basename(inspect.getsourcefile(fn))}:{_line_of(fn, snippet)}:"
    assert where in msg and "^" in msg, msg
    for w in words:
        assert w in msg, msg
    return msg


def keyword_params(a, **kw):
    return a[0]


def generator(a):
    for i in range(len(a)):
        yield a[i]


def prints(a):
    s = 0
    for i in range(len(a)):
        s += a[i]
    print(s)
    return s


def test_refusals_name_the_line():
    _refused(keyword_params, "def keyword_params", "positional parameters")
    _refused(generator, "yield a[i]", "generators")
    _refused(prints, "print(s)", "print()", "return the value")


def scaled(a):
    out = np.empty(len(a), np.float64)
    for i in range(len(a)):
        out[i] = a[i] * 2
    return out


def test_lowering_errors_point_at_the_definition():
    def schedule(p):
        p.funcs["out"].vectorize(p.vars["i"])
    with pytest.raises(ph.CompileError) as info:
        ph.pipeline(scaled, schedule=schedule)(np.ones(5))
    msg = str(info.value)
    assert f"{os.path.basename(__file__)}:{_line_of(scaled, 'out[i] = a[i] * 2')}:" in msg, msg
    assert "^" in msg


def builtin_sum(a):
    return sum(a) if len(a) > 2 else 0      # (a statement's value compiles)


def builtin_any(a):
    return any(a > 2)


def test_unsupported_builtins_are_named_with_a_hint():
    msg = expect(builtin_sum, "sum(a)", "the builtin sum() is not supported", "np.sum")
    assert "not defined" not in msg
    expect(builtin_any, "any(a > 2)", "the builtin any() is not supported", "np.any")
