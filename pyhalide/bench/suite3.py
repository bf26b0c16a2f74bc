"""Suite 3: the runtime targets of PERFORMANCE.md ("Compilation", "Parallel
runtime") measured like the other suites (worker processes, interleaved
rounds, minimum of the calls of a round, median over rounds).

- call: a tiny pipeline (out(x) = in(x) * 2 + 1 over 16 int32 values) realized
  into a preallocated output: the fixed cost of one call (≤ 50 µs).
- dispatch: the same pipeline with `parallel(x)`, one task per element: its
  time minus the time of `call` is the cost of dispatching one parallel loop
  (≤ 20 µs with 2 threads).
- scaling: a compute-bound pipeline (256 dependent steps v = v*v/2 + 1/4 + r/10^6
  per float32 value, 2048 × 128 values, rows in parallel, vectorized by 8): one thread
  against all threads (≥ 1.8× from 1 to 2 threads).
- warm_start: a new process whose on-disk object cache is warm: the time from
  the first call of an already-defined pipeline (the suite-2 blur schedule on
  a 256² image, pyhalide imported) to its result (≤ 50 ms: no lowering and no
  LLVM work run; lowering/kernel_cache.py). Python may write bytecode, as an
  installed package has.
- tables_load: a new process loads every shipped associative-operator table
  (≤ 50 ms, without importing Z3).

Columns: pyhalide on 1 thread (`PYHALIDE_NUM_THREADS` overridden inside the
worker), pyhalide on all threads, and Halide 21 on all threads where it has
an equivalent.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

from .protocol import Bench, Column, Runner, TargetRow, Unavailable, fmt_ratio, verdict

TITLE = "Suite 3: runtime (call overhead, parallel dispatch and scaling, warm start)"
REFERENCE = "ph_all"

COLUMNS = [
    Column("ph_1", "pyhalide, 1 thread"),
    Column("ph_all", "pyhalide, all threads", parallel=True),
    Column("hl_all", "Halide, all threads", parallel=True),
]
COMPILED = {}

CALL_LIMIT_S = 50e-6
DISPATCH_LIMIT_S = 20e-6
SCALING_GOAL = 1.8
WARM_START_LIMIT_S = 50e-3
TABLES_LOAD_LIMIT_S = 50e-3
WARM_START_SPAWNS = 3            # processes per measurement (each imports pyhalide)

TINY = 16
SCALE_SHAPE = (2048, 128)        # x, y
SCALE_STEPS = 256


def default_params(size_log2=None, quick=False) -> dict:
    return {"quick": bool(quick)}


# ---- data and truth ---------------------------------------------------------------------------
def _data_tiny(p):
    return {"a": np.arange(TINY, dtype=np.int32)}


def _truth_tiny(d):
    return d["a"] * 2 + 1


def _data_scale(p):
    w, h = SCALE_SHAPE
    if p.get("quick"):
        w, h = 64, 16
    return {"shape": (h, w)}


def _truth_scale(d):
    h, w = d["shape"]
    y, x = np.mgrid[0:h, 0:w]
    v = ((x + y) % 97).astype(np.float32) * np.float32(0.01)
    for k in range(SCALE_STEPS):
        v = (v * v * np.float32(0.5) + np.float32(0.25)) + np.float32(k) * np.float32(1e-6)
    return v


def _data_warm(p):
    n = 64 if p.get("quick") else 256
    return {"n": n}


def _truth_warm(d):
    return None


def _check_exact(got, truth, data):
    if np.array_equal(got, truth):
        return True, ""
    return False, f"{int(np.count_nonzero(got != truth))} values differ"


def _check_close(got, truth, data):
    # the same float32 operations in the same order: only contraction to FMA
    # (Halide) may change the last bits
    if np.allclose(got, truth, rtol=1e-5, atol=1e-6):
        return True, ""
    return False, f"max difference {float(np.max(np.abs(got - truth)))}"


def _check_warm(got, truth, data):
    return (True, "") if got == "ok" else (False, str(got))


BENCHMARKS = {
    "call": Bench("call", _data_tiny, _truth_tiny, _check_exact,
                  description="16 int32 values, no schedule"),
    "dispatch": Bench("dispatch", _data_tiny, _truth_tiny, _check_exact,
                      description="the same with parallel(x): 16 tasks"),
    "scaling": Bench("scaling", _data_scale, _truth_scale, _check_close,
                     description="256 dependent float32 multiply-adds per value"),
    "warm_start": Bench("warm_start", _data_warm, _truth_warm, _check_warm,
                        description="first call in a new process, warm disk cache"),
    "tables_load": Bench("tables_load", _data_warm, _truth_warm, _check_warm,
                         description="load every shipped table in a new process"),
}


# ---- algorithms (over a module m: pyhalide or halide) ------------------------------------------
def alg_tiny(m, d, parallel: bool):
    inp = m.Buffer(d["a"], "a")
    x = m.Var("x")
    f = m.Func("tiny")
    f[x] = inp[x] * 2 + 1
    if parallel:
        f.parallel(x)
    return f


def alg_scale(m, d):
    x, y = m.Var("x"), m.Var("y")
    r = m.RDom([m.Range(0, SCALE_STEPS)], "r")
    f = m.Func("scale")
    f[x, y] = m.cast(m.Float(32), (x + y) % 97) * m.f32(0.01)
    f[x, y] = (f[x, y] * f[x, y] * m.f32(0.5) + m.f32(0.25)) + \
        m.cast(m.Float(32), r.x) * m.f32(1e-6)
    f.parallel(y).vectorize(x, 8)
    f.update().parallel(y).vectorize(x, 8)
    return f


# ---- columns ----------------------------------------------------------------------------------
def _with_threads(run, threads):
    if threads is None:
        return run
    from pyhalide.ir.config import override

    def one():
        with override(num_threads=threads):
            return run()
    return one


def _compiled_runner(m, bench, d, run_with=lambda run: run) -> Runner:
    """The call/dispatch/scaling pipeline built with module m (pyhalide or
    halide), realized into a preallocated output."""
    if bench in ("call", "dispatch"):
        f = alg_tiny(m, d, parallel=bench == "dispatch")
        out = np.empty(TINY, np.int32)
    else:
        f = alg_scale(m, d)
        out = np.empty(d["shape"], np.float32)
    buf = m.Buffer(out)
    return Runner(run=run_with(lambda: (f.realize(buf), out)[1]), compile=f.compile_jit,
                  result=lambda o: np.array(o, copy=True))


def _build_ph(bench, d, threads):
    import pyhalide as ph
    if bench == "warm_start":
        return _spawn_runner(_WARM_SCRIPT, [str(d["n"])], threads, warm_cache=True)
    if bench == "tables_load":
        return _spawn_runner(_TABLES_SCRIPT, [], threads, warm_cache=False)
    return _compiled_runner(ph, bench, d, lambda run: _with_threads(run, threads))


def _build_hl(bench, d):
    try:
        import halide as hl
    except ImportError as e:
        raise Unavailable("Halide not installed") from e
    if bench in ("warm_start", "tables_load"):
        raise Unavailable("no Halide equivalent")
    return _compiled_runner(hl, bench, d)


_WARM_SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    import pyhalide as ph
    from pyhalide.bench.suite2 import alg_blur, sched_blur, blur_numpy
    n = int(sys.argv[1])
    img = np.random.default_rng(0).integers(0, 2**16, (n + 2, n + 2), dtype=np.uint16)
    out_f, fs = alg_blur(ph, {"img": img})
    sched_blur(ph, out_f, fs)
    out = np.empty((n, n), np.uint16)
    t0 = time.perf_counter()
    out_f.realize(ph.Buffer(out))
    t = time.perf_counter() - t0
    print("ok" if np.array_equal(out, blur_numpy(img)) else "wrong", t)
""")


