"""pyhalide/bench/autoschedule.py --pipelines at a tiny size: every column
runs and the automatic and hand schedules agree with the default one (the
harness's own checks); the Halide columns in the slow run."""
import pytest

from pyhalide.bench import autoschedule as bench


def _table(names, schedulers):
    results, notes = bench.measure_pipelines(8, rounds=1, threads=1, names=names, cpu=True,
                                             schedulers=schedulers)
    return results, notes, bench.render_pipelines(results, notes, 8, 1, cpu=True)


def test_pipelines_table_without_halide():
    results, notes, text = _table(["max_reduction", "conv5x5"], ())
    assert set(results) == {"max_reduction", "conv5x5"} and not notes, notes
    for row in results.values():
        assert {"hand", "auto", "serial", "compile", "scheduler"} <= set(row)
        assert row["scheduler"] > 0
    assert "| conv5x5 |" in text and "geomean auto / hand" in text


@pytest.mark.slow
def test_pipelines_table_with_halide():
    pytest.importorskip("halide")
    results, notes, text = _table(["equalize", "dot"], bench.HALIDE_SCHEDULERS)
    assert not [n for n in notes if "wrong" in n or "differs" in n], notes
    assert all(s in results["equalize"] for s in bench.HALIDE_SCHEDULERS), notes
