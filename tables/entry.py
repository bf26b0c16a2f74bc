"""TableEntry: one proven associative operator, and its record/export forms.

A stored record is the export object (keys `type size root ops identities
commutative identity_side`) plus `leaves` (the leaf count, for the quick-mode
subset) and `origin` ("generated" or "handwritten"). `ops` and `identities`
are kept as text and parsed into IR on first use, so loading a table is cheap.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from pyhalide import ir

from . import grammar
from .grammar import walk
from .syntax import format_expr, parse_expr, type_from_name, type_name

EXPORT_KEYS = ("type", "size", "root", "ops", "identities", "commutative", "identity_side")


@dataclass(frozen=True, eq=False)
class TableEntry:
    """An operator f(x, y) = ops over x0.. (partial result), y0.. (new value)
    and the constant k0 (of the type of element 0), with the identity tuple
    `identities` on `identity_side` ("left": f(id, v) == v; "right":
    f(v, id) == v; "both")."""

    types: tuple
    op_texts: tuple
    identity_texts: tuple
    commutative: bool
    identity_side: str
    root: str
    leaves: int
    origin: str = "generated"

    @property
    def size(self) -> int:
        return len(self.types)

    @cached_property
    def variables(self) -> dict:
        return grammar.variables(self.types)

    @cached_property
    def ops(self) -> tuple:
        return tuple(parse_expr(s, self.variables, t) for s, t in zip(self.op_texts, self.types))

    @cached_property
    def identities(self) -> tuple:
        return tuple(parse_expr(s, self.variables, t)
                     for s, t in zip(self.identity_texts, self.types))

    # ---- construction and (de)serialization ------------------------------
    @classmethod
    def from_ir(cls, types, ops, identities, commutative: bool, identity_side: str,
                leaves: int, origin: str = "generated") -> "TableEntry":
        return cls(tuple(types), tuple(format_expr(e) for e in ops),
                   tuple(format_expr(e) for e in identities), bool(commutative),
                   identity_side, root_kind(ops), leaves, origin)

    def to_dict(self) -> dict:
        """The export object (exactly the keys of EXPORT_KEYS)."""
        names = [type_name(t) for t in self.types]
        return {"type": names[0] if self.size == 1 else names, "size": self.size,
                "root": self.root, "ops": list(self.op_texts),
                "identities": list(self.identity_texts), "commutative": self.commutative,
                "identity_side": self.identity_side}

    def to_record(self) -> dict:
        return {**self.to_dict(), "leaves": self.leaves, "origin": self.origin}

    @classmethod
    def from_record(cls, d: dict) -> "TableEntry":
        names = d["type"] if isinstance(d["type"], list) else [d["type"]] * d["size"]
        return cls(tuple(type_from_name(n) for n in names), tuple(d["ops"]),
                   tuple(d["identities"]), d["commutative"], d["identity_side"], d["root"],
                   d.get("leaves", 0), d.get("origin", "generated"))

    def __str__(self) -> str:
        ops = ", ".join(self.op_texts)
        return ops if self.size == 1 else "{" + ops + "}"


def entry_to_dict(entry: TableEntry) -> dict:
    """The export JSON object of an entry."""
    return entry.to_dict()


def root_kind(ops) -> str:
    """The node kind of the first element's root (the key the matcher splits on)."""
    e = ops[0]
    if isinstance(e, ir.Call):
        return e.name
    return type(e).__name__


def count_leaves(ops) -> int:
    """Variables and constants in all elements of `ops`."""
    return sum(isinstance(n, (ir.Variable, ir.Const)) for e in ops for n in walk(e))
