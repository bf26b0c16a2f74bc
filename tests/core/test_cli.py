"""The command line: `lower` takes what a user points it at, as the README
shows, and prints every stage; errors are one located message (a
traceback only with --debug or PYHALIDE_DEBUG); help texts without type tags
or broken lines; `tables generate` leaves the shipped tables alone; a
progress with an ETA; PYHALIDE_DEBUG levels print the passes and the IR."""
import io
import os
import re
import shlex
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from pyhalide import cli_base
from pyhalide.cli import app

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(ROOT, "README.md")) as _f:
    README = _f.read()


@pytest.fixture(autouse=True)
def _no_debug(monkeypatch):
    monkeypatch.delenv("PYHALIDE_DEBUG", raising=False)
    cli_base.set_debug(False)
    yield
    cli_base.set_debug(False)


def run(*args):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"}, terminal_width=200)


def flat(text):
    """The words of a message, without the error panel's frame."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


def readme_commands(prefix):
    return [line.strip() for line in README.splitlines() if line.strip().startswith(prefix)]


# ---- lower ------------------------------------------------------------------------------------
def test_the_readme_lower_commands_work_verbatim(monkeypatch):
    monkeypatch.chdir(ROOT)
    commands = readme_commands("pyhalide lower examples/")
    assert any("examples/blur.py::blur" in c for c in commands), commands
    for command in commands:
        r = run(*shlex.split(command)[1:])
        assert r.exit_code == 0, (command, r.output)
        assert "blur_y" in r.stdout, command


def test_lower_a_function_returning_funcs_picks_the_outputs(monkeypatch):
    monkeypatch.chdir(ROOT)
    r = run("lower", "examples/blur.py::blur", "--args", "image=uint16[64,48]", "--stage", "loops")
    assert r.exit_code == 0, r.output
    assert re.search(r"realize blur_y(\$\d+)?\(", r.stdout), r.stdout
    assert "realize blur_x" not in r.stdout


@pytest.mark.parametrize("name,says", [
    ("blur", ["blur(image) is called to build its Funcs: give image with --args"]),
    ("np", ["np in examples/blur.py is a module", "In examples/blur.py: blur, blur_numpy, main"])])
def test_lower_says_what_to_give(monkeypatch, name, says):
    monkeypatch.chdir(ROOT)
    r = run("lower", f"examples/blur.py::{name}")
    assert r.exit_code == 2 and "Traceback" not in r.output
    for text in says:
        assert text in flat(r.output)


def test_lower_module_level_func_and_pipeline(tmp_path):
    src = tmp_path / "prog.py"
    src.write_text("import pyhalide as ph\nx = ph.Var('x')\nf = ph.Func('f')\nf[x] = x * 2\n"
                   "p = ph.Pipeline([f])\n")
    for name in ("f", "p"):
        r = run("lower", f"{src}::{name}", "--stage", "defs")
        assert r.exit_code == 0, r.output
        assert re.search(r"^f(\$\d+)?\(x\) = \(x \* 2\)", r.stdout), r.stdout


def test_wrong_args_type_is_one_located_message(monkeypatch):
    monkeypatch.chdir(ROOT)
    r = run("lower", "examples/pipelines/blur.py::blur", "--args", "img=uint8")
    assert r.exit_code == 1
    assert r.stdout == ""
    first = r.stderr.splitlines()[0]
    with open(os.path.join(ROOT, "examples", "pipelines", "blur.py")) as src:
        lines = src.read().splitlines()
    line = 1 + next(k for k, s in enumerate(lines) if "H, W = img.shape" in s)
    assert re.match(rf"Error: .*examples/pipelines/blur\.py:{line}:\d+: ", first), r.stderr
    assert "(--args img=uint8 gives a NumPy scalar; an array needs its shape, " \
           "e.g. img=uint8[480,640])" in r.stderr
    assert "Traceback" not in r.stderr and "frontend_ast" not in r.stderr
    assert len(r.stderr.splitlines()) <= 6


def test_a_bad_dtype_in_args_names_the_option(monkeypatch):
    monkeypatch.chdir(ROOT)
    r = run("lower", "examples/pipelines/blur.py::blur", "--args", "img=uint9[4,4]")
    assert r.exit_code == 2
    assert "Invalid value for --args: 'uint9' in 'img=uint9[4,4]' is not a NumPy dtype" in \
        flat(r.output)


def test_an_error_in_the_users_file_is_located_there(tmp_path):
    src = tmp_path / "prog.py"
    src.write_text("import pyhalide as ph\n\ndef build(n):\n    raise ValueError('n must be odd')\n")
    r = run("lower", f"{src}::build", "--args", "n=4")
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0] == f"Error: {src}:4: ValueError: n must be odd"


def test_a_syntax_error_in_the_users_file_is_located(tmp_path):
    src = tmp_path / "prog.py"
    src.write_text("x = (\n")
    r = run("lower", f"{src}::x")
    assert r.exit_code == 1
    assert r.stderr.startswith(f"Error: {src}:1: ")


@pytest.mark.parametrize("how", ["--debug", "PYHALIDE_DEBUG"])
def test_debug_shows_the_traceback(monkeypatch, how):
    monkeypatch.chdir(ROOT)
    args = ["lower", "examples/pipelines/blur.py::blur", "--args", "img=uint8"]
    if how == "--debug":
        r = run("--debug", *args)
    else:
        monkeypatch.setenv("PYHALIDE_DEBUG", "1")
        r = run(*args)
    assert r.exit_code == 1
    assert type(r.exception).__name__ == "FrontendError"      # propagated, not reported


def test_every_command_reports_errors_without_traceback():
    r = run("assoc", "max(f,", "--type", "int32")
    assert r.exit_code == 2 and "Traceback" not in r.output
    r = run("tables", "verify", "--types", "int33")
    assert r.exit_code == 2 and "unknown type 'int33'" in flat(r.output)
    r = run("bench", "--suite", "9")
    assert r.exit_code == 2 and "--suite must be 1, 2, 3, 4, 6, 7 or all, not '9'" in flat(r.output)


def test_the_subprocess_cli_prints_one_message():
    out = subprocess.run([sys.executable, "-m", "pyhalide.cli", "lower",
                          "examples/pipelines/blur.py::blur", "--args", "img=uint8"],
                         capture_output=True, text=True, check=False, cwd=ROOT, timeout=240,
                         env={k: v for k, v in os.environ.items() if k != "PYHALIDE_DEBUG"})
    assert out.returncode == 1
    assert out.stderr.startswith("Error: ") and "Traceback" not in out.stderr


# ---- help -------------------------------------------------------------------------------------
HELP_COMMANDS = [[], ["lower"], ["assoc"], ["bench"], ["tables"], ["tables", "generate"],
                 ["tables", "verify"], ["tables", "stats"], ["tables", "export"]]


@pytest.mark.parametrize("cmd", HELP_COMMANDS, ids=lambda c: " ".join(c) or "pyhalide")
def test_help_has_no_raw_tags(cmd):
    r = run(*cmd, "--help")
    assert r.exit_code == 0, r.output
    for bad in ("<bool>", "<str>", "<int>", "<path>", "<list", "{", "}"):
        assert bad not in r.output, (bad, r.output)


def test_help_lines_are_not_broken_mid_sentence():
    r = run("--help")
    assert "EXPR: operator, identity" in r.output
    r = run("tables", "--help")
    assert "prove them with Z3 and write one table per type" in r.output


def test_bench_usage_has_no_subcommands():
    r = run("bench", "--help")
    assert re.search(r"Usage: root bench \[OPTIONS\] *\n", r.output), r.output
    assert "COMMAND" not in r.output


def test_usage_names_arguments_plainly():
    assert "Usage: root lower [OPTIONS] FILE::NAME" in run("lower", "--help").output
    assert "Usage: root assoc [OPTIONS] EXPR" in run("assoc", "--help").output
    assert "--stage STAGE" not in run("lower", "--help").output   # the column layout
    assert re.search(r"--stage\s+STAGE\s", run("lower", "--help").output)


# ---- tables generate --------------------------------------------------------------------------
def test_generate_writes_the_users_tables_not_the_shipped_ones(tmp_path, monkeypatch):
    from pyhalide.tables import store
    monkeypatch.delenv("PYHALIDE_TABLES_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    shipped = store.table_path("bool")
    before = (shipped.read_bytes(), shipped.stat().st_mtime_ns)
    r = run("tables", "generate", "--types", "bool", "--max-leaves", "2", "--jobs", "1")
    assert r.exit_code == 0, r.output
    mine = tmp_path / "pyhalide" / "tables" / "bool.jsonl"
    assert store.read_records(mine)
    assert (shipped.read_bytes(), shipped.stat().st_mtime_ns) == before
    assert f"Written to {mine.parent}; pyhalide loads them merged with the shipped" in \
        flat(r.output)


def test_generate_refuses_out_with_in_place(tmp_path):
    r = run("tables", "generate", "--types", "bool", "--out", str(tmp_path), "--in-place")
    assert r.exit_code == 2 and "give --out DIR or --in-place, not both" in flat(r.output)


def test_user_tables_add_entries_and_never_drop_shipped_ones(tmp_path, monkeypatch):
    import json

    from pyhalide import ir, tables
    from pyhalide.tables import store
    shipped = store.read_records(store.table_path("int8"))
    new = dict(shipped[0], ops=["(x0 + y0) + 0"], origin="generated")
    (tmp_path / "int8.jsonl").write_text("# mine\n" + json.dumps(shipped[1]) + "\n"
                                         + json.dumps(new) + "\n")
    monkeypatch.setenv("PYHALIDE_TABLES_DIR", str(tmp_path))
    tables._file_entries.cache_clear()
    try:
        merged = store.merged_records("int8")
        loaded = tables.load_table(ir.Int(8))
    finally:
        monkeypatch.delenv("PYHALIDE_TABLES_DIR")
        tables._file_entries.cache_clear()
    assert len(merged) == len(shipped) + 1 == len(loaded)
    assert [r for r in merged if r is not new and r != new] == shipped    # order kept
    assert new in merged


# ---- progress ---------------------------------------------------------------------------------
class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_bench_progress_is_a_bar_with_an_eta_on_a_terminal():
    from pyhalide.cli_progress import SuiteProgress
    stream = _Tty()
    with SuiteProgress(stream) as progress:
        progress("suite1", "max: round 1/5", 3, 12)
    text = stream.getvalue()
    assert "suite1 max: round 1/5" in text and "3/12" in text and "ETA" in text


def test_bench_progress_is_lines_elsewhere():
    from pyhalide.cli_progress import SuiteProgress
    stream = io.StringIO()
    with SuiteProgress(stream) as progress:
        progress("suite2", "blur: setting up NumPy", 0, 8)
    assert stream.getvalue() == "suite2 blur: setting up NumPy (0/8 steps)\n"


def test_tables_progress_has_an_eta():
    from rich.console import Console

    from pyhalide.cli_progress import run_tasks
    stream = _Tty()
    results = run_tasks(lambda task, q: task * 2, [1, 2, 3], (), 1, "work",
                        console=Console(file=stream, force_terminal=True))
    assert results == [2, 4, 6]
    assert "work" in stream.getvalue() and "ETA" in stream.getvalue()


def test_the_readme_says_how_long_the_tests_take():
    line = next(i for i, s in enumerate(README.splitlines()) if "python -m pytest -q" in s)
    after = " ".join(README.splitlines()[line:line + 12])
    assert re.search(r"~\d+(\.\d+)? min on 2 cores", after), after


# ---- in a subprocess: every stage, help, debug levels -----------------------------------------
def _run(args, timeout=240):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


# (a Func named hist made earlier in this process makes this one hist$1)
STAGES = [("defs", r"hist(\$\d+)?\(i\) = 0"), ("loops", "realize hist"), ("final", "produce hist"),
          ("llvm", "define"), ("asm", "ret")]


def _hist_program(tmp_path):
    src = tmp_path / "prog.py"
    src.write_text(
        "import numpy as np\nimport pyhalide as ph\n"
        "img = ph.Buffer(np.zeros((4, 4), np.uint8), 'img')\n"
        "i = ph.Var('i')\nr = ph.RDom([(0, 4), (0, 4)])\n"
        "hist = ph.Func('hist')\nhist[i] = 0\n"
        "hist[ph.cast(ph.Int(32), img[r.x, r.y])] += 1\n")
    return src


@pytest.mark.parametrize("stage,needle", STAGES)
def test_cli_lower_stages(tmp_path, stage, needle):
    """Every stage, in this process (a subprocess starts Python and imports
    pyhalide again: test_cli_lower_stage_in_a_subprocess does it once)."""
    r = run("lower", f"{_hist_program(tmp_path)}::hist", "--stage", stage)
    assert r.exit_code == 0, r.output
    assert re.search(needle, r.output), r.output


def test_cli_lower_stage_in_a_subprocess(tmp_path):
    out = _run(["-m", "pyhalide.cli", "lower", f"{_hist_program(tmp_path)}::hist",
                "--stage", "asm"])
    assert out.returncode == 0, out.stderr
    assert "ret" in out.stdout


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
