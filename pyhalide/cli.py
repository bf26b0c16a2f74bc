"""The `pyhalide` command line: show the IR of a pipeline at any stage,
manage the associative-operator tables, run the benchmarks."""
from __future__ import annotations

import importlib.util
import os
import sys
from typing import List, Optional

import typer

app = typer.Typer(help="pyhalide: Halide-style schedules and proven parallel reductions "
                       "for Python loops.", no_args_is_help=True, add_completion=False)

STAGES = ("defs", "rfactor", "loops", "final", "llvm", "llvm_opt", "asm")


def _load_target(spec: str):
    """FILE::NAME -> the object NAME defined at module level of FILE."""
    if "::" not in spec:
        raise typer.BadParameter(f"expected FILE::NAME, got {spec!r}")
    path, name = spec.rsplit("::", 1)
    if not os.path.exists(path):
        raise typer.BadParameter(f"no such file: {path}")
    mod_name = "_pyhalide_cli_" + os.path.splitext(os.path.basename(path))[0]
    spec_ = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec_)
    sys.modules[mod_name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec_.loader.exec_module(module)
    if not hasattr(module, name):
        names = sorted(n for n in vars(module) if not n.startswith("_"))
        raise typer.BadParameter(f"{path} defines no {name!r}; it defines: {', '.join(names)}")
    return getattr(module, name)


def _parse_arg_spec(text: str):
    """`img=uint8[4096,4096]` or `n=int64` -> (name, dtype, shape or None)."""
    import numpy as np
    if "=" not in text:
        raise typer.BadParameter(f"--args wants NAME=DTYPE[SHAPE], got {text!r}")
    name, rest = text.split("=", 1)
    shape = None
    if "[" in rest:
        rest, dims = rest.split("[", 1)
        shape = tuple(int(d) for d in dims.rstrip("]").split(",") if d.strip())
    return name.strip(), np.dtype(rest.strip()), shape


@app.command()
def lower(target: str = typer.Argument(..., help="FILE::NAME of a Func, a Pipeline or an "
                                                 "@pipeline function defined in FILE"),
          stage: str = typer.Option("final", help="one of: " + ", ".join(STAGES)),
          args: Optional[List[str]] = typer.Option(None, "--args",
                                                   help="argument types of an @pipeline "
                                                        "function, e.g. img=uint8[4096,4096]")):
    """Print the IR of TARGET at a lowering stage."""
    if stage not in STAGES:
        raise typer.BadParameter(f"unknown stage {stage!r}; choose one of {', '.join(STAGES)}")
    obj = _load_target(target)
    from .func import Func
    from .realize import Pipeline
    if isinstance(obj, Func):
        obj = Pipeline([obj])
    if isinstance(obj, Pipeline):
        text = obj.lower(stage="defs" if stage == "rfactor" else stage)
    elif hasattr(obj, "lower"):
        specs = [_parse_arg_spec(a) for a in (args or [])]
        text = obj.lower(stage=stage, arg_specs=specs)
    else:
        raise typer.BadParameter(f"{target} is a {type(obj).__name__}, not a Func, Pipeline or "
                                 f"@pipeline function")
    typer.echo(text.rstrip("\n"))


@app.command()
def assoc(expr: str = typer.Argument(..., help="the update's value over f (the previous value; "
                                          "f[0], f[1] for a tuple), r (the reduction index) and "
                                          "free names (inputs read at r), e.g. \"max(f, g)\""),
          type_: str = typer.Option("int32", "--type", help="element type, or one per tuple "
                                                           "element: --type int32,float32")):
    """Show the associative operator found for an update whose value is EXPR:
    operator, identity, commutativity, what each y stands for, search time."""
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
        from .tables.cli import app as tables_app
    except ImportError as e:      # the tables package reports its own problems
        @app.command(name="tables")
        def tables_missing():
            """Manage the associative-operator tables (unavailable)."""
            raise typer.Exit(f"pyhalide tables is unavailable: {e}")
        return
    app.add_typer(tables_app, name="tables",
                  help="Generate, verify, count and export the associative-operator tables.")


_mount_tables()

from .bench.cli import app as bench_app  # noqa: E402  (the benchmark suites, PERFORMANCE.md)
app.add_typer(bench_app, name="bench", help="Run the benchmark suites side by side with "
                                            "NumPy, Numba and Halide; print their tables.")


def main():
    app()


if __name__ == "__main__":
    main()
