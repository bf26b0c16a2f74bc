"""Compilation is cached; the reference evaluator shares no code with
lowering and realize() never calls it; no copies of inputs."""
import ast
import os

import numpy as np

import pyhalide as ph
import pyhalide.lowering.pipeline as lowering_pipeline
import pyhalide.reference as reference

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_second_realize_does_not_recompile(monkeypatch):
    x = ph.Var("x")
    f = ph.Func("cached")
    f[x] = x * 3
    calls = []
    real = lowering_pipeline.compile_lowered
    monkeypatch.setattr(lowering_pipeline, "compile_lowered",
                        lambda lowered: calls.append(1) or real(lowered))
    f.realize([4])
    f.realize([8])
    assert len(calls) == 1
    f[x] = f[x] + 1                 # a new definition is a new pipeline
    f.realize([4])
    assert len(calls) == 2


def _imports(folder):
    names = set()
    for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
        for fname in files:
            if fname.endswith(".py"):
                tree = ast.parse(open(os.path.join(dirpath, fname)).read())
                for node in ast.walk(tree):
                    if isinstance(node, ast.Import):
                        names.update(a.name for a in node.names)
                    elif isinstance(node, ast.ImportFrom):
                        names.add(("." * node.level) + (node.module or ""))
    return names


def test_reference_and_lowering_share_no_code():
    ref = _imports("pyhalide/reference")
    assert not any("lowering" in n for n in ref), ref
    low = _imports("lowering")
    assert not any("reference" in n for n in low), low
    # lowering imports only the IR layer of pyhalide
    assert all(n == "pyhalide" or n == "pyhalide.ir" or n.startswith("pyhalide.ir.")
               for n in low if n.startswith("pyhalide")), low


def test_realize_never_calls_the_reference(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("realize() called the reference evaluator")
    monkeypatch.setattr(reference, "evaluate", boom)
    x = ph.Var("x")
    f = ph.Func("noref")
    f[x] = x + 1
    np.testing.assert_array_equal(np.asarray(f.realize([3])), [1, 2, 3])


def test_inputs_and_outputs_are_not_copied():
    a = np.arange(12, dtype=np.float32)
    buf = ph.Buffer(a, "nc")
    assert np.shares_memory(np.asarray(buf), a)
    x = ph.Var("x")
    f = ph.Func("inplace")
    f[x] = buf[x] * 2
    out = ph.Buffer(np.zeros(12, dtype=np.float32))
    f.realize([out])
    np.testing.assert_array_equal(np.asarray(out), a * 2)
    a[0] = 100.0                      # the kernel reads the array itself
    f.realize([out])
    assert np.asarray(out)[0] == 200.0


def test_schedule_edits_after_realize_recompile(monkeypatch):
    """Every kind of schedule edit after a realize() reaches the next one:
    marking a loop, splitting it, and moving a producer (the graph memo
    compares the schedule entries themselves)."""
    x, xo, xi = ph.Var("x"), ph.Var("xo"), ph.Var("xi")
    g = ph.Func("edited_producer")
    g[x] = x * 2
    f = ph.Func("edited")
    f[x] = g[x] + 1
    calls = []
    real = lowering_pipeline.compile_lowered
    monkeypatch.setattr(lowering_pipeline, "compile_lowered",
                        lambda lowered: calls.append(lowered.text("final")) or real(lowered))
    expected = np.arange(64) * 2 + 1
    np.testing.assert_array_equal(np.asarray(f.realize([64])), expected)
    f.split(x, xo, xi, 8)
    np.testing.assert_array_equal(np.asarray(f.realize([64])), expected)
    f.vectorize(xi)
    np.testing.assert_array_equal(np.asarray(f.realize([64])), expected)
    f.parallel(xo)
    np.testing.assert_array_equal(np.asarray(f.realize([64])), expected)
    g.compute_at(f, xo)
    np.testing.assert_array_equal(np.asarray(f.realize([64])), expected)
    f.realize([64])                      # nothing changed: no compile
    assert len(calls) == 5
    assert "ramp" in calls[2] and "parallel" in calls[3] and "produce edited_producer" in calls[4]
