"""`pyhalide bench`: run the benchmark suites and print their tables
(Markdown, so they can be pasted verbatim into docs/performance.md)."""
from __future__ import annotations

import contextlib
import datetime
import os
import platform
import shlex
import subprocess
import sys
from typing import List, Optional

import typer

from ..cli_base import Command
from ..cli_progress import SuiteProgress
from .protocol import MIN_CALLS, MIN_ROUNDS, THREAD_VARS

app = typer.Typer(add_completion=False)

SUITES = {"1": "suite1", "2": "suite2", "3": "suite3", "4": "suite4", "6": "suite6_scans",
          "7": "suite7_apps"}


def _version(mod: str) -> str:
    try:
        from importlib.metadata import version
        return version(mod)
    except Exception:
        return "not installed"


def _commit() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        out = subprocess.run(["git", "-C", here, "rev-parse", "--short=12", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        if out.returncode:
            return "unknown"
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True, text=True,
                               timeout=10).stdout.split("\n")
        dirty = [line[3:] for line in dirty if line.strip()]
        if not dirty:
            return out.stdout.strip()
        shown = ", ".join(dirty[:6]) + (", ..." if len(dirty) > 6 else "")
        return out.stdout.strip() + f" + uncommitted changes to {shown}"
    except Exception:
        return "unknown"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _load() -> str:
    try:
        return " / ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def header(command: str, notes=()) -> str:
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    vers = ", ".join(f"{m} {_version(m)}" for m in ("numpy", "numba", "halide", "llvmlite"))
    return "\n".join([
        f"- date: {now}",
        f"- commit: {_commit()}",
        f"- command: `{command}`",
        f"- machine: {_cpu()}, {os.cpu_count()} cores; Python {platform.python_version()}; "
        f"{vers}",
        f"- load average (1, 5, 15 min) at the start: {_load()}",
        *(f"- note: {n}" for n in notes),
        ""])


def _command_line() -> str:
    argv = sys.argv
    if argv and argv[0].endswith("__main__.py"):
        return " ".join(["python -m pyhalide.bench", shlex.join(argv[1:])])
    if argv and os.path.basename(argv[0]).startswith("pyhalide") and argv[1:2] == ["bench"]:
        return " ".join(["pyhalide bench", shlex.join(argv[2:])])
    return "pyhalide bench"


def run(suites: list, *, size_log2=None, rounds=MIN_ROUNDS, calls=MIN_CALLS, quick=False,
        in_process=None, benches=None, columns=None, threads=None, command="pyhalide bench",
        progress=None, raw: Optional[list] = None, sweep: Optional[bool] = None,
        notes=()) -> str:
    """Run the suites; return the Markdown report (and append each
    SuiteResult, as a dict with every per-round time, to `raw`)."""
    import dataclasses
    import importlib

    from .protocol import render, run_suite
    parts = ["# pyhalide bench", "", header(command, notes)]
    for s in suites:
        mod = importlib.import_module(f"pyhalide.bench.{s}")
        names = None
        if benches:
            names = [b for b in benches if b in mod.BENCHMARKS]
            if not names:
                continue
        res = run_suite(s, size_log2=size_log2, rounds=rounds, calls=calls, quick=quick,
                        in_process=in_process, benches=names, columns=columns,
                        threads=threads, progress=progress, sweep=sweep)
        parts.append(render(res, mod.targets(res)))
        if raw is not None:
            raw.append(dataclasses.asdict(res))
    parts.append(f"Load average (1, 5, 15 min) at the end: {_load()}.")
    return "\n".join(parts)


def bench(suite: str = typer.Option("all", "--suite", "-s", help="1, 2, 3, 4, 6, 7 or all"),
          size_log2: Optional[int] = typer.Option(
              None, "--size-log2", "-n",
              help="suite 1: log2 of the element count (default 24, quick 12); "
                   "suite 2: log2 of the image side (default 12, quick 8)"),
          rounds: Optional[int] = typer.Option(
              None, "--rounds", "-r", help=f"interleaved rounds (default {MIN_ROUNDS}, quick 1)"),
          calls: int = typer.Option(MIN_CALLS, "--calls",
                                    help="timed calls per measurement (the minimum is kept)"),
          quick: bool = typer.Option(False, "--quick",
                                     help="tiny sizes, 1 round, all in one process: a smoke "
                                          "test, not a measurement"),
          sweep: Optional[bool] = typer.Option(
              None, "--sweep/--no-sweep",
              help="a calibration round first picks each system's best schedule parameters "
                   "(suites 1 and 2; default: on, --quick: off); --no-sweep: the fixed "
                   "defaults"),
          processes: Optional[bool] = typer.Option(
              None, "--processes/--in-process",
              help="one worker process per column (default; --quick: in-process)"),
          bench_names: Optional[List[str]] = typer.Option(
              None, "--bench", "-b", help="only these benchmarks (repeatable)"),
          columns: Optional[List[str]] = typer.Option(
              None, "--column", "-c", help="only these column keys (repeatable), e.g. "
                                           "ph_rfactor, hl_rfactor, numba_prange, numpy, bound"),
          threads: Optional[int] = typer.Option(
              None, "--threads", "-t", help="threads of the parallel columns "
                                            f"({', '.join(THREAD_VARS)}); default: all cores"),
          output: Optional[str] = typer.Option(None, "--output", "-o",
                                               help="also write the report to this file"),
          json_path: Optional[str] = typer.Option(None, "--json",
                                                  help="write every per-round time, status "
                                                       "and note to this JSON file"),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress on stderr"),
          notes: Optional[List[str]] = typer.Option(
              None, "--note", help="a line for the report's header (repeatable), e.g. "
                                   "what else ran on the machine")):
    """Run the benchmark suites of PERFORMANCE.md side by side with NumPy, Numba and Halide 21 (peers not installed show n/a); print their tables."""
    if suite == "all":
        suites = ["suite1", "suite2", "suite3", "suite4"]
    elif suite in SUITES:
        suites = [SUITES[suite]]
    else:
        raise typer.BadParameter(f"--suite must be 1, 2, 3, 4, 6, 7 or all, not {suite!r}")
    if rounds is None:
        rounds = 1 if quick else MIN_ROUNDS
    if rounds < 1 or calls < 1:
        raise typer.BadParameter("--rounds and --calls must be positive")
    if not quick and (rounds < MIN_ROUNDS or calls < MIN_CALLS):
        typer.echo(f"note: fewer than {MIN_ROUNDS} rounds or {MIN_CALLS} calls is below the "
                   f"protocol of PERFORMANCE.md", err=True)
    threads = threads or os.cpu_count() or 1
    if processes is False or (processes is None and quick):
        # in-process: the thread knobs must be set before the libraries are imported
        for v in THREAD_VARS:
            os.environ.setdefault(v, str(threads))
    command = _command_line()
    raw: list = []
    with contextlib.nullcontext() if quiet else SuiteProgress() as progress:
        try:
            report = run(suites, size_log2=size_log2, rounds=rounds, calls=calls, quick=quick,
                         in_process=None if processes is None else not processes,
                         benches=bench_names, columns=columns, threads=threads,
                         command=command, progress=progress, raw=raw, sweep=sweep,
                         notes=notes or ())
        except ValueError as e:
            raise typer.BadParameter(str(e))
    typer.echo(report)
    if output:
        with open(output, "w") as f:
            f.write(report + "\n")
    if json_path:
        import json
        with open(json_path, "w") as f:
            json.dump({"command": command, "suites": raw}, f, indent=1, default=str)


app.command(cls=Command)(bench)


def main():
    app()
