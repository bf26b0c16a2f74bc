"""Smoke tests of `pyhalide bench`: the suites in a tiny quick mode (small
sizes, one round, peers optional). They check that the tables print, that
the correctness columns are right (pyhalide correct, Numba's prange argmin
and Halide's rfactor argmin marked wrong) and that a missing peer shows
"n/a". Benchmarks are not timed tests: no time is asserted."""
import importlib.util
import itertools
import sys

import pytest
from typer.testing import CliRunner

from pyhalide.bench import protocol, suite1, suite2, sweep

HAVE_NUMBA = importlib.util.find_spec("numba") is not None
HAVE_HALIDE = importlib.util.find_spec("halide") is not None


@pytest.fixture(autouse=True)
def _no_verifier():
    """The IR verifier after every pass (on in the test session) checks lowering,
    not benchmarks; these tests only need the suites to run."""
    from pyhalide.ir.config import override
    with override(verify=False):
        yield


@pytest.fixture
def no_peers(monkeypatch):
    """Numba and Halide not installed: `import numba` raises ImportError."""
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.setitem(sys.modules, "halide", None)


def _cells(res, column):
    return {b.name: b.cells[column] for b in res.benches}


def test_suite1_quick_without_peers(no_peers):
    res = protocol.run_suite("suite1", quick=True, rounds=1, calls=2,
                             columns=["ph_serial", "numpy", "numba_serial", "hl_rfactor",
                                      "bound"])
    assert [b.name for b in res.benches] == list(suite1.BENCHMARKS)
    for name, cell in _cells(res, "ph_serial").items():
        assert cell.status == "ok", (name, cell.note, cell.detail)
        assert cell.timed and cell.compile_s is not None
    for name, cell in _cells(res, "numpy").items():
        assert cell.status == "ok", (name, cell.note, cell.detail)
    for col, why in (("numba_serial", "Numba not installed"),
                     ("hl_rfactor", "Halide not installed")):
        for cell in _cells(res, col).values():
            assert (cell.status, cell.note) == ("n/a", why)
    assert all(c.timed for c in _cells(res, "bound").values())    # NumPy's read kernel
    text = protocol.render(res, suite1.targets(res))
    assert "| max " in text and "| kitchen_sink " in text
    assert "n/a (Numba not installed)" in text and "n/a (Halide not installed)" in text
    assert "wrong" not in text
    # a smoke run judges no target and reads more than "0 MiB"
    assert "not judged: a quick run" in text and "| met" not in text and "| NO" not in text
    assert " 0 MiB" not in text and " KiB read" in text


@pytest.mark.skipif(not HAVE_NUMBA, reason="needs numba")
def test_suite1_wrong_answers_are_marked():
    """Numba's prange argmin races; Halide 21 rfactors only its own argmin
    form, which returns another index among ties."""
    cols = ["numba_prange"] + (["hl_rfactor"] if HAVE_HALIDE else [])
    res = protocol.run_suite("suite1", quick=True, rounds=1, calls=1, benches=["argmin4d"],
                             columns=cols)
    c = res.benches[0].cells
    assert c["numba_prange"].status == "wrong", c["numba_prange"].detail
    if HAVE_HALIDE:
        assert c["hl_rfactor"].status == "wrong"
        assert "rfactor.cpp" in c["hl_rfactor"].note
    text = protocol.render(res, suite1.targets(res))
    assert "wrong [" in text


def test_suite1_rfactor_column():
    """pyhalide rfactor is never wrong: correct, n/a while rfactor is missing,
    or a reported refusal (a CompileError of rfactor, shown as "fails")."""
    res = protocol.run_suite("suite1", quick=True, rounds=1, calls=2,
                             benches=["max", "argmin4d"], columns=["ph_rfactor"])
    for cell in _cells(res, "ph_rfactor").values():
        if cell.status == "n/a":
            assert cell.note == "rfactor unavailable"
        elif cell.status == "fails":
            assert "cannot rfactor" in cell.note, cell.note
        else:
            assert cell.status == "ok", (cell.note, cell.detail)
    assert "ph_rfactor" in {c.key for c in res.columns}


def test_suite2_quick_from_the_cli(no_peers):
    from pyhalide.cli import app
    out = CliRunner().invoke(app, ["bench", "--quick", "--suite", "2", "--calls", "1",
                                   "--quiet"])
    assert out.exit_code == 0, out.output
    report = out.output
    assert "# pyhalide bench" in report and "## Suite 2" in report
    for name in suite2.BENCHMARKS:
        assert f"| {name} " in report
    assert "n/a (Halide not installed)" in report
    assert "n/a (Numba not installed)" in report
    assert "wrong" not in report and "fails" not in report
    bad = CliRunner().invoke(app, ["bench", "--suite", "9"])
    assert bad.exit_code != 0


