"""Pickling a @pipeline function for Dask workers: by its definition (the
Python function, its source text and its schedule), never by compiled code.
A worker that unpickles the same function twice gets one PipelineFunction,
so its compiled specializations (and pyhalide.dask's plans) are reused."""
from __future__ import annotations

import hashlib
import inspect
import linecache
import threading

_lock = threading.Lock()
_restored: dict = {}            # definition digest -> PipelineFunction


def pipeline_state(pf) -> tuple:
    fn = pf.py_func
    filename = fn.__code__.co_filename
    lines = linecache.getlines(filename, fn.__globals__)
    source = "".join(inspect.getsourcelines(fn)[0])
    digest = hashlib.sha256("\0".join([fn.__module__, fn.__qualname__, filename,
                                       source]).encode()).hexdigest()
    return (digest, fn, filename, lines, pf.schedule_argument, pf.registered_schedule)


def restore_pipeline(state):
    """The PipelineFunction of a pickled state (see pipeline_state)."""
    from .pipeline import PipelineFunction
    digest, fn, filename, lines, schedule, registered = state
    with _lock:
        pf = _restored.get(digest)
        if pf is None:
            if fn.__code__.co_filename != filename:
                # pickled by value, the code lost its file name (cloudpickle)
                fn.__code__ = fn.__code__.replace(co_filename=filename)
            if lines and not linecache.getlines(filename):
                # the source file is not on this machine: its text came along
                linecache.cache[filename] = (sum(map(len, lines)), None, list(lines), filename)
            pf = PipelineFunction(fn, schedule=schedule)
            if registered is not None:
                pf.schedule(registered)
            _restored[digest] = pf
    return pf
