"""CompileError for @pipeline code: file:line:col, the source line with a
caret under the offending code, and a hint of what to write instead."""
from __future__ import annotations

import ast

from pyhalide.errors import CompileError

from .names import user_name


class FrontendError(CompileError):
    """A CompileError located in the decorated function's source."""

    def __init__(self, message: str, loc=None, hint: str = ""):
        # names of an inlined helper's locals, as the user wrote them
        message, hint = user_name(message), user_name(hint)
        self.reason = message
        self.loc = loc
        self.hint = hint
        super().__init__(format_message(message, loc, hint))


def format_message(message: str, loc, hint: str = "") -> str:
    if loc is None:
        return message + (f"\n  hint: {hint}" if hint else "")
    lines = [f"{loc.file}:{loc.line}:{loc.col + 1}: {message}"]
    if loc.text:
        text = loc.text.rstrip("\n")
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        width = max(1, min(loc.width, len(text) - loc.col) if loc.width else 1)
        lines.append("    " + stripped)
        lines.append("    " + " " * max(0, loc.col - indent) + "^" * width)
    if hint:
        lines.append(f"  hint: {hint}")
    return "\n".join(lines)


class Loc:
    """file, 1-based line, 0-based column, the source line, width of the
    highlighted code."""

    __slots__ = ("file", "line", "col", "text", "width")

    def __init__(self, file, line, col, text="", width=1):
        self.file, self.line, self.col, self.text, self.width = file, line, col, text, width

    def __str__(self):
        return f"{self.file}:{self.line}:{self.col + 1}"

    def __repr__(self):
        return f"Loc({self})"


# An AST node that a rewrite (frontend_ast/rewrites.py) took from another
# function's source carries that function's SourceMap in this attribute.
ORIGIN_ATTR = "_pyhalide_smap"


class SourceMap:
    """Maps AST nodes of the dedented function source to the file (a node
    carrying ORIGIN_ATTR is mapped by the SourceMap it names)."""

    def __init__(self, file: str, lines: list, first_line: int, indent: int):
        self.file = file
        self.lines = lines            # the file's lines (for the caret)
        self.first_line = first_line  # line of the function's first source line
        self.indent = indent          # columns removed by dedent

    def loc(self, node) -> Loc | None:
        if node is None or not hasattr(node, "lineno"):
            return None
        other = getattr(node, ORIGIN_ATTR, None)
        if other is not None and other is not self:
            return other.loc(node)
        line = node.lineno + self.first_line - 1
        col = node.col_offset + self.indent
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        width = 1
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        if end_line == node.lineno and end_col is not None:
            width = max(1, end_col - node.col_offset)
        elif end_col is not None:
            width = max(1, len(text.rstrip()) - col)
        return Loc(self.file, line, col, text, width)

    def error(self, node, message: str, hint: str = "") -> FrontendError:
        return FrontendError(message, self.loc(node), hint)


def describe(node) -> str:
    """Short source text of a node, for messages."""
    try:
        s = ast.unparse(node)
    except Exception:       # pragma: no cover
        return type(node).__name__
    return s if len(s) <= 60 else s[:57] + "..."
