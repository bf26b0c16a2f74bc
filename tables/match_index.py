"""The operator tables, indexed for matching.

Entries of one table file (one value type: the type of element 0) are
grouped by tuple size and by the skeletons of their elements, read from
their text (`match_text`); an index is built once per file and kept for the
process, and an entry is parsed only when it is a candidate. Where the entries come from is the `provider` (by default
`pyhalide.tables.load_table`); `using_tables(provider)` swaps it, for tests
and tools, and drops the cached indexes.

A *carried* element of an entry is one whose x_j and y_j occur only as the
branches of selects in its own operator (an argmin's index): the operator
moves those values around without looking at them, so the proofs hold for any
type of that element, and the entry may match a tuple whose element j has
another type (a float index, say), its identity converted to that type.
"""
from __future__ import annotations

import contextlib
import re

from pyhalide import ir

from .match_form import M, pattern_converter
from .match_text import text_skeleton


class IndexedEntry:
    """A table entry with its skeletons; its matching forms and carried
    elements are worked out on first use (from the parsed operator)."""

    def __init__(self, entry, skeletons: tuple, position: int):
        self.entry = entry               # TableEntry
        self.skeletons = skeletons       # one skeleton per element
        self.position = position         # order in the table (simplest first)
        self._patterns = None
        self._carried = None

    @property
    def patterns(self) -> tuple:
        """One M per element."""
        if self._patterns is None:
            conv = pattern_converter()
            self._patterns = tuple(conv(op) for op in self.entry.ops)
        return self._patterns

    @property
    def carried(self) -> frozenset:
        """Elements whose type may differ from the entry's."""
        if self._carried is None:
            self._carried = carried_elements(self.entry)
        return self._carried


def _uses(e, names: set) -> bool:
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, ir.Variable) and n.name in names:
            return True
        stack.extend(ir.children(n))
    return False


def _only_select_branches(e, names: set) -> bool:
    """Whether every occurrence of `names` in e is a select branch."""
    if isinstance(e, ir.Variable):
        return e.name not in names
    if isinstance(e, ir.Select):
        ok = not _uses(e.condition, names) and _only_select_branches(e.condition, names)
        for branch in (e.true_value, e.false_value):
            if not (isinstance(branch, ir.Variable) and branch.name in names):
                ok = ok and _only_select_branches(branch, names)
        return ok
    return all(_only_select_branches(c, names) for c in ir.children(e))


def _mentions(text: str, names) -> bool:
    return any(re.search(rf"\b{n}\b", text) for n in names)


def carried_elements(entry) -> frozenset:
    out = set()
    texts = tuple(entry.op_texts)
    uses_k = any(_mentions(t, ("k0",)) for t in texts + tuple(entry.identity_texts))
    for j in range(entry.size):
        names = (f"x{j}", f"y{j}")
        if (j == 0 and uses_k) or "select" not in texts[j]:
            continue
        if any(_mentions(t, names) for i, t in enumerate(texts) if i != j):
            continue
        if not isinstance(entry.identities[j], ir.Const):
            continue
        if _only_select_branches(entry.ops[j], set(names)):
            out.add(j)
    return frozenset(out)


class TableIndex:
    def __init__(self, entries):
        self.groups: dict = {}
        self.count = 0
        for pos, entry in enumerate(entries):
            skels = tuple(text_skeleton(t) for t in entry.op_texts)
            item = IndexedEntry(entry, skels, pos)
            self.groups.setdefault((entry.size, skels), []).append(item)
            self.count += 1

    def candidates(self, skeletons: tuple) -> list:
        return self.groups.get((len(skeletons), skeletons), [])


def _default_provider(t):
    from . import load_table
    return load_table(t)


_state = {"provider": _default_provider, "indexes": {}, "generation": 0}


def generation() -> int:
    """A number that changes whenever the tables matched against change (a
    cached answer is valid only for the generation it was found in)."""
    return _state["generation"]


def index_for(t: ir.Type) -> TableIndex:
    """The index of the table of value type `t` (built on first use)."""
    idx = _state["indexes"].get(t)
    if idx is None:
        idx = TableIndex(_state["provider"](t))
        _state["indexes"][t] = idx
    return idx


@contextlib.contextmanager
def using_tables(provider):
    """Match against `provider(t) -> [TableEntry]` inside the block."""
    saved = dict(_state)
    _state["provider"] = provider
    _state["indexes"] = {}
    _state["generation"] += 1
    try:
        yield
    finally:
        count = _state["generation"]
        _state.clear()
        _state.update(saved)
        _state["generation"] = count + 1


def pattern_types(item: IndexedEntry, actual: tuple) -> dict:
    """Wildcard name -> required type, for matching `item` against update
    elements of types `actual` (entry order); carried elements are free."""
    entry = item.entry
    out = {"k0": entry.types[0]}
    for j, t in enumerate(entry.types):
        if j not in item.carried:
            out[f"y{j}"] = t
    return out


def types_fit(item: IndexedEntry, actual: tuple) -> bool:
    return all(a == t or j in item.carried for j, (a, t) in enumerate(zip(actual, item.entry.types)))


def identity_as(c: ir.Expr, t: ir.Type) -> ir.Expr:
    """A carried element's identity constant in the element's actual type."""
    if c.type == t:
        return c
    v = c.value
    if t.is_float():
        return ir.Const(t, float(v))
    if t.is_bool():
        return ir.Const(t, bool(v))
    return ir.Const(t, int(v) if t.can_represent(int(v)) else 0)


__all__ = ["IndexedEntry", "TableIndex", "index_for", "using_tables", "generation", "pattern_types",
           "types_fit", "identity_as", "carried_elements", "M"]


def directory_provider(directory):
    """A provider reading the table files of `directory` (as written by
    `pyhalide tables generate --out DIR`)."""
    from pathlib import Path

    from .entry import TableEntry
    from .store import read_records, table_path
    from .syntax import type_name

    def provider(t):
        path = table_path(type_name(t), Path(directory))
        return [TableEntry.from_record(r) for r in read_records(path)] if path.exists() else []
    return provider
