"""The tuning mode of the automatic scheduler: `AutoschedulerParams(...,
{"tune": "K"})` given as a @pipeline's schedule times up to K candidate
schedules on the arguments of the first call of a size class and keeps the
fastest.

A candidate is the plan made with one of CANDIDATES (params.Knobs): each
knob is a choice that cannot change a result (parallel thresholds, stencil
strips, vectors, the chunks of integer reductions), so every candidate
reassociates floats exactly as the untuned schedule does; their results are
compared bit for bit anyway, and one that differs is dropped (and said at
PYHALIDE_DEBUG=1). Candidates whose schedule source is the same as an
earlier one's are not timed again. Each is run once (compiling it), then
timed REPEATS times (the minimum counts) on the call's arguments, or on
copies of them, with their layout, when the function writes into them.

The winner's Knobs are cached on disk (lowering/disk_cache.py: its trust
rules, an entry made for another key, version or target is a miss) under a
key of the function's source, the argument key, the size class, the
parameters and the target; a later process planning the same size class
builds the winner directly, without timing."""
from __future__ import annotations

import ast
import hashlib
import json
import time

import numpy as np

from ..errors import CompileError
from ..ir.config import config, debug_print
from .params import Knobs

CANDIDATES = (
    Knobs(),                              # the untuned plan, first
    Knobs(int_chunks=8),
    Knobs(int_chunks=128),
    Knobs(parallel_min=1 << 15),
    Knobs(parallel_min=1 << 62),          # no parallel pure stage
    Knobs(fuse=False),
    Knobs(rows_shift=2),
    Knobs(rows_shift=-2),
    Knobs(vectorize=False),
    Knobs(rfactor_ints=False),
)
REPEATS = 3
_KIND = "autotune"


def cache_key(pf, spec, params) -> tuple:
    """(disk cache key, target key) of the tuning of `spec` (a @pipeline
    specialization planned for spec.size_class) under `params`."""
    from ..lowering.target import parse_target
    target = parse_target(config.target).key()
    text = json.dumps(["pyhalide-tune-1", pf.parsed().name, ast.dump(pf.parsed().tree),
                       repr(spec.key), repr(spec.size_class), sorted(params.extra.items()),
                       [k.as_json() for k in CANDIDATES], target], sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest(), target


def tune(pf, spec, values, given, params, build):
    """The specialization to use for this size class: `spec` (planned with
    the default Knobs) or build(knobs) of the fastest candidate."""
    from ..lowering import disk_cache
    key, target = cache_key(pf, spec, params)
    entry = disk_cache.read_entry(key, _KIND, {"target": target})
    if entry is not None:
        try:
            knobs = Knobs.from_json(json.loads(entry[1]))
        except ValueError:
            knobs = None
        if knobs is not None:
            debug_print(1, f"autoschedule {pf.__name__}: tuned before (cached): {knobs}")
            return spec if knobs == Knobs() else build(knobs)
    if spec.written is not None and not spec.accepts(_copies(given)[1]):
        debug_print(1, f"autoschedule {pf.__name__}: the arguments it writes cannot be copied "
                       f"with their layout: not tuned")
        return spec
    timed, sources, first = [], set(), None
    for knobs in CANDIDATES:
        if len(timed) >= params.tune:
            break
        cand = spec if knobs == Knobs() else build(knobs)
        source = cand.schedule_info.auto.source if cand.schedule_info.auto else ""
        if source in sources:
            continue
        sources.add(source)
        try:
            seconds, result = _time(cand, values, given)
        except CompileError as e:
            debug_print(1, f"autoschedule {pf.__name__}: candidate {knobs} does not compile "
                           f"({str(e).splitlines()[0]})")
            continue
        except Exception:               # noqa: BLE001 - the call raises it itself
            if cand is spec:
                return spec             # the arguments make it raise: not tuned on them
            continue
        if first is None:
            first = result
        elif not _identical(result, first):
            debug_print(1, f"autoschedule {pf.__name__}: candidate {knobs} gives another "
                           f"result: dropped")
            continue
        debug_print(1, f"autoschedule {pf.__name__}: candidate {knobs}: {seconds * 1e3:.3f} ms")
        timed.append((seconds, len(timed), knobs, cand))
    if not timed:
        return spec
    _, _, knobs, best = min(timed, key=lambda t: t[:2])
    debug_print(1, f"autoschedule {pf.__name__}: tuned: {knobs} is the fastest of "
                   f"{len(timed)} candidates")
    disk_cache.write_entry(key, _KIND, {"target": target},
                           json.dumps(knobs.as_json(), sort_keys=True).encode())
    return best


def _copies(given):
    """(values, given) of copies of the array arguments, with their layout."""
    out = [np.copy(v, order="K") if isinstance(v, np.ndarray) else v for v in given]
    return [v[()] if type(v) is np.ndarray and v.ndim == 0 else v for v in out], out


def _time(cand, values, given):
    """(best seconds of REPEATS runs, the result of the first run)."""
    def args():
        return (values, given) if cand.written is None else _copies(given)
    result = cand.run(*args())
    best = float("inf")
    for _ in range(REPEATS):
        run_args = args()
        t0 = time.perf_counter()
        cand.run(*run_args)
        best = min(best, time.perf_counter() - t0)
    return best, result


def _identical(a, b) -> bool:
    """Whether two results are the same bit for bit (types too)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))
    if isinstance(a, (np.ndarray, np.generic)):
        return a.dtype == b.dtype and np.shape(a) == np.shape(b) \
            and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
    if isinstance(a, (float, complex)):
        return np.asarray(a).tobytes() == np.asarray(b).tobytes()
    return a == b
