"""The examples run and agree with NumPy; the CLI prints every stage."""
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


@pytest.mark.parametrize("stage,needle", [("defs", "hist(i) = 0"), ("loops", "realize hist"),
                                          ("final", "produce hist"), ("llvm", "define"),
                                          ("asm", "ret")])
def test_cli_lower_stages(tmp_path, stage, needle):
    src = tmp_path / "prog.py"
    src.write_text(
        "import numpy as np\nimport pyhalide as ph\n"
        "img = ph.Buffer(np.zeros((4, 4), np.uint8), 'img')\n"
        "i = ph.Var('i')\nr = ph.RDom([(0, 4), (0, 4)])\n"
        "hist = ph.Func('hist')\nhist[i] = 0\n"
        "hist[ph.cast(ph.Int(32), img[r.x, r.y])] += 1\n")
    out = _run(["-m", "pyhalide.cli", "lower", f"{src}::hist", "--stage", stage])
    assert out.returncode == 0, out.stderr
    assert needle in out.stdout


def test_cli_help_for_every_command():
    for cmd in ([], ["lower"], ["tables"]):
        out = _run(["-m", "pyhalide.cli", *cmd, "--help"])
        assert out.returncode == 0 and "Usage" in out.stdout, out.stderr


def test_debug_levels_print_passes_and_ir():
    code = ("import pyhalide as ph\nx = ph.Var('x')\nf = ph.Func('dbg')\nf[x] = x + 1\n"
            "f.realize([3])\n")
    env = dict(os.environ, PYHALIDE_DEBUG="2", PYHALIDE_CACHE_DIR="0")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "pass storage flattening" in out.stderr
    assert "--- after simplify" in out.stderr
