"""Halide's scheduling warnings (printed to stdout when a pipeline is built)
and Func.bound: an update left unscheduled beside a scheduled stage, its
silencing by unscheduled(), rfactor counting as a schedule, bound on an
inlined Func (warning), on an output (Halide's error when the region is not
covered) and on a computed Func (refused). Results are compared with the
reference evaluator and NumPy."""
import numpy as np
import pytest

import pyhalide as ph
from tests.core.jitcheck import check


def _histogram(name):
    x = ph.Var("x")
    r = ph.RDom([(0, 64)], "r")
    h = ph.Func(name)
    h[x] = 0
    h[(r.x * 7) % 8] += 1
    return h, x, r


def test_unscheduled_update_warns_once(capsys):
    h, x, _ = _histogram("hist_w")
    h.vectorize(x, 8)
    np.testing.assert_array_equal(np.asarray(h.realize([8])), np.full(8, 8))
    h.realize([8])                                   # the same pipeline: not again
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["Warning: Update definition 0 of function hist_w has not been scheduled, "
                     "even though some other definitions have been. You may have forgotten to "
                     "schedule it. If this was intentional, call hist_w.update(0).unscheduled() "
                     "to suppress this warning."]
    check(h, [8], [np.full(8, 8)])


def test_unscheduled_and_rfactor_silence_it(capsys):
    h, x, _ = _histogram("hist_quiet")
    h.vectorize(x, 8)
    h.update(0).unscheduled()
    h.realize([8])
    g, gx, r = _histogram("hist_rf")
    u = ph.Var("u")
    g.update(0).rfactor(r.x, u).compute_root()
    g.vectorize(gx, 8)
    check(g, [8], [np.full(8, 8)])
    g.realize([8])
    assert capsys.readouterr().out == ""
    with pytest.raises(ph.CompileError, match="has a schedule"):
        h2, x2, r2 = _histogram("hist_sched")
        h2.update(0).unroll(r2.x, 2)
        h2.update(0).unscheduled()


def test_bound_on_an_inlined_func_warns(capsys):
    i = ph.Var("i")
    f, g = ph.Func("f_bi"), ph.Func("g_bi")
    f[i] = ph.f32(i) * 0.5
    f.bound(i, 0, 127)
    g[i] = f[i * i]
    got = np.asarray(g.realize([16]))
    np.testing.assert_array_equal(got, (np.arange(16) ** 2 * 0.5).astype(np.float32))
    assert capsys.readouterr().out == ("Warning: It is meaningless to bound dimension i of "
                                       "function f_bi to be within [0, 127] because the "
                                       "function is scheduled inline.\n")


def test_bound_on_an_output():
    x = ph.Var("x")
    f = ph.Func("f_bo")
    f[x] = ph.u8(x * 3)
    f.bound(x, 0, 8)
    check(f, [8], [np.arange(8) * 3])
    np.testing.assert_array_equal(np.asarray(f.realize([5])), np.arange(5) * 3)
    with pytest.raises(ph.HalideError, match=r"Bounds given for f_bo in x \(from 0 to 7\) do "
                                             r"not cover required region \(from 0 to 9\)"):
        f.realize(ph.Buffer(ph.UInt(8), [10]))


def test_bound_on_a_computed_func_is_checked():
    # (refused with NotImplementedError before bound() gave the region;
    # tests/halide_api/test_func_bound.py has the rest)
    x = ph.Var("x")
    f, g = ph.Func("f_bc"), ph.Func("g_bc")
    f[x] = x
    f.bound(x, 0, 8).compute_root()
    g[x] = f[x] + f[x + 1]
    check(g, [4], [np.arange(4) * 2 + 1])
    with pytest.raises(ValueError, match=r"Bounds given for f_bc in x \(from 0 to 7\) do not "
                                         r"cover required region \(from 0 to 8\)"):
        g.realize([8])


def test_anonymous_vars_are_numbered():
    a, b = ph.Var(), ph.Var()
    assert a.name()[0] == "v" and int(b.name()[1:]) == int(a.name()[1:]) + 1


def test_output_buffer_of_another_type_is_halides_error():
    x = ph.Var("x")
    f = ph.Func("f_ty")
    f[x] = ph.u16(x)
    with pytest.raises(ph.HalideError, match="Output buffer f_ty has type uint16 but type of "
                                             "the buffer passed in is uint8"):
        f.realize(ph.Buffer(ph.UInt(8), [2]))
    with pytest.raises(TypeError):                    # (a TypeError too, as before)
        f.realize(ph.Buffer(ph.UInt(8), [2]))
    np.testing.assert_array_equal(np.asarray(f.realize(ph.Buffer(ph.UInt(16), [3]))), [0, 1, 2])
