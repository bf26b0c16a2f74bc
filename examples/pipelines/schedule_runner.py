"""Shared by the @pipeline examples: call a pipeline with its side-file
schedule; when the schedule uses a directive this build does not have yet
(rfactor, ...), say so and run the serial schedule instead."""
from __future__ import annotations

import time

import pyhalide as ph

MISSING = (AttributeError, ImportError, NotImplementedError)


def run_scheduled(p, *args):
    """(result, the pipeline that ran (p, or p with the serial schedule),
    description of the schedule used, compile + first-run seconds)."""
    t0 = time.perf_counter()
    try:
        out = p(*args)
        used = p.applied_schedule or "serial (no side file)"
        return out, p, used, time.perf_counter() - t0
    except MISSING as e:
        print(f"  {p.__name__}: schedule skipped, a directive is missing in this build "
              f"({type(e).__name__}: {e}); running the serial schedule")
    except ph.CompileError as e:
        print(f"  {p.__name__}: schedule refused ({str(e).splitlines()[0]}); "
              f"running the serial schedule")
    serial = ph.pipeline(p.py_func, schedule="serial")
    t0 = time.perf_counter()
    out = serial(*args)
    return out, serial, "serial (fallback)", time.perf_counter() - t0


def best_time(fn, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)
