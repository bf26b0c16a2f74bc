"""What every `pyhalide` command shares: help without type tags, and user
errors reported as one located message instead of a traceback.

`Command` and `Group` are the typer classes of every command and command
group. Their help shows arguments by name (FILE::NAME, not `{target}`) and no
`<bool>`/`<str>` tags; running a command turns an exception into one line,
`Error: FILE:LINE: message`, located at the user's code when the error came
from it. `--debug` (an option of `pyhalide`) or PYHALIDE_DEBUG set to
anything but `0` shows the traceback instead.
"""
from __future__ import annotations

import inspect
import os
import re
import sysconfig
import traceback

import typer
from typer.core import TyperCommand, TyperGroup

try:                                   # typer >= 0.22 carries its own click
    from typer._click.exceptions import ClickException
except ImportError:
    from click.exceptions import ClickException

_state = {"debug": False}

# Exceptions that report a problem with the user's input or code, not a bug.
_USER_ERRORS = (ValueError, TypeError, IndexError, KeyError, LookupError, OSError,
                SyntaxError, ImportError, NameError, AttributeError, ArithmeticError,
                NotImplementedError)
_LOCATED = re.compile(r"^\S+:\d+(:\d+)?:")


def set_debug(on: bool) -> None:
    _state["debug"] = on


def debug_enabled() -> bool:
    return _state["debug"] or os.environ.get("PYHALIDE_DEBUG", "") not in ("", "0")


def _internal_roots() -> tuple:
    """Folders whose files are not the user's: pyhalide's packages (as
    pyhalide.source sees them), the standard library and installed packages."""
    from .source import INTERNAL_DIRS
    roots = {os.path.abspath(p) for key, p in sysconfig.get_paths().items()
             if key in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(INTERNAL_DIRS) + tuple(r.rstrip(os.sep) + os.sep for r in roots)


def _user_frame(tb):
    """(file, line) of the innermost frame of `tb` in the user's code, or None."""
    roots = _internal_roots()
    found = None
    for frame in traceback.extract_tb(tb):
        name = frame.filename
        if name.startswith("<") or os.path.abspath(name).startswith(roots):
            continue
        found = (name, frame.lineno)
    return found


def _raised_internally(tb) -> bool:
    frames = traceback.extract_tb(tb)
    return bool(frames) and os.path.abspath(frames[-1].filename).startswith(_internal_roots())


def error_message(e: BaseException) -> str:
    """One line: where (the user's file:line when known) and what."""
    from .ir.errors import CompileError
    if isinstance(e, SyntaxError) and e.filename and e.lineno:
        return f"{e.filename}:{e.lineno}: {e.msg}"
    text = str(e) if str(e) else type(e).__name__
    if isinstance(e, KeyError) and e.args:
        text = str(e.args[0])
    if not isinstance(e, (CompileError, *_USER_ERRORS)) and _raised_internally(e.__traceback__):
        return (f"internal error: {type(e).__name__}: {text} (please report it, with the "
                f"traceback that --debug shows)")
    if not isinstance(e, CompileError):
        text = f"{type(e).__name__}: {text}"
    where = _user_frame(e.__traceback__)
    if where is not None and not _LOCATED.match(text) and f"{where[0]}:" not in text:
        text = f"{where[0]}:{where[1]}: {text}"
    return text


def _plain_help(params) -> None:
    """Name options' values after the option (--stage STAGE) and show no type
    tags; flags show nothing after their names."""
    for p in params:
        if getattr(p, "param_type_name", "") == "argument":
            p.display_type_rich = lambda ctx: None     # the name says it all
        if p.metavar is not None:
            continue
        if getattr(p, "is_flag", False) or getattr(p, "count", False):
            p.metavar = ""
        else:
            p.metavar = max(p.opts, key=len).lstrip("-").upper()


def _reflow(text: str) -> str:
    """Paragraphs of a docstring as single lines (the help wraps them)."""
    return "\n\n".join(" ".join(par.split()) for par in inspect.cleandoc(text).split("\n\n"))


class _PlainHelp:
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.help:
            self.help = _reflow(self.help)

    def get_params(self, ctx):
        params = super().get_params(ctx)
        _plain_help(params)
        return params

    def collect_usage_pieces(self, ctx):
        pieces = [self.options_metavar] if self.options_metavar else []
        for p in self.get_params(ctx):
            if getattr(p, "param_type_name", "") == "argument":
                name = p.metavar or p.name.upper()
                pieces.append(name if p.required else f"[{name}]")
            else:
                pieces.extend(p.get_usage_pieces(ctx))
        return pieces


class Command(_PlainHelp, TyperCommand):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as e:
            if isinstance(e, ClickException) or debug_enabled():
                raise
            typer.echo(f"Error: {error_message(e)}", err=True)
            typer.echo("(pyhalide --debug COMMAND ... shows the traceback)", err=True)
            raise typer.Exit(1)


class Group(_PlainHelp, TyperGroup):
    def collect_usage_pieces(self, ctx):
        return super().collect_usage_pieces(ctx) + [self.subcommand_metavar]