def test_suite3_runtime_quick():
    """Call overhead, dispatch and scaling run and are right (the warm-start
    benchmark, which starts processes, is left to `pyhalide bench --suite 3`)."""
    from pyhalide.bench import suite3
    res = protocol.run_suite("suite3", quick=True, rounds=1, calls=2,
                             benches=["call", "dispatch", "scaling"], columns=["ph_1", "ph_all"])
    for b in res.benches:
        for key, cell in b.cells.items():
            assert cell.status == "ok", (b.name, key, cell.note, cell.detail)
    text = protocol.render(res, suite3.targets(res))
    assert "dispatch of a parallel loop" in text and "speed-up from 1 to" in text


def test_worker_processes_interleave():
    """The protocol proper: one process per column, rounds in alternating order."""
    res = protocol.run_suite("suite1", size_log2=8, rounds=2, calls=2, in_process=False,
                             benches=["max"], columns=["ph_serial", "numpy"])
    b = res.benches[0]
    cell = b.cells["ph_serial"]
    assert cell.status == "ok", (cell.note, cell.detail)
    assert b.cells["numpy"].status == "ok"
    assert b.order == [["ph_serial", "numpy"], ["numpy", "ph_serial"]]
    assert all(t > 0 for t in cell.times) and len(cell.times) == 2
    assert b.paired("numpy", "ph_serial") > 0
    assert "relative to" in protocol.render(res, suite1.targets(res))   # the fallback reference


def test_paired_ratio_is_the_median_of_per_round_ratios():
    cells = {"a": protocol.Cell("ok", times=[1.0, 4.0, 2.0]),
             "b": protocol.Cell("ok", times=[2.0, 2.0, 2.0]),
             "w": protocol.Cell("wrong", times=[0.5, 0.5, 0.5])}
    b = protocol.BenchResult("x", cells, rounds=3, calls=10)
    assert b.paired("a", "b") == 1.0            # ratios 0.5, 2, 1
    assert cells["a"].median() == 2.0
    assert b.paired(b.best_of(["a", "w"]), "b") == 1.0    # wrong answers never count as best
    assert b.paired(b.best_of(["a", "w"], correct_only=False), "b") == 0.25


def test_failing_implementation_is_reported(monkeypatch):
    def broken(bench, column, data, params):
        raise RuntimeError("boom")
    monkeypatch.setattr(suite2, "build", broken)
    res = protocol.run_suite("suite2", quick=True, rounds=1, calls=1, benches=["blur"],
                             columns=["ph"])
    cell = res.benches[0].cells["ph"]
    assert cell.status == "fails" and "boom" in cell.note
    assert "fails [1]" in protocol.render(res, suite2.targets(res))


def test_byte_counts_are_readable():
    assert [protocol.fmt_bytes(n) for n in (512, 48 << 10, 5 << 19, 3 << 30)] == \
        ["512 B", "48 KiB", "2.5 MiB", "3 GiB"]


def test_sweep_picks_each_systems_best_and_reports_it():
    """The calibration round at tiny sizes: every parameter set tried is
    recorded, the best of each system shown, and pyhalide also runs at
    Halide's best parameters (the same-schedule column). One bench (each
    compiles every parameter set of its grid: ~2 s CPU)."""
    res = protocol.run_suite("suite1", quick=True, rounds=1, calls=1, sweep=True,
                             benches=["histogram2d"],
                             columns=["ph_rfactor", "hl_rfactor", "ph_same"])
    assert res.swept
    for b in res.benches:
        cal = b.calibrations["ph_rfactor"]
        space = suite1.space(b.name, res.params).reduced()
        assert cal.trials[0].sched == space.default()          # the defaults come first
        grid = {tuple(zip([p.name for p in space.params], v))
                for v in itertools.product(*(p.values for p in space.params))}
        tried = [tuple(t.sched.items()) for t in cal.trials]
        assert len(tried) == len(set(tried)) and set(tried) == grid | {tried[0]}
        assert all(t.status == "ok" for t in cal.trials), [t.note for t in cal.trials]
        assert cal.best in [t.sched for t in cal.trials]
        assert b.cells["ph_rfactor"].status == "ok"
        hl = b.calibrations["hl_rfactor"]
        if HAVE_HALIDE:
            assert hl.best is not None and b.cells["ph_same"].status == "ok"
        else:
            assert hl.best is None and hl.note == "n/a (Halide not installed)"
            assert b.cells["ph_same"].status == "n/a"
    text = protocol.render(res, suite1.targets(res))
    assert "Schedule parameters: a calibration round per system" in text
    assert "| pyhalide best" in text and "| Halide best" in text
    best = res.benches[0].calibrations["ph_rfactor"].best
    assert sweep.fmt_sched(best) in text and "rows=" in text and "unroll=" in text
    assert "best vs best" in text


