"""Running the planner's blocks against a pipeline, and the schedule they
make as Python source.

Each block runs as Python (the same text `schedule_source()` prints) in one
namespace holding `p` and `ph`. A block that raises is undone — every
Function's definitions and schedules as they were before it — and the
pipeline keeps the schedule the earlier blocks made, so the automatic
scheduler never fails where the schedule before it worked."""
from __future__ import annotations

import copy

from ..ir.config import debug_print
from ..ir.function import copy_stage


class Applied:
    """What the automatic scheduler did: `source` (a module defining the
    schedule function), `blocks` applied and `refused` [(Block, error)]."""

    def __init__(self, name: str, header: str, blocks: list, refused: list):
        self.name = name
        self.blocks = blocks
        self.refused = refused
        self.source = schedule_source(name, header, blocks, refused)

    @property
    def schedule_source(self) -> str:
        return self.source

    def __repr__(self):
        return f"<automatic schedule of {self.name}: {len(self.blocks)} decisions>"


def run_blocks(name: str, blocks: list, namespace: dict, funcs: list, header: str = ""):
    """Apply the blocks in order (see the module docstring); returns Applied.
    A block whose `needs` was not applied is not run; a refused block's
    `fallback` (and its fallback's) is tried in its place."""
    applied, refused, done = [], [], set()
    for first in blocks:
        debug_print(1, f"autoschedule {name}: {first.reason}")
        b, error = first, None
        while b is not None:
            if b.needs is not None and id(b.needs) not in done:
                error = _NotApplied("the decision it builds on was not applied")
                debug_print(1, f"autoschedule {name}: not applied (it builds on a decision "
                               f"that was not applied)")
                break
            error = _run(name, b, namespace, funcs)
            if error is None:
                break
            b = b.fallback
            if b is not None:
                debug_print(1, f"autoschedule {name}: instead: {b.reason}")
        if error is None:
            applied.append(b)
            done.update((id(first), id(b)))
        else:
            refused.append((first, error))
    return Applied(name, header, applied, refused)


class _NotApplied(Exception):
    """Why a block was not run."""


def _run(name: str, b, namespace: dict, funcs: list):
    """Run block b's lines; None, or the error that undid them."""
    from ..func import Func
    if not b.lines:
        return None
    known = list(funcs) + [v for v in namespace.values() if isinstance(v, Func)]
    saved = _snapshot(known)
    try:
        exec(compile("\n".join(b.lines), f"<automatic schedule of {name}>", "exec"), namespace)
    except Exception as e:              # noqa: BLE001 - undone and reported, never raised
        _restore(saved)
        debug_print(1, f"autoschedule {name}: not applied ({type(e).__name__}: "
                       f"{str(e).splitlines()[0] if str(e) else ''}): kept as it was")
        return e
    return None


def _snapshot(funcs) -> list:
    out, seen = [], set()
    for f in funcs:
        fn = f.function()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        defs = ([fn.pure] if fn.pure is not None else []) + list(fn.updates)
        out.append((fn, fn.pure, list(fn.updates), copy.copy(fn.schedule),
                    [(d, copy_stage(d.schedule)) for d in defs]))
    return out


def _restore(saved: list):
    for fn, pure, updates, sched, defs in saved:
        fn.pure = pure
        fn.updates = updates
        fn.schedule = sched
        for d, s in defs:
            d.schedule = copy_stage(s)


def schedule_source(name: str, header: str, blocks: list, refused: list) -> str:
    """A module defining `name(p)`, the schedule the blocks made."""
    body = []
    for b in blocks:
        body.append(f"# {b.reason}")
        if b.auto_only:
            body.append("# (under schedule=\"auto\" only: the sum is split by the scheduler)")
        body += [f"# {line}" if b.auto_only else line for line in b.lines]
    for b, e in refused:
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        body.append(f"# not applied: {b.reason} ({first})")
    if not any(line and not line.startswith("#") for line in body):
        body.append("pass")
    doc = f'    """{header}"""\n' if header else ""
    return ("import pyhalide as ph\n\n\n"
            f"def {name}(p):\n{doc}" + "".join(f"    {line}\n" for line in body))
