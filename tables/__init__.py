"""pyhalide.tables: the associative-operator tables (offline synthesis by
enumeration, random testing and Z3 proofs; see docs/tables.md).

The public interface for the rfactor matcher:

    load_table(t, size=None, root=None) -> list[TableEntry]
    load_all() -> list[TableEntry]
    entry_to_dict(entry) -> dict          (the export JSON object)

Loading reads the shipped tables (tables/data) merged with the user's
generated ones (store.user_dir()); it reads only the JSON files (parsing of an entry's `ops` into IR happens
on first access), and z3 is not imported.
"""
from __future__ import annotations

from functools import lru_cache

from pyhalide import ir

from .entry import TableEntry, entry_to_dict
from .store import merged_records, table_names
from .syntax import type_name

__all__ = ["TableEntry", "load_table", "load_all", "entry_to_dict"]


@lru_cache(maxsize=None)
def _file_entries(name: str) -> tuple:
    """The shipped entries of a type, with the user's generated ones merged in."""
    return tuple(TableEntry.from_record(r) for r in merged_records(name))


def load_table(t, size: int | None = None, root: str | None = None) -> list:
    """Entries of the table of scalar type `t` (an ir.Type, or a tuple of
    types to get the entries over exactly those element types), optionally
    only those of tuple `size` and root node kind `root` (e.g. "Add",
    "Select"), simplest first."""
    if isinstance(t, (tuple, list)):
        types = tuple(ir.as_type(x) for x in t)
        pool = [e for name in dict.fromkeys(type_name(x) for x in types)
                for e in _file_entries(name) if e.types == types]
    else:
        pool = list(_file_entries(type_name(ir.as_type(t))))
    return [e for e in pool
            if (size is None or e.size == size) and (root is None or e.root == root)]


def load_all() -> list:
    """Every entry (shipped and the user's), table by table."""
    return [e for name in table_names() for e in _file_entries(name)]
