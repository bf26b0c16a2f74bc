"""Objects of the hand-written runtimes compiled ahead, on a thread of their own.

    start(jobs) -> None        jobs: [(name, ir_text)]
    compile_here(jobs) -> None
    take(name) -> bytes | None
    enabled() -> bool          whether start() starts anything

A process's first compile loads up to three runtimes, each compiled by LLVM
when first needed (15-25 ms each, disk cache off): the native entry
trampoline (native_entry.py, when the Kernel is made), the parallel runtime
(parallel_runtime.py, when a kernel with parallel loops is loaded) and the
SIGINT handler (interrupt.py, at the first call). pipeline.lower starts
the first and the last when they are not loaded yet, jit.compile_pipeline
the parallel runtime (and any still not started) before its code
generation: lowering and code generation are Python on one core, and a
daemon thread per start() compiles its jobs in order
(llvm_objects.runtime_object, unlocked: a context, a target machine of its
own) on another core, and each runtime's loader takes its object from
here, waiting for it when the thread is still at it. take() gives None for
a name not started in this process (a forked child starts its own) or whose
compile failed (the loader compiles it again and reports the error). Each
object is taken once.
"""
from __future__ import annotations

import os
import sys
import threading

from pyhalide.ir.config import config
from pyhalide.ir.forksafe import fresh_in_child

from .llvm_objects import runtime_object
from .target import init_llvm

__all__ = ["start", "compile_here", "take", "enabled"]

_jobs: dict = {}          # name -> {"pid", "done": Event, "object": bytes | None}
_guard = fresh_in_child(sys.modules[__name__], "_guard")


def enabled() -> bool:
    """Whether a core is likely idle for the thread: config.num_threads of at
    least 2 and a 1-minute load average of at most the core count less a
    half (the compiling process itself counts one; `pyhalide bench`'s quiet
    runs start at a load of about 1.2 on 2 cores). On a busy machine the thread
    takes a core from the compile: at load 8-9 on 2 cores the first compiles
    of suite 4 took 10-40 ms longer with it, though the compiling thread's
    own CPU time went down by 20-40 ms (kernels with parallel loops) and
    5-10 ms (the others)."""
    cores = os.cpu_count() or 1
    workers = config.num_threads if isinstance(config.num_threads, int) else 1
    if cores < 2 or workers < 2:
        return False
    try:
        return os.getloadavg()[0] <= cores - 0.5
    except OSError:
        return False


def _claim(jobs) -> list:
    """The jobs not under way in this process, now registered as under way."""
    pid = os.getpid()
    with _guard:
        todo = [(n, text) for n, text in jobs
                if n not in _jobs or _jobs[n]["pid"] != pid]
        for n, _ in todo:
            _jobs[n] = {"pid": pid, "done": threading.Event(), "object": None}
    return todo


def _compile(todo) -> None:
    for n, text in todo:
        job = _jobs[n]
        try:
            job["object"] = runtime_object(text, n, unlocked=True)
        except Exception:       # the loader compiles it again, reporting the error
            pass
        finally:
            job["done"].set()


def start(jobs) -> None:
    """Compile the (name, ir_text) `jobs` not under way in this process, in
    order, on a daemon thread of their own (when enabled())."""
    if not jobs or not enabled():
        return
    todo = _claim(jobs)
    if not todo:
        return
    init_llvm()           # (LLVM's targets once, from this thread)
    try:
        threading.Thread(target=_compile, args=(todo,), name="pyhalide-runtime-compile",
                         daemon=True).start()
    except RuntimeError:  # no thread to be had: the loaders compile them
        for n, _ in todo:
            _jobs[n]["done"].set()


def compile_here(jobs) -> None:
    """Compile the `jobs` not under way in the calling thread, for take():
    a compile thread of jit._compile_object that has no part left to do
    while another still works (no thread of its own: no core taken from
    the compile)."""
    todo = _claim(jobs)
    if todo:
        _compile(todo)


def take(name: str):
    """The object of runtime `name` compiled by start() or compile_here() in this process
    (waiting for it), or None; either way the job is forgotten."""
    with _guard:
        job = _jobs.get(name)
        if job is None or job["pid"] != os.getpid():
            return None
    job["done"].wait()
    with _guard:
        if _jobs.get(name) is job:
            del _jobs[name]
    return job["object"]
