"""Running tasks on a process pool with a rich progress display (with an
ETA, on stderr unless `console` says otherwise).

Each task runs `fn(task, *args, queue)`; the task reports `(task, stage,
done, total)` on the queue and the main process draws one progress row per
running task plus an overall row. With jobs == 1 everything runs in-process.
"""
from __future__ import annotations

import multiprocessing as mp
import queue as queue_mod

from pyhalide.cli_progress import progress_bar


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
