"""`pyhalide lower FILE::NAME`: find what NAME is and make a Pipeline (or an
@pipeline specialization) of it.

NAME may be a module-level Func or Pipeline, an @pipeline function (its
argument types from --args), or a function that returns a Func, a Pipeline
or several Funcs (called with arguments made from --args: zero-filled arrays
of the given dtype and shape, NumPy scalars, or numbers).
"""
from __future__ import annotations

import importlib.util
import inspect
import os
import sys

import typer

ARGS_HELP = ("an argument of NAME: NAME=DTYPE[SHAPE] for an array (e.g. img=uint8[480,640]), "
             "NAME=DTYPE for a NumPy scalar, NAME=NUMBER for a Python number; repeat per "
             "argument")


def load_module(path: str):
    if not os.path.exists(path):
        raise typer.BadParameter(f"no such file: {path}", param_hint="FILE::NAME")
    mod_name = "_pyhalide_cli_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None:
        raise typer.BadParameter(f"{path} is not a Python file", param_hint="FILE::NAME")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    return module


def _kind(obj, module) -> str | None:
    """What `lower` can do with obj: 'pipeline', 'funcs', 'function' or None."""
    from .func import Func
    from .pipeline_function import PipelineFunction
    from .realize import Pipeline
    if isinstance(obj, PipelineFunction):
        return "pipeline"
    if isinstance(obj, (Func, Pipeline)):
        return "funcs"
    if inspect.isfunction(obj) and obj.__module__ == module.__name__:
        return "function"
    return None


def lowerable_names(module) -> list:
    return [n for n, v in vars(module).items() if not n.startswith("_") and _kind(v, module)]


def load_target(spec: str):
    """FILE::NAME -> (the object, its kind, FILE, NAME)."""
    if "::" not in spec:
        raise typer.BadParameter(f"expected FILE::NAME, got {spec!r}", param_hint="FILE::NAME")
    path, name = spec.rsplit("::", 1)
    module = load_module(path)
    names = ", ".join(lowerable_names(module)) or "nothing that can be lowered"
    if not hasattr(module, name):
        raise typer.BadParameter(f"{path} defines no {name!r}; names it defines that lower "
                                 f"takes: {names}", param_hint="FILE::NAME")
    obj = getattr(module, name)
    kind = _kind(obj, module)
    if kind is None:
        raise typer.BadParameter(
            f"{name} in {path} is a {type(obj).__name__}; lower takes a Func, a Pipeline, an "
            f"@pipeline function or a function returning Funcs. In {path}: {names}",
            param_hint="FILE::NAME")
    return obj, kind, path, name


def parse_arg(text: str):
    """`img=uint8[480,640]`, `n=int32` or `w=640` -> (name, dtype or None,
    shape or None, number or None)."""
    import numpy as np
    if "=" not in text:
        raise typer.BadParameter(f"expected NAME=DTYPE[SHAPE], NAME=DTYPE or NAME=NUMBER, got "
                                 f"{text!r}", param_hint="--args")
    name, rest = (s.strip() for s in text.split("=", 1))
    for number_type in (int, float):
        try:
            return name, None, None, number_type(rest)
        except ValueError:
            pass
    shape = None
    if "[" in rest:
        rest, dims = rest.split("[", 1)
        try:
            shape = tuple(int(d) for d in dims.rstrip("]").split(",") if d.strip())
        except ValueError:
            raise typer.BadParameter(f"the shape in {text!r} is not a list of integers",
                                     param_hint="--args") from None
    try:
        dtype = np.dtype(rest.strip().removeprefix("np."))
    except TypeError:
        raise typer.BadParameter(f"{rest.strip()!r} in {text!r} is not a NumPy dtype (e.g. "
                                 f"uint8, int32, float64)", param_hint="--args") from None
    return name, dtype, shape, None


def _arg_specs(parsed) -> list:
    """--args of an @pipeline: [(name, dtype, shape or None)]."""
    import numpy as np
    out = []
    for name, dtype, shape, number in parsed:
        if number is not None:
            dtype = np.dtype(np.int64 if isinstance(number, int) else np.float64)
        out.append((name, dtype, shape))
    return out


def _call(fn, name: str, parsed):
    """Call a Func-building function with arguments made from --args."""
    import numpy as np
    given = {}
    for arg, dtype, shape, number in parsed:
        if number is not None:
            given[arg] = number
        elif shape is not None:
            given[arg] = np.zeros(shape, dtype)
        else:
            given[arg] = dtype.type(0)
    params = inspect.signature(fn).parameters
    unknown = [a for a in given if a not in params]
    if unknown:
        raise typer.BadParameter(f"{name}({', '.join(params)}) has no argument "
                                 f"{unknown[0]!r}", param_hint="--args")
    missing = [p for p, v in params.items() if p not in given and v.default is v.empty
               and v.kind not in (v.VAR_POSITIONAL, v.VAR_KEYWORD)]
    if missing:
        example = " ".join(f"--args {p}=DTYPE[SHAPE]" for p in missing)
        raise typer.BadParameter(f"{name}({', '.join(params)}) is called to build its Funcs: "
                                 f"give {', '.join(missing)} with --args, e.g. {example} "
                                 f"(an array: uint16[1024,1536]; a number: 640)",
                                 param_hint="--args")
    return fn(**given)


def _outputs(funcs: list) -> list:
    """The Funcs of `funcs` that no other Func of `funcs` calls."""
    from .graph import collect_graph
    used = set()
    for f in funcs:
        env = collect_graph([f.function()]).env
        used |= {n for n in env if n != f.name()}
    return [f for f in funcs if f.name() not in used]


def as_pipeline(obj, name: str):
    from .func import Func
    from .realize import Pipeline
    if isinstance(obj, Pipeline):
        return obj
    if isinstance(obj, Func):
        return Pipeline([obj])
    if isinstance(obj, (tuple, list)) and obj and all(isinstance(f, Func) for f in obj):
        return Pipeline(_outputs(list(obj)))
    raise typer.BadParameter(f"{name}(...) returned a {type(obj).__name__}; lower wants a "
                             f"Func, a Pipeline or a tuple of Funcs", param_hint="FILE::NAME")


def lower_text(spec: str, stage: str, args: list) -> str:
    from .errors import CompileError
    parsed = [parse_arg(a) for a in args]
    obj, kind, _, name = load_target(spec)
    if kind == "pipeline":
        try:
            return obj.lower(stage=stage, arg_specs=_arg_specs(parsed))
        except CompileError as e:
            scalars = [a for a, (_, dt, shape, num) in zip(args, parsed)
                       if dt is not None and shape is None]
            if scalars:
                hint = (f"\n(--args {scalars[0]} gives a NumPy scalar; an array needs its "
                        f"shape, e.g. {scalars[0]}[480,640])")
                e.args = (e.args[0] + hint, *e.args[1:])
            raise
    if kind == "function":
        obj = _call(obj, name, parsed)
    elif parsed:
        raise typer.BadParameter(f"{name} is a {type(obj).__name__}, which takes no arguments",
                                 param_hint="--args")
    return as_pipeline(obj, name).lower(stage="defs" if stage == "rfactor" else stage)
