"""The @pipeline examples run, with their side-file schedules (or the serial
fallback where this build lacks a directive), and agree with NumPy and with
their own plain Python loops."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_pipeline_examples_run():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "pipelines",
                                                       "run_all.py")],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr + out.stdout
    assert " NO" not in out.stdout and "False" not in out.stdout
    for name in ("max_reduction", "histogram2d", "argmin4d", "complex_mul", "dot",
                 "kitchen_sink", "blur", "histogram equalization"):
        assert name in out.stdout


def test_every_example_has_three_target_schedules():
    ex = os.path.join(ROOT, "examples", "pipelines")
    for script in ("paper_reductions", "blur", "histogram_equalization"):
        files = set(os.listdir(os.path.join(ex, script + "_schedules")))
        assert {"x86-64-avx512.py", "x86-64-avx2.py", "generic.py"} <= files
