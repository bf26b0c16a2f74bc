"""The checked-in table files: tables/data/<type>.jsonl, one per scalar type.

A file holds the entries whose first value element has that type (argmin over
float32 values with an int32 index lives in float32.jsonl, in both tuple
orders). Lines starting with '#' are the header (it names the command that
regenerates the file); every other line is one JSON record (entry.py).
Records are ordered by tuple size, root node kind, leaf count (simplest first),
generated before hand-written, then enumeration order.
"""
from __future__ import annotations

import json
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"


def table_path(type_name: str, directory: Path | None = None) -> Path:
    return Path(directory or DATA_DIR) / f"{type_name}.jsonl"


def sort_key(record: dict) -> tuple:
    return (record["size"], record["root"], record["leaves"],
            record["origin"] != "generated", tuple(record.get("_order", ())))


def write_table(type_name: str, records: list, header: list, directory: Path | None = None) -> Path:
    """Write the sorted records (dropping the private `_order` key)."""
    path = table_path(type_name, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# {h}" for h in header]
    for r in sorted(records, key=sort_key):
        lines.append(json.dumps({k: v for k, v in r.items() if k != "_order"}))
    path.write_text("\n".join(lines) + "\n")
    return path


def read_records(path: Path) -> list:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip() and not line.startswith("#")]


def table_files(directory: Path | None = None) -> list:
    return sorted(Path(directory or DATA_DIR).glob("*.jsonl"))
