"""The examples run and agree with NumPy."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples")


def _run(args, timeout=240):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.mark.parametrize("script,args", [("blur.py", ["130", "70"]), ("histogram.py", []),
                                         ("histogram_equalization.py", []),
                                         ("paper_reductions.py", ["12"]),
                                         ("blur_schedules.py", ["300", "70"]),
                                         ("histogram_equalization_schedules.py", ["333", "97"])])
def test_example_runs_and_matches_numpy(script, args):
    out = _run([os.path.join(EX, script), *args])
    assert out.returncode == 0, out.stderr + out.stdout
    assert "NO" not in out.stdout and "False" not in out.stdout
