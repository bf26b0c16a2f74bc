"""`pyhalide schedule FILE::NAME --args ... [--exact] [--write]`: the
automatic schedule of an @pipeline function for the size class of --args,
printed as the schedule function a user would write; --write saves it in the
side-file folder `<FILE>_schedules/` as the file of the running target
(replacing a function or `NAME = "auto"` of that name there)."""
from __future__ import annotations

import ast
import os
from typing import List, Optional

import typer

from .cli_lower import load_target, parse_arg


def example_args(fn, name: str, parsed) -> list:
    """Positional arguments of @pipeline `fn` made from --args: zero arrays
    of the given dtype and shape, NumPy scalars (one), numbers."""
    import inspect

    import numpy as np
    def value(dtype, shape, number):
        if number is not None:
            return number
        return dtype.type(1) if shape is None else np.zeros(shape, dtype)
    given = {arg: value(dtype, shape, number) for arg, dtype, shape, number in parsed}
    params = list(inspect.signature(fn).parameters)
    unknown = [a for a in given if a not in params]
    if unknown:
        raise typer.BadParameter(f"{name}({', '.join(params)}) has no argument "
                                 f"{unknown[0]!r}", param_hint="--args")
    missing = [p for p in params if p not in given]
    if missing:
        raise typer.BadParameter(f"the automatic schedule is planned for the sizes of the "
                                 f"arguments: give {', '.join(missing)} with --args, e.g. "
                                 f"--args {missing[0]}=float32[1024,1024]", param_hint="--args")
    return [given[p] for p in params]


def schedule_text(spec: str, args: list, exact: bool = False):
    """(the schedule source, FILE, NAME)."""
    obj, kind, path, name = load_target(spec)
    if kind != "pipeline":
        raise typer.BadParameter(f"{name} is not an @pipeline function; for Funcs, call "
                                 f"ph.Pipeline(outputs).apply_autoscheduler(params=...) after "
                                 f"set_estimates", param_hint="FILE::NAME")
    from .pipeline_function import pipeline
    values = example_args(obj.py_func, name, [parse_arg(a) for a in args])
    auto = pipeline(obj.py_func, schedule="auto-exact" if exact else "auto")
    auto.compile(*values)
    return auto.schedule_source(), path, name


def side_file_name(target) -> str:
    """The side file (frontend_ast/targets.py) of a target: its architecture
    and its widest vector feature."""
    base = f"{target.arch}-{target.bits}"
    for feature in ("avx512", "avx2", "avx", "sse41"):
        if feature in target.features:
            return f"{base}-{feature}.py"
    return base + ".py"


def write_side_file(source: str, script: str, name: str) -> str:
    """Save the schedule function `name` into the running target's side
    file beside `script`; returns its path."""
    from .frontend_ast.targets import running_target
    folder = os.path.splitext(os.path.abspath(script))[0] + "_schedules"
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, side_file_name(running_target()))
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(source)
        return path
    with open(path) as f:
        old = f.read()
    lines = old.splitlines(keepends=True)
    for node in reversed(ast.parse(old).body):
        targets = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
        if getattr(node, "name", None) == name or name in targets:
            del lines[node.lineno - 1:node.end_lineno]
    text = "".join(lines).rstrip("\n")
    body = source.split("\n\n\n", 1)[1]         # the function, without the import
    if "import pyhalide as ph" not in text:
        text = "import pyhalide as ph\n" + text
    with open(path, "w") as f:
        f.write(text + "\n\n\n" + body)
    return path


def command(target: str = typer.Argument(..., metavar="FILE::NAME",
                                         help="an @pipeline function NAME in FILE"),
            args: Optional[List[str]] = typer.Option(None, "--args", metavar="NAME=TYPE",
                                           help="an argument of NAME: NAME=DTYPE[SHAPE] for an "
                                                "array (its sizes choose the size class), "
                                                "NAME=NUMBER for a number; repeat per argument"),
            exact: bool = typer.Option(False, "--exact", help="never reassociate floats "
                                       "(schedule=\"auto-exact\")"),
            write: bool = typer.Option(False, "--write", help="save it as the side file of the "
                                       "running target in FILE's _schedules folder")):
    """Print the automatic schedule of an @pipeline function as a schedule function, e.g. pyhalide schedule examples/pipelines/paper_reductions.py::dot --args a=float32[1048576] --args b=float32[1048576]"""
    source, path, name = schedule_text(target, args or [], exact)
    typer.echo(source.rstrip("\n"))
    if write:
        typer.echo(f"# written to {write_side_file(source, path, name)}", err=True)
