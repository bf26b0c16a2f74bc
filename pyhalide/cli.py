"""The `pyhalide` command line: show the IR of a pipeline at any stage,
manage the associative-operator tables, run the benchmarks."""
from __future__ import annotations

from typing import List, Optional

import typer

from .cli_base import Command, Group, set_debug
from .cli_lower import ARGS_HELP

app = typer.Typer(cls=Group, help="pyhalide: Halide-style schedules and proven parallel "
                  "reductions for Python loops.", no_args_is_help=True, add_completion=False,
                  pretty_exceptions_show_locals=False)

STAGES = ("defs", "rfactor", "loops", "final", "llvm", "llvm_opt", "asm")


@app.callback()
def _options(debug: bool = typer.Option(False, "--debug", help="show the traceback of an "
                                        "error (as does PYHALIDE_DEBUG=1)")):
    set_debug(debug)


@app.command(cls=Command)
def lower(target: str = typer.Argument(..., metavar="FILE::NAME",
                                       help="NAME in FILE: a Func or Pipeline, an @pipeline "
                                            "function, or a function returning a Func, a "
                                            "Pipeline or Funcs (called with --args)"),
          stage: str = typer.Option("final", help="one of: " + ", ".join(STAGES)),
          args: Optional[List[str]] = typer.Option(None, "--args", metavar="NAME=TYPE",
                                                   help=ARGS_HELP)):
    """Print the IR of NAME at a lowering stage, e.g. pyhalide lower examples/blur.py::blur --args 'image=uint16[1024,1536]' --stage loops"""
    if stage not in STAGES:
        raise typer.BadParameter(f"unknown stage {stage!r}; choose one of {', '.join(STAGES)}",
                                 param_hint="--stage")
    from .cli_lower import lower_text
    typer.echo(lower_text(target, stage, args or []).rstrip("\n"))


@app.command(cls=Command)
def assoc(expr: str = typer.Argument(..., metavar="EXPR", help="the update's value over f (the previous value; "
                                          "f[0], f[1] for a tuple), r (the reduction index) and "
                                          "free names (inputs read at r), e.g. \"max(f, g)\""),
          type_: str = typer.Option("int32", "--type", help="element type, or one per tuple "
                                                           "element: --type int32,float32")):
    """Show the associative operator found for an update whose value is EXPR: operator, identity, commutativity, what each y stands for, search time."""
    from .associativity_cli import explain
    try:
        text, ok = explain(expr, type_)
    except (SyntaxError, ValueError, TypeError) as e:
        raise typer.BadParameter(str(e))
    typer.echo(text)
    if not ok:
        raise typer.Exit(1)


def _mount_tables():
    try:
        from .cli_tables import app as tables_app
    except ImportError as e:      # the tables package reports its own problems
        reason = str(e)           # (`e` is unbound once the except block ends)

        @app.command(name="tables", cls=Command)
        def tables_missing():
            """Manage the associative-operator tables (unavailable)."""
            raise typer.Exit(f"pyhalide tables is unavailable: {reason}")
        return
    app.add_typer(tables_app, name="tables",
                  help="Generate, verify, count and export the associative-operator tables.")


_mount_tables()

from .cli_schedule import command as schedule  # noqa: E402  (automatic schedules)

app.command(name="schedule", cls=Command)(schedule)
from .bench.cli import bench  # noqa: E402  (the benchmark suites, PERFORMANCE.md)

app.command(name="bench", cls=Command, help="Run the benchmark suites side by side with NumPy, "
            "Numba and Halide; print their tables.")(bench)


def main():
    app()


if __name__ == "__main__":
    main()
