"""Progress of long commands (`tables generate|verify`, `bench`): a rich bar
with elapsed time and ETA on stderr when it is a terminal; otherwise plain
lines on stderr (bench) or nothing until the end (tables).

    run_tasks(fn, tasks, args, jobs, title, console=None) -> [result]

runs the tables' tasks on a process pool: each task runs `fn(task, *args,
queue)` and reports `(task, stage, done, total)` on the queue; the main
process draws one progress row per running task plus an overall row. With
jobs == 1 everything runs in-process."""
from __future__ import annotations

import multiprocessing as mp
import queue as queue_mod
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


def _label(task) -> str:
    return " ".join(str(p) for p in task)


def run_tasks(fn, tasks: list, args: tuple, jobs: int, title: str, console=None) -> list:
    """Results of fn over `tasks`, in the order of `tasks`."""
    with progress_bar(console) as progress:
        overall = progress.add_task(title, total=len(tasks))
        rows: dict = {}
        finished: set = set()

        def update(msg):
            task, stage, done, total = msg
            if task in finished:
                return
            if task not in rows:
                rows[task] = progress.add_task(_label(task), total=total)
            progress.update(rows[task], description=f"{_label(task)}: {stage}",
                            completed=done, total=max(total, 1))

        results = {}
        if jobs <= 1:
            q = _Direct(update)
            for task in tasks:
                results[task] = fn(task, *args, q)
                finished.add(task)
                progress.advance(overall)
                if task in rows:
                    progress.remove_task(rows.pop(task))
        else:
            with mp.Manager() as manager, mp.get_context("fork").Pool(jobs) as pool:
                q = manager.Queue()
                pending = {task: pool.apply_async(fn, (task, *args, q)) for task in tasks}
                while pending:
                    try:
                        update(q.get(timeout=0.2))
                    except queue_mod.Empty:
                        pass
                    for task in [t for t, r in pending.items() if r.ready()]:
                        results[task] = pending.pop(task).get()
                        finished.add(task)
                        progress.advance(overall)
                        if task in rows:
                            progress.remove_task(rows.pop(task))
        return [results[t] for t in tasks]


class _Direct:
    """A queue stand-in that updates the display immediately."""

    def __init__(self, update):
        self.update = update

    def put(self, msg):
        self.update(msg)
