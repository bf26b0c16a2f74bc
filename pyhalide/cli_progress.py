"""Progress of long commands (`tables generate|verify`, `bench`): a rich bar
with elapsed time and ETA on stderr when it is a terminal; otherwise plain
lines on stderr (bench) or nothing until the end (tables)."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def progress_bar(console: Console | None = None) -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    return Progress(*columns, console=console or Console(stderr=True), transient=False)


class SuiteProgress:
    """`progress(suite, text, done, total)` for bench.protocol.run_suite: one
    bar per suite on a terminal, else one line per step."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.bar = progress_bar(Console(file=self.stream)) if self.stream.isatty() else None
        self.rows: dict = {}

    def __enter__(self):
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, suite: str, text: str, done: int, total: int):
        if self.bar is None:
            print(f"{suite} {text} ({done}/{total} steps)", file=self.stream, flush=True)
            return
        if suite not in self.rows:
            self.rows[suite] = self.bar.add_task(suite, total=total)
        self.bar.update(self.rows[suite], description=f"{suite} {text}", completed=done,
                        total=total)
