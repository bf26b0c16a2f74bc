"""The decorated object: calls, caching per dtypes and dimensions (and per
value of the globals it reads), py_func, compile(), lower() (before any call
too), the CLI, inputs never modified, no fallback to Python, schedule errors
in the user's names."""
import re
import textwrap
import threading

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def scale(img, k):
    H, W = img.shape
    out = np.empty((H, W), np.float64)
    for y in range(H):
        for x in range(W):
            out[y, x] = img[y, x] * k
    return out


@ph.pipeline
def hist_then_lookup(img):
    hist = np.zeros(256, np.int64)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            hist[img[y, x]] += 1
    out = np.empty(img.shape, np.int64)
    for y in range(img.shape[0]):
        for x in range(img.shape[1]):
            out[y, x] = hist[img[y, x]]
    return out


def test_decorator_forms_and_py_func():
    def f(a):
        s = 0
        for i in range(len(a)):
            s += a[i]
        return s

    p1 = ph.pipeline(f)
    p2 = ph.pipeline(schedule="serial")(f)
    p3 = ph.pipeline(f, schedule=None)
    for p in (p1, p2, p3):
        assert p.py_func is f and p.__name__ == "f"
        check(p, np.arange(5, dtype=np.int64))


def test_specializations_are_cached_per_dtype_and_ndim():
    p = ph.pipeline(scale.py_func)
    a = np.ones((3, 4), np.uint8)
    check(p, a, 2.0)
    s1 = p._last
    check(p, a * 3, 1.5)
    assert p._last is s1                                   # same types: no recompilation
    check(p, a.astype(np.float32), 2.0)
    assert p._last is not s1
    check(p, a, 2)                                          # an int instead of a float
    assert len(p._specs) == 3


def test_strided_and_fortran_inputs_are_not_modified():
    base = np.arange(60, dtype=np.int16).reshape(6, 10)
    for a in (base[::2, 1::3], np.asfortranarray(base), base.T, base[:, ::-1]):
        check(scale, a, 0.5)


CALLS = []


def trap(a):
    CALLS.append(a)
    raise AssertionError("the original function ran")


def test_never_runs_the_original_code():
    def impl(a):
        s = 0
        for i in range(len(a)):
            s += a[i]
        return s

    p = ph.pipeline(impl)
    check(p, np.arange(4, dtype=np.int32))

    p.py_func.__code__ = trap.__code__      # the plain function now fails
    with pytest.raises(AssertionError):
        p.py_func(np.arange(2))
    CALLS.clear()
    assert p(np.arange(6, dtype=np.int32)) == 15
    assert p(np.arange(6, dtype=np.float32)) == 15.0   # a new specialization, too
    assert CALLS == []


def test_funcs_before_first_call():
    p = ph.pipeline(scale.py_func)
    with pytest.raises(RuntimeError):
        p.funcs


def test_compile_ahead_and_lookups():
    p = ph.pipeline(hist_then_lookup.py_func)
    img = np.random.default_rng(2).integers(0, 256, (6, 7), dtype=np.uint8)
    assert p.compile(img) is p
    assert isinstance(p.funcs["hist"], ph.Func)
    assert [v.name() for v in p.funcs["hist"].args()] == ["x"]
    assert "hist" in p.funcs.keys() and "out" in p.funcs.keys()
    check(p, img)


def test_lower_stages():
    img = np.zeros((4, 5), np.uint8)
    hist_then_lookup(img)
    defs = hist_then_lookup.lower("defs")
    assert re.search(r"hist(\$\d+)?\(x\) = \(int64\)0", defs), defs
    assert "hist[img[y, x]] += 1" in defs          # the Python source line of the update
    loops = hist_then_lookup.lower("loops")
    assert "produce hist" in loops
    assert "produce" in hist_then_lookup.lower()


def test_lower_with_arg_specs_before_any_call():
    p = ph.pipeline(scale.py_func)
    text = p.lower(stage="defs", arg_specs=[("img", np.dtype("uint16"), (8, 8)),
                                           ("k", np.dtype("float64"), None)])
    assert "img: uint16[2-D]" in text and "k: float" in text
    assert re.search(r"out(\$\d+)?\(x, y\) = \(float64\(img\(x, y\)\) \* k\)", text), text


def test_cli_lower_defs(tmp_path):
    from typer.testing import CliRunner

    from pyhalide.cli import app
    script = tmp_path / "cli_script.py"
    script.write_text(textwrap.dedent('''
        import numpy as np
        import pyhalide as ph

        @ph.pipeline
        def histogram(img):
            h = np.zeros(256, np.int32)
            for y in range(img.shape[0]):
                for x in range(img.shape[1]):
                    h[img[y, x]] += 1
            return h
        '''))
    r = CliRunner().invoke(app, ["lower", f"{script}::histogram", "--stage", "defs",
                                 "--args", "img=uint8[64,64]"])
    assert r.exit_code == 0, r.output
    # Func names are unique in a process: another test may already own "h"
    assert re.search(r"\bh(\$\d+)?\(x\) = 0", r.output), r.output
    assert "line 10: h[img[y, x]] += 1" in r.output
    r = CliRunner().invoke(app, ["lower", f"{script}::histogram", "--stage", "loops",
                                 "--args", "img=uint8[64,64]"])
    assert r.exit_code == 0 and "produce h" in r.output


def test_concurrent_calls():
    a = np.random.default_rng(0).integers(0, 256, (20, 30), dtype=np.uint8)
    expected = hist_then_lookup.py_func(a)
    hist_then_lookup(a)
    errors = []

    def work():
        for _ in range(5):
            if not np.array_equal(hist_then_lookup(a), expected):
                errors.append("mismatch")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_returning_an_input_returns_the_same_object():
    @ph.pipeline
    def ident(a, b):
        s = 0
        for i in range(len(b)):
            s += int(b[i])
        return a, s

    a = np.arange(3)
    out, s = ident(a, np.arange(4, dtype=np.int8))
    assert out is a and s == 6


def test_bad_arguments():
    with pytest.raises(TypeError):
        scale([1, 2], 2.0)
    with pytest.raises(TypeError):
        scale(np.zeros((2, 2)))


# globals are read at call time: a new value recompiles ----------------------------------------
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


# p.lower() before any call; schedule errors in the user's names -------------------------------
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
