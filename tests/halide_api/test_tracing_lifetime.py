"""The tracing state of a Function lives as long as the Function and
concerns only the pipelines that contain it (pyhalide/tracing.py): a traced
Func, alive or dropped (and kept by the graph cache), does not take the fast
path of a repeated realize (pyhalide/realize_fast.py) from another pipeline;
a Func traced after its call was recorded prints its trace at the next
realize. Results are compared with NumPy, trace lines with Halide 21's."""
import gc
import weakref

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import shifted_inputs, tracing
from tests.core import test_realize_fast_path

full_calls = test_realize_fast_path.full_calls     # the fixture: full-path realizes


@pytest.fixture(autouse=True)
def _no_shifted_inputs(monkeypatch):
    """Inputs with mins left alive by earlier tests (kept by realize._GRAPHS)
    are hidden: while any is alive, every realize in the process takes the
    shifted path, which records no fast call (shifted_inputs.active is
    process-wide)."""
    monkeypatch.setattr(shifted_inputs, "_SHIFTED", weakref.WeakSet())


def _traced_gradient(name):
    x, y = ph.vars("x y")
    g = ph.Func(name)
    g[x, y] = x + y
    g.trace_stores()
    return g


def _plain(img):
    x, y = ph.vars("x y")
    f = ph.Func("plain_life")
    f[x, y] = img[x, y] * 2 + 1
    return f


def _gradient_lines(name, w, h):
    return ([f"Begin pipeline {name}.0()",
             f'Tag {name}.0() tag = "func_type_and_dim: 1 0 32 1 2 0 {w} 0 {h}"']
            + [f"Store {name}.0({i}, {j}) = {i + j}" for j in range(h) for i in range(w)]
            + [f"End pipeline {name}.0()"])


@pytest.mark.parametrize("drop", [False, True])
def test_a_traced_func_does_not_disable_another_pipelines_fast_path(capsys, full_calls, drop):
    name = "dropped_traced_life" if drop else "kept_traced_life"
    g = _traced_gradient(name)
    np.testing.assert_array_equal(np.asarray(g.realize([3, 2])),
                                  np.add.outer(np.arange(2), np.arange(3)))
    assert capsys.readouterr().out.splitlines() == _gradient_lines(name, 3, 2)
    if drop:
        del g
        gc.collect()
    a = np.arange(20, dtype=np.int32).reshape(4, 5)
    img = ph.ImageParam(ph.Int(32), 2, "img_life")
    img.set(a)
    f = _plain(img)
    for _ in range(2):                       # the second call records
        np.testing.assert_array_equal(np.asarray(f.realize([5, 4])), a * 2 + 1)
    assert f._solo_pipeline.__dict__["_fast"]() is not None
    before = full_calls[0]
    for _ in range(3):
        np.testing.assert_array_equal(np.asarray(f.realize([5, 4])), a * 2 + 1)
    assert full_calls[0] == before           # every call took the recorded one
    assert capsys.readouterr().out == ""     # an untraced pipeline prints nothing


def test_a_dropped_traced_func_leaves_no_tracing_state():
    g = _traced_gradient("dropped_life")
    assert tracing.traced([g.function()])
    fn = g.function()
    del g
    gc.collect()
    assert tracing.traced([fn])              # alive through `fn`: still traced
    assert tracing.events(fn) == frozenset({"store"})
    del fn
    gc.collect()
    assert all(f.name != "dropped_life" for f in list(tracing._TRACED.keys()))


def test_tracing_after_the_record_prints_the_trace(capsys, full_calls):
    x, y = ph.vars("x y")
    g = ph.Func("late_life")
    g[x, y] = x + y
    want = np.add.outer(np.arange(2), np.arange(3))
    for _ in range(2):                       # the second call records
        np.testing.assert_array_equal(np.asarray(g.realize([3, 2])), want)
    assert g._solo_pipeline.__dict__["_fast"]() is not None
    assert capsys.readouterr().out == ""
    g.trace_stores()                         # changes g's version: the full path traces
    before = full_calls[0]
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(g.realize([3, 2])), want)
        assert capsys.readouterr().out.splitlines() == _gradient_lines("late_life", 3, 2)
    assert full_calls[0] == before + 2       # a traced pipeline records no fast call
