"""`pyhalide schedule FILE::NAME --args ... [--write]` (issue 18): the
automatic schedule printed as a schedule function, and saved as the running
target's side file, which the pipeline then uses."""
import importlib.util
import os
import shutil

import numpy as np
from typer.testing import CliRunner

from pyhalide.cli import app
from pyhalide.cli_schedule import side_file_name
from pyhalide.frontend_ast.targets import running_target

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples", "pipelines")


def _script(tmp_path):
    """A copy of examples/pipelines/paper_reductions.py (and the helper it
    imports) in tmp_path, so that --write writes beside the copy."""
    for name in ("paper_reductions.py", "schedule_runner.py"):
        shutil.copy(os.path.join(EXAMPLES, name), tmp_path / name)
    return tmp_path / "paper_reductions.py"


def _invoke(*args):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"}, terminal_width=200)


def _load(path):
    spec = importlib.util.spec_from_file_location("_autoschedule_cli_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_schedule_prints_and_writes_the_side_file(tmp_path):
    script = _script(tmp_path)
    folder = tmp_path / "paper_reductions_schedules"
    folder.mkdir()
    side = folder / side_file_name(running_target())
    side.write_text("def other(p):\n    pass\n\n\nhistogram2d = 'serial'\n")
    r = _invoke("schedule", f"{script}::histogram2d", "--args", "img=uint8[1024,1024]")
    assert r.exit_code == 0, r.output
    assert "def histogram2d(p):" in r.output and ".rfactor(" in r.output
    r = _invoke("schedule", f"{script}::histogram2d", "--args", "img=uint8[1024,1024]",
                "--write")
    assert r.exit_code == 0, r.output
    text = side.read_text()
    assert "def other(p):" in text and "histogram2d = 'serial'" not in text
    assert text.count("def histogram2d(p):") == 1 and "import pyhalide as ph" in text
    module = _load(script)
    img = np.random.default_rng(1).integers(0, 256, (300, 200), dtype=np.uint8)
    assert np.array_equal(module.histogram2d(img), np.bincount(img.ravel(), minlength=256))
    assert os.path.samefile(module.histogram2d.applied_schedule, side)


def test_schedule_needs_the_sizes(tmp_path):
    script = _script(tmp_path)
    r = _invoke("schedule", f"{script}::histogram2d")
    assert r.exit_code != 0 and "give img with --args" in r.output
