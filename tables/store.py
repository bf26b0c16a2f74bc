"""The table files: tables/data/<type>.jsonl, one per scalar type, shipped
with pyhalide, and the user's generated tables (`pyhalide tables generate`
writes them to `user_dir()`), which loading merges with the shipped ones.

A file holds the entries whose first value element has that type (argmin over
float32 values with an int32 index lives in float32.jsonl, in both tuple
orders). Lines starting with '#' are the header (it names the command that
regenerates the file); every other line is one JSON record (entry.py).
Records are ordered by tuple size, root node kind, leaf count (simplest first),
generated before hand-written, then enumeration order.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"


def user_dir() -> Path | None:
    """The user's table directory: $PYHALIDE_TABLES_DIR (empty or `0`: none),
    else $XDG_DATA_HOME/pyhalide/tables, else ~/.local/share/pyhalide/tables."""
    env = os.environ.get("PYHALIDE_TABLES_DIR")
    if env is not None:
        return None if env in ("", "0") else Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return Path(base) / "pyhalide" / "tables"


def record_key(record: dict) -> tuple:
    """What makes two records the same operator."""
    return json.dumps([record["type"], record["size"], record["ops"]])


def merged_records(type_name: str) -> list:
    """The shipped records of a type, then the user's records that are not
    shipped, in table order (a user table adds entries, never drops one)."""
    shipped = table_path(type_name)
    records = read_records(shipped) if shipped.exists() else []
    mine = user_dir()
    if mine is not None and (mine / shipped.name).exists() and mine.resolve() != DATA_DIR:
        seen = {record_key(r) for r in records}
        records += [r for r in read_records(mine / shipped.name) if record_key(r) not in seen]
    return sorted(records, key=sort_key)


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


def table_names() -> list:
    """Type names of the shipped and the user's tables."""
    dirs = [DATA_DIR] + ([user_dir()] if user_dir() is not None else [])
    return sorted({p.stem for d in dirs for p in table_files(d)})