_TABLES_SCRIPT = textwrap.dedent("""
    import sys, time
    from pyhalide import ir
    import pyhalide.tables as tables
    t0 = time.perf_counter()
    n = sum(len(tables.load_table(t)) for t in ir.ALL_SCALAR_TYPES)
    t = time.perf_counter() - t0
    print("ok" if n > 1000 and "z3" not in sys.modules else f"wrong:{n}", t)
""")


def _spawn_runner(script, args, threads, warm_cache):
    """A Runner timing `script` in new processes: the script prints its
    status and the seconds it measured itself; the minimum over
    WARM_START_SPAWNS processes is one measurement. With `warm_cache`, the
    processes share a private disk cache that the compile step fills."""
    env = dict(os.environ)
    env["PYHALIDE_CACHE_DIR"] = tempfile.mkdtemp(prefix="pyhalide-warm-") if warm_cache else "0"
    # Python's own bytecode cache is left on, as in an installed package
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if threads is not None:
        env["PYHALIDE_NUM_THREADS"] = str(threads)

    def spawn():
        out = subprocess.run([sys.executable, "-c", script, *args], env=env,
                             capture_output=True, text=True, timeout=600)
        if out.returncode:
            raise RuntimeError(f"benchmark process failed: {out.stderr.strip()[-300:]}")
        status, seconds = out.stdout.split()
        return status, float(seconds)

    class Spawned(Runner):
        def measure(self, calls):
            return min(spawn()[1] for _ in range(WARM_START_SPAWNS))

    return Spawned(run=lambda: spawn()[0], compile=spawn)


