"""Re-proving table entries: associativity, the claimed identity and its
side, and the commutativity claim (both ways: a `false` claim must be
refuted, not merely unproven)."""
from __future__ import annotations

from .entry import TableEntry
from .prove import PROVED, REFUTED, OperatorModel
from .store import read_records, table_path

_SIDES = {"both": (PROVED, PROVED), "left": (PROVED, REFUTED), "right": (REFUTED, PROVED)}


def check_entry(entry: TableEntry) -> list:
    """The claims of `entry` that do not hold (empty if all do)."""
    om = OperatorModel(entry.ops, entry.types)
    problems = []
    if om.associative() != PROVED:
        problems.append("associativity not proved")
    want_left, want_right = _SIDES[entry.identity_side]
    if om.is_identity(entry.identities, "left") != want_left:
        problems.append(f"left identity is not {want_left}")
    if om.is_identity(entry.identities, "right") != want_right:
        problems.append(f"right identity is not {want_right}")
    if om.commutative() != (PROVED if entry.commutative else REFUTED):
        problems.append(f"commutative={entry.commutative} does not hold")
    return problems


def verify_chunk(task: tuple, directory, queue=None) -> list:
    """task = (type name, first, last): check records first..last-1 of that
    type's table in `directory`; returns [(entry text, problems)] of failures."""
    name, first, last = task
    records = read_records(table_path(name, directory))
    failures = []
    for n, record in enumerate(records[first:last]):
        if queue is not None:
            queue.put((task, "verify", n, last - first))
        entry = TableEntry.from_record(record)
        problems = check_entry(entry)
        if problems:
            failures.append((f"{record['type']}: {entry}", problems))
    return failures
