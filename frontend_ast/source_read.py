"""Reading a function's source: its definition parsed, with a map back to
the file (source.py rewrites it for @pipeline; inline_calls.py reads the
functions it inlines)."""
from __future__ import annotations

import ast
import inspect
import linecache
import textwrap

from .errors import FrontendError, SourceMap


def read_function(fn):
    """The function's definition parsed from its file: (ast.FunctionDef,
    SourceMap)."""
    try:
        file = inspect.getsourcefile(fn) or fn.__code__.co_filename
        src_lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise FrontendError(f"cannot read the source of {getattr(fn, '__name__', fn)!r}: {e}",
                            hint="@pipeline compiles the function's source: define it in a "
                                 "file (not in an interactive prompt or with exec)") from None
    raw = "".join(src_lines)
    dedented = textwrap.dedent(raw)
    indent = 0
    for a, b in zip(raw.splitlines(), dedented.splitlines()):
        if b.strip():
            indent = len(a) - len(b)
            break
    file_lines = linecache.getlines(file) or raw.splitlines(True)
    file_lines = [ln.rstrip("\n") for ln in file_lines]
    smap = SourceMap(file, file_lines, first, indent)
    try:
        module = ast.parse(dedented)
    except SyntaxError as e:      # pragma: no cover - the function was importable
        raise FrontendError(f"cannot parse the source of {fn.__name__}: {e}") from None
    tree = next((n for n in module.body
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if tree is None:
        raise FrontendError(f"cannot find the definition of {fn.__name__} in its source")
    if isinstance(tree, ast.AsyncFunctionDef):
        raise smap.error(tree, "async functions cannot be compiled",
                         hint="write a plain `def`")
    a = tree.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise smap.error(tree, "@pipeline functions take plain positional parameters only",
                         hint="remove *args, **kwargs and keyword-only parameters")
    return tree, smap
