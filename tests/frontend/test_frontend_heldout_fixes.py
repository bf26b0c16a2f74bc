"""Regressions found by a held-out tester: each compiled result is compared
with the plain function (p.py_func): values, dtypes, Python-vs-NumPy scalar
types and exceptions; refusals are located CompileErrors."""
import inspect
import os
import re

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

SEED = 20261122


# 1. globals are read at call time: a new value recompiles -----------------------------------
SCALE = 3


@ph.pipeline
def scaled_sum(a):
    s = 0
    for i in range(len(a)):
        s += a[i] * SCALE
    return s


def test_global_value_changes_between_calls():
    global SCALE
    a = np.arange(5, dtype=np.int32)
    assert check(scaled_sum, a) == 30
    first = scaled_sum._last
    SCALE = 5
    try:
        assert check(scaled_sum, a) == 50
        assert scaled_sum._last is not first
        SCALE = 3
        assert check(scaled_sum, a) == 30
        assert scaled_sum._last is first          # the specialization for 3, kept
    finally:
        SCALE = 3


# 2, 3, 5, 6: a value's Python-vs-NumPy type follows the data ---------------------------------
@ph.pipeline
def sum_minus_one(a):
    s = 0
    for i in range(len(a)):
        s += a[i]
    return s - 1


@ph.pipeline
def float_sum_twice(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i]
    return s * 2


@ph.pipeline
def mean_var(a):
    n = len(a)
    s = 0.0
    for i in range(n):
        s += a[i]
    mean = s / n
    v = 0.0
    for i in range(n):
        d = a[i] - mean
        v += d * d
    return mean, v / n


def test_zero_trip_accumulator_stays_a_python_number():
    with np.errstate(all="ignore"):
        for n in (0, 1, 3):
            check(sum_minus_one, np.arange(n, dtype=np.uint8))
            check(float_sum_twice, np.arange(n, dtype=np.float32))
    assert check(sum_minus_one, np.zeros(0, np.uint8)) == -1
    assert type(check(float_sum_twice, np.zeros(0, np.float32))) is float


def test_float_division_by_zero_after_an_empty_loop():
    check(mean_var, np.arange(4.0))
    with pytest.raises(ZeroDivisionError):
        mean_var(np.zeros(0))


@ph.pipeline
def signed_zero(a):
    m1 = 0.0
    m2 = 0.0
    for i in range(len(a)):
        m1 = min(m1, a[i])
        m2 = max(a[i], m2)
    return m1, m2


def test_min_keeps_the_python_float_when_no_element_wins():
    assert type(check(signed_zero, np.array([-0.0, 0.0, -0.0]))[0]) is float
    check(signed_zero, np.array([1.0, -2.0]))
    check(signed_zero, np.zeros(0))


@ph.pipeline
def guarded_and(a, k):
    ok = k < len(a) and a[k] > 0
    return ok


def test_and_at_top_level_keeps_each_operands_type():
    a = np.array([3, -1, 2], np.int32)
    assert check(guarded_and, a, 40) is False
    check(guarded_and, a, 0)
    check(guarded_and, a, 1)


# 4, 10: builtin min/max of mixed types -----------------------------------------------------
@ph.pipeline
def max_mixed(a, b):
    out = np.empty(len(a))
    for i in range(len(a)):
        out[i] = max(a[i], b[i]) + 0.1
    return out


@ph.pipeline
def from_big_python_int(a):
    m = 1000
    n = 1000
    for i in range(len(a)):
        m = max(m, a[i])
        n = min(n, a[i])
    return m, n


def test_builtin_max_of_mixed_dtypes_in_a_loop():
    check(max_mixed, np.array([5, -3], np.int8), np.array([1.5, 2.5], np.float32))


def test_min_max_from_a_python_int_out_of_the_dtype_range():
    for n in (0, 1, 7):
        assert check(from_big_python_int, np.arange(n, dtype=np.uint8))[0] == 1000


@ph.pipeline
def fibonacci_like(a):
    x, y = 0, 1
    for i in range(len(a)):
        x, y = y, x + y + a[i]
    return x, y


@ph.pipeline
def state_condition(a):
    s = 0
    for i in range(len(a)):
        if s < 100:
            s += a[i]
        else:
            s -= 1
    return s


def test_members_whose_type_depends_on_the_iteration():
    for n in (0, 1, 2, 6):
        check(fibonacci_like, np.arange(n, dtype=np.int32))
        check(state_condition, np.arange(n, dtype=np.int32) * 30)


@ph.pipeline
def first_iteration_in_python(a):
    t = 0.1
    for i in range(len(a)):
        t = t * 3 + a[i]
    return t


def test_first_iteration_computes_with_the_python_value():
    # 0.1 * 3 is computed in Python floats before meeting float32
    check(first_iteration_in_python, np.array([0.5, 0.25], np.float32))


# 7: scans over any step -------------------------------------------------------------------
@ph.pipeline
def reverse_scan(a):
    out = np.zeros(len(a), np.int64)
    acc = 0
    for i in range(len(a) - 1, -1, -1):
        acc += a[i]
        out[i] = acc
    return out


@ph.pipeline
def stride_scan(a):
    out = np.zeros(len(a), np.float64)
    acc = 0.0
    for i in range(0, len(a), 2):
        acc += a[i]
        out[i] = acc
    return out


@ph.pipeline
def compact_backwards(a):
    out = np.zeros(len(a), np.int64)
    k = 0
    for i in range(len(a) - 1, -1, -2):
        out[k] = a[i]
        k += 1
    return out, k


