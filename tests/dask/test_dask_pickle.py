"""Tasks carry a @pipeline function by its definition, serialized once per
function (and schedule): pickling it again for every task is a copy of
those bytes, and unpickling it again in a process is a dictionary lookup
that returns the function it restored first (pyhalide.dask_pickle)."""
import inspect
import pickle

import numpy as np
import pytest

pytest.importorskip("cloudpickle")

import pyhalide as ph  # noqa: E402
from pyhalide import dask_pickle  # noqa: E402


def _make():
    @ph.pipeline
    def twice(a):
        out = np.empty_like(a)
        for i in range(a.shape[0]):
            out[i] = a[i] * 2
        return out
    return twice


def test_definition_serialized_once(monkeypatch):
    pf = _make()
    first = pickle.dumps(pf)
    calls = []
    real = inspect.getsourcelines
    monkeypatch.setattr(inspect, "getsourcelines", lambda f: calls.append(f) or real(f))
    for _ in range(5):
        assert pickle.dumps(pf) == first
    assert calls == []                    # no walk of the source per task
    # one process, one PipelineFunction per definition: its plans and kernels are reused
    assert pickle.loads(first) is pf and pickle.loads(first) is pickle.loads(first)
    a = np.arange(10, dtype=np.int32)
    assert np.array_equal(pickle.loads(first)(a), a * 2)


def test_new_schedule_new_definition():
    pf = _make()
    before = dask_pickle.pipeline_state(pf)
    pf.schedule(lambda p: None)
    after = dask_pickle.pipeline_state(pf)
    assert after[0] != before[0] and after[1] != before[1]
    assert dask_pickle.pipeline_state(pf) is after


def test_restoring_keeps_the_decorator_importable(tmp_path):
    # a fresh process (a worker) that restores a function first and then imports a
    # module using @ph.pipeline (a function Dask pickled by reference)
    import subprocess
    import sys
    (tmp_path / "user_mod.py").write_text(
        "import pyhalide as ph\n\n@ph.pipeline\ndef inc(a):\n    return a + 1\n")
    blob = tmp_path / "pf.pickle"
    blob.write_bytes(pickle.dumps(_make()))
    code = ("import pickle, sys; pickle.load(open(sys.argv[1], 'rb')); import user_mod; "
            "import numpy as np; print(user_mod.inc(np.arange(3)).tolist())")
    out = subprocess.run([sys.executable, "-c", code, str(blob)], capture_output=True,
                         text=True, timeout=600, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[1, 2, 3]"
