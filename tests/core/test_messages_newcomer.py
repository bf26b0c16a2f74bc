"""Messages a newcomer meets (issue 13, item 5): Param type errors say which
Python values fit, counts agree in number, rfactor names the stage once,
ScheduleNameError gives the schedule's line, realize refuses non-integer
sizes, 0-d arrays are NumPy scalars, masked arrays are refused."""
import numpy as np
import pytest

import pyhalide as ph

HERE = __file__


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


def test_one_dimension_is_singular():
    x = ph.Var("x")
    f = ph.Func("one_dim")
    f[x] = x
    with pytest.raises(ValueError, match=r"has 1 dimension but realize\(\) was given 2 sizes"):
        f.realize([2, 3])
    b = ph.Buffer(np.zeros(3, np.int32), "b1")
    with pytest.raises(IndexError, match="Buffer b1 has 1 dimension$"):
        b[0, 0]


def test_rfactor_names_the_stage_once():
    x, u = ph.Var("x"), ph.Var("u")
    r = ph.RDom([(0, 10)], "r")
    inp = ph.Buffer(np.arange(10, dtype=np.int32), "inp")
    f = ph.Func("rf_once")
    f[x] = 0
    f[x] = f[x] * 3 + inp[r.x] * f[x] - 7
    with pytest.raises(ph.CompileError) as e:
        f.update(0).rfactor([(r.x, u)])
    msg = str(e.value)
    assert msg.startswith("Func rf_once.update(0): cannot rfactor: the update is not provably "
                          "associative: the value ")
    assert msg.count("Func rf_once.update(0)") == 1


def _double(a):
    out = np.empty(a.shape[0], np.int32)
    for i in range(a.shape[0]):
        out[i] = a[i] * 2
    return out


def test_schedule_name_error_gives_the_schedule_line():
    def sched(p):
        p.funcs["nope"].compute_root()
    line = sched.__code__.co_firstlineno + 1
    double = ph.pipeline(_double, schedule=sched)
    with pytest.raises(ph.CompileError) as e:
        double(np.arange(4, dtype=np.int32))
    assert type(e.value).__name__ == "ScheduleNameError"
    assert str(e.value) == ("_double has no Func named 'nope'; valid names: out\n"
                            f"  at {HERE}:{line}: p.funcs[\"nope\"].compute_root()")


@pytest.mark.parametrize("sizes", [[8.7], 8.7, [np.float64(8.0)], [4, 2.5]])
def test_realize_refuses_non_integer_sizes(sizes):
    x = ph.Var("x")
    f = ph.Func("nonint")
    f[x] = x
    with pytest.raises(TypeError, match=r"realize\(\) sizes must be integers, not "):
        f.realize(sizes)
    np.testing.assert_array_equal(np.asarray(f.realize([np.int64(3)])), [0, 1, 2])


@ph.pipeline
def _scaled(a, k):
    out = np.empty(a.shape[0], np.float64)
    for i in range(a.shape[0]):
        out[i] = a[i] * k + k.ndim + k.size + len(k.shape)
    return out


@ph.pipeline
def _times(a, k):
    return a[0] * k


@pytest.mark.parametrize("k", [np.array(2.5), np.float64(2.5), np.array(3, np.int16)])
def test_zero_d_arrays_are_numpy_scalars(k):
    a = np.arange(5.0)
    np.testing.assert_array_equal(_scaled(a, k), _scaled.py_func(a, k))
    assert _scaled(a, k)[1] == 1 * k + 1


@pytest.mark.parametrize("k", [np.float64(1.1), np.array(1.1), 1.1])
def test_numpy_float64_scalars_promote_as_numpy_does(k):
    a = np.arange(4, dtype=np.float32) + np.float32(0.1)
    got, want = _times(a, k), _times.py_func(a, k)
    assert type(got) is type(want) and got == want


def test_masked_arrays_are_refused():
    m = np.ma.masked_array(np.arange(4.0), mask=[0, 1, 0, 0])
    with pytest.raises(TypeError) as e:
        _scaled(m, 2.0)
    assert str(e.value).startswith("@pipeline was given a masked array (np.ma): compiled code "
                                   "reads every element and would ignore the mask; pass "
                                   "np.ma.filled(a, value) or a.compressed()")
    assert f"at {HERE}:" in str(e.value)
    with pytest.raises(TypeError, match=r"^Buffer was given a masked array \(np.ma\)"):
        ph.Buffer(m, "masked")