def test_sweep_reports_failing_and_wrong_parameter_sets(monkeypatch):
    """A parameter set that fails to build or gives a wrong answer is listed
    with its reason, never dropped, and never chosen as the best."""
    real = suite2.build

    def flaky(bench, column, data, params, sched=None):
        p = sched or suite2.DEFAULTS[bench]
        if column == "ph" and p["lanes"] == max(suite2.space(bench, params).params[0].values):
            raise RuntimeError("boom at the widest vectors")
        runner = real(bench, column, data, params, sched)
        if column == "ph" and p["tile_y"] == 8:
            inner = runner.result
            runner.result = lambda r: inner(r) + 1          # a wrong image
        return runner
    monkeypatch.setattr(suite2, "build", flaky)
    res = protocol.run_suite("suite2", quick=True, rounds=1, calls=1, sweep=True,
                             benches=["blur"], columns=["ph"])
    cal = res.benches[0].calibrations["ph"]
    statuses = {t.status for t in cal.trials}
    assert statuses == {"ok", "fails", "wrong"}, [(t.sched, t.status) for t in cal.trials]
    best = cal.best_trial()
    assert best.status == "ok" and best.sched["tile_y"] != 8
    text = protocol.render(res, suite2.targets(res))
    assert "fails at" in text and "boom at the widest vectors" in text
    assert "wrong at" in text and "pixels differ" in text
    counts = {st: sum(t.status == st for t in cal.trials) for st in ("fails", "wrong")}
    assert counts["fails"] >= 1 and counts["wrong"] >= 1
    for st, n in counts.items():           # every such set is named in the report
        assert f"{n} {st} [" in text and f"pyhalide, blur, {st} at {n} parameter set(s)" in text
    for t in cal.trials:
        if t.status != "ok":
            assert sweep.fmt_sched(t.sched) in text


def test_no_sweep_runs_the_defaults():
    from pyhalide.cli import app
    out = CliRunner().invoke(app, ["bench", "--suite", "1", "-b", "dot", "-c", "ph_rfactor",
                                   "--size-log2", "12", "--rounds", "1", "--calls", "1",
                                   "--in-process", "--no-sweep", "--quiet"])
    assert out.exit_code == 0, out.output
    assert "Schedule parameters: the fixed defaults" in out.output
    assert "| dot       | chunk=32768, lanes=8" in out.output
    assert "not swept" in out.output


def test_native_lanes_follow_the_host():
    assert sweep.native_vector_bytes() in (16, 32, 64)
    assert sweep.vector_counts(4) == [k * sweep.native_vector_bytes() // 4 for k in (1, 2, 4)]


def test_best_against_best_takes_pyhalides_faster_column_of_the_rounds():
    """pyhalide at Halide's parameters is also a pyhalide parameter set: when it
    ran faster in the paired rounds than the calibration's pick, the best-vs-best
    row uses it (and says so); otherwise the pick."""
    def cell(ms):
        return protocol.Cell("ok", times=[t / 1e3 for t in ms])
    res = type("Res", (), {"swept": True})()
    for pick, same, used in (([7.2, 7.3, 7.1], [5.4, 5.5, 5.3], "same"),
                             ([5.0, 5.1, 5.2], [5.4, 5.5, 5.3], "ph")):
        cells = {"ph": cell(pick), "same": cell(same), "hl": cell([5.2, 5.2, 5.2])}
        b = protocol.BenchResult("dot", cells, rounds=3, calls=10)
        rows = sweep.halide_targets(res, b, "ph", "hl", "same", "pyhalide / Halide")
        best = rows[0]
        want = b.paired(used, "hl")
        assert best.measured.startswith(protocol.fmt_ratio(want).split(" ")[0])
        assert ("Halide's parameters, faster" in best.name) == (used == "same")
        assert best.verdict == ("yes" if want <= 1.0 else "NO")