def build(bench: str, column: str, data, params) -> Runner:
    if column == "ph_1":
        return _build_ph(bench, data, threads=1)
    if column == "ph_all":
        return _build_ph(bench, data, threads=None)
    if column == "hl_all":
        return _build_hl(bench, data)
    raise KeyError(column)


# ---- targets ----------------------------------------------------------------------------------
def _median_of(res, bench, key):
    for b in res.benches:
        if b.name == bench and key in b.cells and b.cells[key].timed:
            return b.cells[key].median()
    return None


def targets(res) -> list:
    rows = []
    call = _median_of(res, "call", "ph_all")
    if call is not None:
        rows.append(TargetRow("time of one call of a tiny pipeline", "call",
                              f"{call * 1e6:.1f} µs", f"≤ {CALL_LIMIT_S * 1e6:.0f} µs",
                              verdict(call, CALL_LIMIT_S)))
    disp = _median_of(res, "dispatch", "ph_all")
    if call is not None and disp is not None:
        cost = disp - call
        rows.append(TargetRow("dispatch of a parallel loop (dispatch − call, all threads)",
                              "dispatch", f"{cost * 1e6:.1f} µs",
                              f"≤ {DISPATCH_LIMIT_S * 1e6:.0f} µs",
                              verdict(cost, DISPATCH_LIMIT_S)))
    for b in res.benches:
        if b.name == "scaling" and all(k in b.cells and b.cells[k].correct
                                       for k in ("ph_1", "ph_all")):
            x = b.paired("ph_1", "ph_all")
            rows.append(TargetRow(f"speed-up from 1 to {res.threads} threads", "scaling",
                                  fmt_ratio(x), f"≥ {SCALING_GOAL}",
                                  verdict(x, SCALING_GOAL, le=False)
                                  if res.threads >= 2 else "n/a (1 core)"))
    warm = _median_of(res, "warm_start", "ph_all")
    if warm is not None:
        rows.append(TargetRow("first call in a new process, warm disk cache", "warm_start",
                              f"{warm * 1e3:.1f} ms", f"≤ {WARM_START_LIMIT_S * 1e3:.0f} ms",
                              verdict(warm, WARM_START_LIMIT_S)))
    load = _median_of(res, "tables_load", "ph_all")
    if load is not None:
        rows.append(TargetRow("loading every shipped table (new process)", "tables_load",
                              f"{load * 1e3:.1f} ms", f"≤ {TABLES_LOAD_LIMIT_S * 1e3:.0f} ms",
                              verdict(load, TABLES_LOAD_LIMIT_S)))
    return rows
