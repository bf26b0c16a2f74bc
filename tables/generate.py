"""Table generation: enumerate, filter, prove, and collect the entries.

The work is split into tasks — (type, tuple size) for the enumeration, and
one task per type for the hand-written operators — run on a process pool.
Each task reports progress as (task, stage, done, total) tuples on a queue.
Results do not depend on the number of jobs or on task completion order.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pyhalide import ir

from . import handwritten
from .candidates import build_pool, pair_candidates, single_candidates
from .entry import TableEntry, count_leaves
from .prove import NOT_TRIED, PROVED, UNKNOWN, prove_operator
from .syntax import format_expr, type_from_name, type_name


@dataclass(frozen=True)
class Settings:
    max_leaves: int = 4             # single-element operators
    max_tuple_leaves: int = 4       # two-element operators (leaves of both elements)
    seed: int = 0


@dataclass
class TaskResult:
    task: tuple
    entries: list = field(default_factory=list)   # stored records (dicts)
    stats: Counter = field(default_factory=Counter)


def _prove_into(result: TaskResult, ops, types, leaves: int, origin: str, order=()):
    """Prove one operator; keep it if every claim could be decided."""
    v = prove_operator(ops, types)
    if v.associative != PROVED:
        result.stats[{UNKNOWN: "unknown (rlimit)", NOT_TRIED: "no identity"}.get(
            v.associative, "not associative")] += 1
        return False
    if not v.identity_side:
        result.stats["no identity"] += 1
        return False
    if v.commutative == UNKNOWN:
        result.stats["unknown (rlimit)"] += 1
        return False
    entry = TableEntry.from_ir(types, ops, v.identities, v.commutative == PROVED,
                               v.identity_side, leaves, origin)
    result.entries.append({**entry.to_record(), "_order": list(order)})
    result.stats["entries"] += 1
    return True


def run_task(task: tuple, settings: Settings, queue=None) -> TaskResult:
    """task = ("enum", type name, size) or ("hand", type name)."""
    def report(stage, done, total):
        if queue is not None:
            queue.put((task, stage, done, total))

    result = TaskResult(task)
    t = type_from_name(task[1])
    if task[0] == "enum":
        size = task[2]
        if size == 1:
            pool = build_pool(t, 1, settings.max_leaves, settings.seed, report)
            cands = list(single_candidates(pool, report))
        else:
            pool = build_pool(t, 2, settings.max_tuple_leaves - 2, settings.seed, report)
            cands = list(pair_candidates(pool, settings.max_tuple_leaves, settings.seed, report))
        result.stats["candidates"] = len(cands)
        for n, c in enumerate(cands):
            report(f"prove (size {size})", n, len(cands))
            _prove_into(result, c.ops, c.types, c.leaves, "generated", c.order)
    else:
        ops_list = handwritten.operators(t)
        for n, (types, ops) in enumerate(ops_list):
            report("prove hand-written", n, len(ops_list))
            if not _prove_into(result, ops, types, count_leaves(ops), "handwritten", (n,)):
                raise AssertionError(f"hand-written operator failed its proofs: "
                                     f"{[format_expr(o) for o in ops]} over {types} "
                                     f"({dict(result.stats)})")
    report("done", 1, 1)
    return result


def tasks_for(types, settings: Settings) -> list:
    """The tasks of a run over `types`, the costliest first."""
    out = []
    for t in types:
        name = type_name(t)
        out.append(("enum", name, 1))
        if settings.max_tuple_leaves >= 4:
            out.append(("enum", name, 2))
        out.append(("hand", name))
    weight = {"enum": 0, "hand": 1}
    return sorted(out, key=lambda k: (weight[k[0]], -ir.as_type(k[1]).bits, k))
