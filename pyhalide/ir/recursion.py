"""Room for deep expressions. pyhalide's IR walks recurse once per level of an
expression, so a long chain (a sum of thousands of terms, a value updated by
thousands of statements) needs more Python frames than the interpreter's
default limit of 1000. The limit is raised only while pyhalide works on a
program, never for the whole process: importing pyhalide leaves
`sys.getrecursionlimit()` unchanged.

    with deep_recursion(): ...   the limit is at least RECURSION_LIMIT inside;
                                 re-entrant and thread-safe (the limit is the
                                 interpreter's, so it is raised while any
                                 thread is inside and restored when the last
                                 one leaves, unless the program changed it
                                 meanwhile)
    @deep_entry                  a function run inside deep_recursion(), where a
                                 RecursionError becomes a CompileError naming
                                 the limit

A program deeper than the limit allows is a CompileError, never a
RecursionError. Since Python 3.11 a Python-to-Python call takes no C stack,
so the limit can be high; a recursion that passes through a C function at
every level (a generator consumed by all(), a `with` block's __enter__) does
take C stack, and the walks' use of those stays far below the 8 MB a thread
gets on Linux at this depth. Python 3.10 puts every frame on the C stack: the
limit there stays near the one pyhalide used to set for the whole process.
"""
from __future__ import annotations

import functools
import os
import sys
import threading

from .errors import CompileError

# Python frames while pyhalide compiles: an expression about 20000 levels deep
# (each level takes 3 to 5 frames of the deepest walk, the simplifier's).
RECURSION_LIMIT = 100_000 if sys.version_info >= (3, 11) else 20_000

_lock = threading.Lock()
_users = 0          # threads inside deep_recursion()
_saved = 0          # the limit when the first of them entered
_ours = 0           # the limit set for them


class deep_recursion:
    """Context manager: the interpreter's recursion limit is at least
    RECURSION_LIMIT inside (see the module docstring)."""

    __slots__ = ()

    def __enter__(self):
        global _users, _saved, _ours
        with _lock:
            if _users == 0:
                _saved = sys.getrecursionlimit()
                if _saved < RECURSION_LIMIT:
                    sys.setrecursionlimit(RECURSION_LIMIT)
                _ours = sys.getrecursionlimit()
            _users += 1
        return self

    def __exit__(self, *exc):
        global _users
        with _lock:
            _users -= 1
            if _users == 0:
                _restore()
        return False


def _restore():
    """Put back the limit saved on entry, unless the program set another."""
    if sys.getrecursionlimit() == _ours:
        sys.setrecursionlimit(_saved)


def too_deep() -> CompileError:
    return CompileError(
        f"the program's expressions are nested too deeply to compile: pyhalide walks "
        f"them recursively and stopped at {RECURSION_LIMIT} Python frames (roughly "
        f"{RECURSION_LIMIT // 5} levels of nesting). Compute part of the expression in a "
        f"separate Func (e.g. partial sums of a few thousand terms each), or write a long "
        f"sum as a reduction over an RDom")


def deep_entry(fn):
    """`fn` run inside deep_recursion(); a RecursionError inside it is a
    CompileError (too_deep)."""
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        with deep_recursion():
            try:
                return fn(*args, **kw)
            except RecursionError:
                raise too_deep() from None
    return wrapper


def _after_fork_in_child():
    """The threads that were inside are gone in a forked child: a fresh lock,
    no users, and the limit they raised put back."""
    global _lock, _users
    _lock = threading.Lock()
    if _users:
        _users = 0
        _restore()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