def test_scans_with_any_step():
    for n in (0, 1, 5, 8):
        a = np.arange(1, n + 1, dtype=np.int32)
        check(reverse_scan, a)
        check(stride_scan, a.astype(np.float64))
        check(compact_backwards, a)


# 8, 9: reads happen only where Python makes them ------------------------------------------
@ph.pipeline
def top_if_else(a, k):
    if k >= len(a):
        v = -1
    else:
        v = a[k]
    return v


@ph.pipeline
def top_conditional(a, k):
    v = a[k] if k < len(a) else -1
    return v


@ph.pipeline
def fixed_read_in_loop(a, n):
    s = 0
    for i in range(n):
        s += a[5]
    return s


@ph.pipeline
def first_element_in_loop(a):
    s = 0
    for i in range(len(a)):
        s += a[0]
    return s


def test_top_level_reads_are_lazy():
    a = np.arange(5, dtype=np.int32)
    for k in (40, 4, -1):
        check(top_if_else, a, k)
        check(top_conditional, a, k)


def test_a_loop_that_runs_zero_times_reads_nothing():
    a = np.arange(3, dtype=np.int32)
    assert check(fixed_read_in_loop, a, 0) == 0
    with pytest.raises(IndexError):
        fixed_read_in_loop(a, 2)
    assert check(first_element_in_loop, np.zeros(0, np.int32)) == 0
    check(first_element_in_loop, np.arange(4, dtype=np.int32))


# 11: int(nan) --------------------------------------------------------------------------
@ph.pipeline
def int_sum(a):
    s = 0
    for i in range(len(a)):
        s += int(a[i])
    return s


def test_int_of_nan_is_a_value_error():
    with pytest.raises(ValueError):
        int_sum(np.array([1.0, np.nan]))
    with pytest.raises(OverflowError):
        int_sum(np.array([np.inf]))


# 12: p.lower() before any call ------------------------------------------------------------
def hist_fn(img):
    hist = np.zeros(256, np.int32)
    H, W = img.shape
    for y in range(H):
        for x in range(W):
            hist[img[y, x]] += 1
    return hist


def test_lower_before_any_call_lists_the_definitions():
    text = ph.pipeline(hist_fn).lower()
    assert "Func hist" in text and "hist[img[y, x]] += 1" in text


# 13: definitions the associativity matcher can prove --------------------------------------
def count_positive(a):
    c = 0
    for i in range(len(a)):
        if a[i] > 0:
            c += 1
    return c


def count_all(a):
    c = 0
    for i in range(len(a)):
        c += 1
    return c


def sum_positive(a):
    s = 0.0
    for i in range(len(a)):
        if a[i] > 0:
            s += a[i]
    return s


def kitchen_sink(a):
    s = 0.0
    c = 0
    mn = np.inf
    mx = -np.inf
    for i in range(len(a)):
        s += a[i]
        c += 1
        mn = min(mn, a[i])
        mx = max(mx, a[i])
    return s, c, mn, mx


def argmin_from_inf(a):
    best = np.inf
    idx = -1
    for i in range(len(a)):
        if a[i] < best:
            best = a[i]
            idx = i
    return best, idx


def _rfactor(name):
    def schedule(p):
        f = p.funcs[name]
        io, ii, u = ph.RVar("io"), ph.RVar("ii"), ph.Var("u")
        f.update().split(p.vars["i"], io, ii, 16)
        f.update().rfactor(io, u).compute_root().update().parallel(u)
    return schedule


@pytest.mark.parametrize("fn, name", [(count_positive, "c"), (count_all, "c"),
                                      (sum_positive, "s"), (kitchen_sink, "s"),
                                      (argmin_from_inf, "best")])
def test_python_number_accumulators_rfactor(fn, name):
    p = ph.pipeline(fn, schedule=_rfactor(name))
    rng = np.random.default_rng(SEED)
    for a in (rng.integers(-9, 9, 100).astype(np.float64), np.zeros(0), np.full(3, -1.0)):
        got, exp = p(a), fn(a.copy())
        for g, e in zip(got if isinstance(got, tuple) else (got,),
                        exp if isinstance(exp, tuple) else (exp,)):
            assert type(g) is type(e) and g == e, (fn.__name__, a, got, exp)


def test_count_definition_is_a_plain_int64_sum():
    p = ph.pipeline(count_positive)
    p(np.arange(3.0))
    text = p.lower("defs")
    assert re.search(r"(c[$\d]*)\(\) = \(\1\(\) \+ \(int64\)1\)\n", text), text
    assert "where (a(r_i$x) > 0.0)" in text, text


# 14, 17, 18: refusals with a location ---------------------------------------------------
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


# 15, 16: messages in the user's names, at the user's line ---------------------------------
def test_schedule_errors_use_python_names():
    def parallel_rvar(p):
        p.funcs["hist"].update().parallel(p.vars["y"])

    def rvar_on_pure_stage(p):
        p.funcs["hist"].vectorize(p.vars["x"])

    img = np.zeros((4, 4), np.uint8)
    for schedule in (parallel_rvar, rvar_on_pure_stage):
        with pytest.raises(ph.CompileError) as info:
            ph.pipeline(hist_fn, schedule=schedule)(img)
        msg = str(info.value)
        assert "$" not in msg and "r_y_x" not in msg and "hist" in msg, msg


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
