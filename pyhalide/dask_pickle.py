"""Pickling a @pipeline function for Dask workers: by its definition (the
Python function, its source text and its schedule), never by compiled code.

The definition is serialized once per PipelineFunction (and again only when
its schedule changes): every task that carries the function then pickles a
digest and those bytes, a copy, not a new walk of the source and the code.
A process that unpickles the same definition twice (every task of a graph
carries it) gets one PipelineFunction from the digest alone, so its compiled
specializations (and pyhalide.dask's plans) are reused."""
from __future__ import annotations

import hashlib
import inspect
import linecache
import threading

_lock = threading.Lock()
_restored: dict = {}            # definition digest -> PipelineFunction


def pipeline_state(pf) -> tuple:
    """(digest, pickled definition) of pf, made once per schedule."""
    schedule = (pf.schedule_argument, pf.registered_schedule)
    cached = pf.__dict__.get("_dask_state")
    if cached is not None and cached[0][0] is schedule[0] and cached[0][1] is schedule[1]:
        return cached[1]
    import cloudpickle
    fn = pf.py_func
    filename = fn.__code__.co_filename
    lines = linecache.getlines(filename, fn.__globals__)
    source = "".join(inspect.getsourcelines(fn)[0])
    blob = cloudpickle.dumps((fn, filename, lines, schedule[0], schedule[1]))
    digest = hashlib.sha256("\0".join([fn.__module__, fn.__qualname__, filename,
                                       source]).encode() + blob).hexdigest()
    state = (digest, blob)
    pf.__dict__["_dask_state"] = (schedule, state)
    _restored.setdefault(digest, pf)
    return state


def restore_pipeline(state):
    """The PipelineFunction of a pickled state (see pipeline_state)."""
    import pickle

    from .pipeline_function import PipelineFunction
    digest, blob = state
    with _lock:
        pf = _restored.get(digest)
        if pf is None:
            fn, filename, lines, schedule, registered = pickle.loads(blob)
            if fn.__code__.co_filename != filename:
                # pickled by value, the code lost its file name (cloudpickle)
                fn.__code__ = fn.__code__.replace(co_filename=filename)
            if lines and not linecache.getlines(filename):
                # the source file is not on this machine: its text came along
                linecache.cache[filename] = (sum(map(len, lines)), None, list(lines), filename)
            pf = PipelineFunction(fn, schedule=schedule)
            if registered is not None:
                pf.schedule(registered)
            pf.__dict__["_dask_state"] = ((schedule, registered), state)
            _restored[digest] = pf
    return pf
