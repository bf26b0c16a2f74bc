"""`pyhalide tables ...`: generate, verify, stats and export the associative-operator
tables (pyhalide/tables/ does the work; this face runs it and reports)."""
from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.table import Table

from . import ir
from .cli_base import Command, Group
from .tables import store
from .tables.syntax import type_name

app = typer.Typer(cls=Group, help="The associative-operator tables: synthesis by enumeration, random "
                       "testing and Z3 proofs, re-verification, statistics and export.",
                  no_args_is_help=True, add_completion=False)
console = Console()

ALL_TYPES = [type_name(t) for t in ir.ALL_SCALAR_TYPES]
# The settings of the shipped tables (docs/tables.md has the measured run).
SHIPPED_MAX_LEAVES = 4


def _types(names: Optional[List[str]]) -> list:
    names = names or ALL_TYPES
    for n in names:
        if n not in ALL_TYPES:
            raise typer.BadParameter(f"unknown type {n!r}; choose from {', '.join(ALL_TYPES)}")
    return [ir.as_type(n) for n in names]


def regenerate_command(s) -> str:
    return (f"pyhalide tables generate --max-leaves {s.max_leaves} "
            f"--max-tuple-leaves {s.max_tuple_leaves} --seed {s.seed}")


@app.command(cls=Command)
def generate(
    types: Optional[List[str]] = typer.Option(None, "--types", help="Scalar types to generate "
                                              "(NumPy names; repeat the option). Default: all."),
    max_leaves: int = typer.Option(SHIPPED_MAX_LEAVES, help="Largest leaf count of enumerated "
                                   "single-element operators."),
    max_tuple_leaves: Optional[int] = typer.Option(None, help="Largest total leaf count of "
                                                   "enumerated two-element operators "
                                                   "(default: --max-leaves)."),
    seed: int = typer.Option(0, help="Seed of the random inputs (fingerprints and filter)."),
    jobs: int = typer.Option(2, help="Worker processes."),
    out: Optional[Path] = typer.Option(None, help="Output directory (default: the user's "
                                       "tables, $XDG_DATA_HOME/pyhalide/tables or "
                                       "~/.local/share/pyhalide/tables, which pyhalide loads "
                                       "merged with the shipped ones)."),
    in_place: bool = typer.Option(False, "--in-place", help="Rewrite the shipped tables "
                                  "(tables/data) instead."),
):
    """Enumerate operators, filter them on random inputs, prove them with Z3 and
    write one table per type."""
    from .cli_progress import run_tasks
    from .tables.generate import Settings, run_task, tasks_for

    if in_place and out is not None:
        raise typer.BadParameter("give --out DIR or --in-place, not both", param_hint="--out")
    out = store.DATA_DIR if in_place else out or store.user_dir()
    if out is None:
        raise typer.BadParameter("PYHALIDE_TABLES_DIR is empty (no user tables): give --out "
                                 "DIR or --in-place", param_hint="--out")
    settings = Settings(max_leaves, max_tuple_leaves or max_leaves, seed)
    type_list = _types(types)
    tasks = tasks_for(type_list, settings)
    start = time.time()
    results = run_tasks(run_task, tasks, (settings,), jobs, "generate")
    wall = time.time() - start
    summary = Table("type", "entries", "candidates", "not associative", "no identity",
                    "unknown (rlimit)", title=f"generated in {wall:.0f} s")
    for t in type_list:
        name = type_name(t)
        mine = [r for r in results if r.task[1] == name]
        stats = sum((r.stats for r in mine), Counter())
        records = [e for r in mine for e in r.entries]
        store.write_table(name, records, [
            f"Associative operators of {name} (pyhalide tables; format: docs/tables.md).",
            f"Regenerate with: {regenerate_command(settings)}" + (" --in-place" if in_place
                                                                   else ""),
            f"{len(records)} entries."], out)
        summary.add_row(name, str(len(records)), str(stats["candidates"]),
                        str(stats["not associative"]), str(stats["no identity"]),
                        str(stats["unknown (rlimit)"]))
    console.print(summary)
    where = "the shipped tables" if in_place else str(out)
    console.print(f"Written to {where}" + ("" if in_place or out != store.user_dir() else
                  "; pyhalide loads them merged with the shipped tables") +
                  f". Re-prove them with: pyhalide tables verify --dir {out}", highlight=False,
                  soft_wrap=True)     # a long path stays whole (copyable)


@app.command(cls=Command)
def verify(
    types: Optional[List[str]] = typer.Option(None, "--types", help="Tables to verify "
                                              "(default: all)."),
    jobs: int = typer.Option(2, help="Worker processes."),
    directory: Optional[Path] = typer.Option(None, "--dir", help="Table directory (default: "
                                             "the shipped tables)."),
):
    """Re-prove every entry: associativity, identity and its side, commutativity."""
    from .cli_progress import run_tasks
    from .tables.verify import verify_chunk

    tasks = []
    for t in _types(types):
        path = store.table_path(type_name(t), directory)
        if path.exists():
            n = len(store.read_records(path))
            tasks += [(path.stem, i, min(i + 40, n)) for i in range(0, n, 40)]
    results = run_tasks(verify_chunk, tasks, (directory,), jobs, "verify")
    failures = [f for r in results for f in r]
    total = sum(last - first for _, first, last in tasks)
    for text, problems in failures:
        console.print(f"[red]FAIL[/red] {text}: {'; '.join(problems)}")
    console.print(f"{total - len(failures)} of {total} entries verified.")
    if failures:
        raise typer.Exit(1)


@app.command(cls=Command)
def stats(
    directory: Optional[Path] = typer.Option(None, "--dir", help="Table directory (default: "
                                             "the shipped tables)."),
):
    """Entry counts per type, root node kind and tuple size."""
    table = Table("type", "size", "root", "entries", "commutative", "two-sided identity")
    totals = Counter()
    for path in store.table_files(directory):
        groups: dict = {}
        for r in store.read_records(path):
            groups.setdefault((r["size"], r["root"]), []).append(r)
        for (size, root), rs in sorted(groups.items()):
            table.add_row(path.stem, str(size), root, str(len(rs)),
                          str(sum(r["commutative"] for r in rs)),
                          str(sum(r["identity_side"] == "both" for r in rs)))
            totals[path.stem] += len(rs)
    console.print(table)
    console.print("total: " + ", ".join(f"{k} {v}" for k, v in totals.items())
                  + f" = {sum(totals.values())}")


@app.command(cls=Command)
def export(
    out: Optional[Path] = typer.Option(None, help="Output file (default: standard output)."),
    directory: Optional[Path] = typer.Option(None, "--dir", help="Table directory (default: "
                                             "the shipped tables)."),
    synthesized: bool = typer.Option(False, "--synthesized", help="Export the operators "
                                     "synthesized at compile time (those cached in the cache "
                                     "directory, PYHALIDE_CACHE_DIR) instead of the tables."),
):
    """Write every entry as one JSON object per line (format: docs/tables.md)."""
    from .tables.entry import TableEntry

    if synthesized:
        from .tables.synth_cache import cached_entries
        lines = [json.dumps(e.to_dict()) for e in cached_entries()]
    else:
        lines = [json.dumps(TableEntry.from_record(r).to_dict())
                 for path in store.table_files(directory) for r in store.read_records(path)]
    text = "\n".join(lines) + "\n"
    if out is None:
        typer.echo(text, nl=False)
    else:
        out.write_text(text)
        console.print(f"{len(lines)} entries written to {out}", highlight=False)


if __name__ == "__main__":
    app()
