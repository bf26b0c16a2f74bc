"""Smoke tests of suite 4 (`pyhalide bench --suite 4`, NumPy-style code) at
tiny sizes: every column's result is checked against NumPy (times are not
asserted); a pipeline pyhalide does not compile is reported as "not
compiled" with its error's first line, never as a failure; the memory probe
sees no intermediate buffer in a fused element-wise chain."""
import importlib.util

import numpy as np
import pytest
from typer.testing import CliRunner

from pyhalide.bench import protocol, suite4
from pyhalide.bench import suite4_kernels as K

HAVE_NUMBA = importlib.util.find_spec("numba") is not None


@pytest.fixture(autouse=True)
def _no_verifier():
    """The IR verifier after every pass checks lowering, not benchmarks."""
    from pyhalide.ir.config import override
    with override(verify=False):
        yield


@pytest.mark.slow
def test_every_pipeline_is_right_or_not_compiled():
    """Default and scheduled pipelines of every benchmark: equal to NumPy
    (bit for bit where FRONTEND.md promises it) or "not compiled"."""
    res = protocol.run_suite("suite4", quick=True, rounds=1, calls=1,
                             columns=["ph", "ph_sched", "numpy"])
    assert [b.name for b in res.benches] == list(suite4.BENCHMARKS)
    for b in res.benches:
        assert b.cells["numpy"].status == "ok"
        for key in ("ph", "ph_sched"):
            cell = b.cells[key]
            assert cell.status in ("ok", "not compiled"), (b.name, key, cell.note, cell.detail)
            if cell.status == "not compiled":
                assert cell.note.startswith("not compiled: ") and "\n" not in cell.note
    chain = res.benches[0].cells
    assert chain["ph"].status == chain["ph_sched"].status == "ok"     # operators compile now
    text = protocol.render(res, suite4.targets(res))
    assert "## Suite 4" in text and "| chain_ops " in text and "fails" not in text


def _unsupported(a, b):
    out = np.empty_like(a)
    try:
        out[0] = 1.0
    finally:
        pass
    return out


def test_a_pipeline_that_does_not_compile_is_reported(monkeypatch):
    monkeypatch.setitem(K.NUMPY, "chain_ops", _unsupported)
    monkeypatch.setattr(suite4.BENCHMARKS["chain_ops"], "truth",
                        lambda d: _unsupported(*d["args"]))
    res = protocol.run_suite("suite4", quick=True, rounds=1, calls=1, benches=["chain_ops"],
                             columns=["ph"])
    cell = res.benches[0].cells["ph"]
    assert cell.status == "not compiled" and not cell.timed
    assert cell.note.startswith("not compiled: ") and "test_numpy_suite.py:" in cell.note
    text = protocol.render(res, suite4.targets(res))
    assert "not compiled [1]" in text and "[1] not compiled: " in text


@pytest.mark.skipif(not HAVE_NUMBA, reason="needs numba")
def test_numba_loops_compute_what_numpy_computes():
    from pyhalide.bench.suite4_loops import numba_kernels
    params = suite4.default_params(4, quick=True)
    loops = numba_kernels(False)
    for name, bench in suite4.BENCHMARKS.items():
        data = bench.make_data(params)
        ok, detail = bench.check(loops[name](*data["args"]), bench.truth(data), data)
        assert ok, (name, detail)


def test_fused_chain_allocates_only_its_output():
    from pyhalide.bench.suite4_memory import peak_in_new_process
    params = dict(suite4.default_params(quick=True), side_log2=9)
    got = peak_in_new_process("chain_ops", "ph", params)
    assert got.get("buffers") == ["out"], got
    assert got["outputs"] == 512 * 512 * 8
    assert got["peak"] <= 1.05 * got["outputs"], got
    ref = peak_in_new_process("chain_ops", "numpy", params)
    assert ref["peak"] >= 2 * ref["outputs"], ref        # NumPy: a temporary per operation


def test_suite4_from_the_cli():
    from pyhalide.cli import app
    out = CliRunner().invoke(app, ["bench", "--quick", "--suite", "4", "-b", "chain_ops",
                                   "-c", "ph", "-c", "numpy", "--calls", "1", "--quiet"])
    assert out.exit_code == 0, out.output
    assert "## Suite 4: NumPy-style code" in out.output and "| chain_ops " in out.output
