"""Suite 4: NumPy-style code. Each benchmark is one function written as
NumPy code (suite4_kernels.py), run side by side:

- NumPy: the function as it is (the reference of the ratios);
- pyhalide: the same function under @pipeline, with the default schedule
  (named arrays read once inlined, the rest at root; serial) and with a
  parallel/vectorized schedule written as a schedule function over
  `p.funcs` names (the reductions' rows or blocks in parallel, in the
  default's order); sum_axis0 also with an rfactor schedule (strips of
  rows in parallel: a reassociation, checked within the tolerance);
- Numba: the computation as loops (suite4_loops.py) under
  `@njit(parallel=True)` with `prange` and under `@njit`, and the NumPy
  source itself under `@njit(parallel=True)` (Numba's array-expression
  fusion).

Benchmarks: element-wise chains (operators only; with sqrt, abs,
minimum/maximum, where; with exp, log, tanh), slice stencils (5-point
Laplacian, Harris corner response, one Gray-Scott step), reductions
(`a.sum(axis=0)`, `a.sum(axis=1)`, `a.max()`, `a.argmin()`) on float64
side x side, and `a @ b` on float64 1024 x 1024.

Every result is compared with NumPy's before timing: pyhalide's
element-wise and stencil results bit for bit (FRONTEND.md), transcendental
functions within a few ulp, sums and `a @ b` within a tolerance (Numba
and BLAS sum in orders of their own), max and argmin exactly, Numba within
a tolerance. A pipeline that pyhalide does not
compile yet is reported as "not compiled" with the first line of its error.

Memory: for an element-wise chain and a stencil, the peak resident memory
a call adds (outputs, temporaries, intermediate buffers) is measured for
pyhalide's default schedule and for NumPy, each in a fresh process
(suite4_memory.py), and compared with the size of the outputs.
"""
from __future__ import annotations

import zlib

import numpy as np

from . import suite4_kernels as K
from .protocol import (
    Bench,
    Column,
    NotCompiled,
    Runner,
    TargetRow,
    Unavailable,
    compile_target,
    fmt_bytes,
    fmt_ratio,
    verdict,
)

TITLE = "Suite 4: NumPy-style code (@pipeline on whole-array code)"
REFERENCE = "numpy"

COLUMNS = [
    Column("ph", "pyhalide default"),
    Column("ph_sched", "pyhalide scheduled", parallel=True),
    Column("ph_rfactor", "pyhalide rfactor", parallel=True),
    Column("numpy", "NumPy"),
    Column("numba_prange", "Numba prange (loops)", parallel=True),
    Column("numba_serial", "Numba serial (loops)"),
    Column("numba_array", "Numba parallel (NumPy source)", parallel=True),
]
COMPILED = {"numpy": False}

CHAINS = ("chain_ops", "chain", "chain_transc")
STENCILS = ("laplace", "harris", "gray_scott")
REDUCTIONS = ("sum_axis0", "sum_axis1", "amax", "argmin")
MEMORY = ("chain_ops", "laplace")          # peak memory measured for these
MEMORY_SIDE_LOG2 = 9         # at least 512 x 512 (2 MiB arrays: page counts, not noise)

# targets (issue 16, PERFORMANCE.md "Suite 4")
DEFAULT_GOAL = 0.7           # chains and stencils, default schedule / NumPy
TRANSC_GOAL = 1.0            # chains with transcendental functions, default / NumPy
SCHED_GOAL = 0.35            # chains and stencils, scheduled / NumPy
NUMBA_GOAL = 1.0             # chains and stencils, scheduled / Numba prange
REDUCE_DEFAULT_GOAL = 1.2    # reductions, default / NumPy
REDUCE_SCHED_GOAL = 0.6      # reductions, scheduled (parallel) / NumPy
MATMUL_GOAL = 3.0            # a @ b, pyhalide / NumPy (BLAS)


def default_params(size_log2=None, quick=False) -> dict:
    if size_log2 is None:
        size_log2 = 6 if quick else 11
    if not 3 <= size_log2 <= 14:
        raise ValueError(f"suite 4 takes arrays of side 2^3 .. 2^14, got 2^{size_log2}")
    return {"side_log2": int(size_log2), "matmul_side": 48 if quick else 1024}


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def _data(name):
    def make(p):
        n = 1 << p["side_log2"]
        r = _rng(name)
        if name in CHAINS:
            args = (r.random((n, n)), r.random((n, n)))
        elif name == "laplace":
            args = (r.random((n + 2, n + 2)),)
        elif name == "harris":
            args = (r.random((n + 4, n + 4)),)
        elif name == "gray_scott":
            args = (r.random((n + 2, n + 2)), r.random((n + 2, n + 2)) * 0.25)
        elif name == "matmul":
            m = p["matmul_side"]
            args = (r.standard_normal((m, m)), r.standard_normal((m, m)))
        else:
            args = (r.standard_normal((n, n)),)
        return {"args": args}
    return make


def _truth(name):
    return lambda d: K.NUMPY[name](*d["args"])


# relative tolerances of the checks (of the largest magnitude of the truth)
EXACT = set(CHAINS[:2]) | set(STENCILS)    # pyhalide: bit-equal with NumPy
TOLERANCE = {"chain_transc": 1e-14, "sum_axis0": 1e-12, "sum_axis1": 1e-12,
             "matmul": 1e-12}


def leaves(v):
    return list(v) if isinstance(v, tuple) else [v]


def _compare(name, got, truth, exact=False):
    """(ok, detail): got against NumPy's truth."""
    got, truth = leaves(got), leaves(truth)
    if len(got) != len(truth):
        return False, f"{len(got)} results instead of {len(truth)}"
    for g, t in zip(got, truth):
        g, t = np.asarray(g), np.asarray(t)
        if g.shape != t.shape:
            return False, f"shape {g.shape} instead of {t.shape}"
        if name == "argmin" or name == "amax" or exact:
            k = int(np.count_nonzero(g != t))
            if k:
                return False, f"{k} of {t.size} values differ" if t.size > 1 else \
                    f"{g} instead of {t}"
            continue
        scale = float(np.max(np.abs(t))) if t.size else 0.0
        err = float(np.max(np.abs(g - t))) if t.size else 0.0
        tol = TOLERANCE.get(name, 1e-12) * max(scale, 1.0)
        if not err <= tol:
            return False, f"max error {err:.3g} > {tol:.3g}"
    return True, ""


def _check(name):
    return lambda got, truth, data: _compare(name, got, truth)


def _bytes(d):
    return sum(a.nbytes for a in d["args"])


BENCHMARKS = {}
_DESCRIPTIONS = {
    "chain_ops": "float64, 9 operators, 3 named intermediates",
    "chain": "float64, sqrt, abs, minimum/maximum, where",
    "chain_transc": "float64, exp, log, tanh",
    "laplace": "float64, 5-point Laplacian with slices",
    "harris": "float64, Harris corner response",
    "gray_scott": "float64, one Gray-Scott step (two outputs)",
    "sum_axis0": "float64, a.sum(axis=0)",
    "sum_axis1": "float64, a.sum(axis=1)",
    "amax": "float64, a.max()",
    "argmin": "float64, a.argmin()",
    "matmul": "float64, a @ b",
}
for _name in K.NUMPY:
    BENCHMARKS[_name] = Bench(_name, _data(_name), _truth(_name), _check(_name), _bytes,
                              _DESCRIPTIONS[_name])


# ---- columns --------------------------------------------------------------------------------
def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def pipeline_runner(name, args, schedule=None, facts=None) -> Runner:
    """The NumPy function of `name` under @pipeline (with `schedule`, a
    schedule function, or the default); a CompileError while compiling it is
    NotCompiled."""
    import pyhalide as ph
    p = ph.pipeline(K.NUMPY[name], schedule=schedule)

    def compile_():
        try:
            p.compile(*args)
        except ph.CompileError as e:
            raise NotCompiled(f"not compiled: {_first_line(e)}") from None
    exact = name in EXACT
    runner = Runner(run=lambda: p(*args), compile=compile_, facts=facts,
                    check=lambda got: _compare(name, got, K.NUMPY[name](*args), exact))
    runner.pipeline = p
    return runner


def _numba_array(name, args) -> Runner:
    try:
        import numba
    except ImportError as e:
        raise Unavailable("Numba not installed") from e
    fn = numba.njit(parallel=True, cache=False)(K.NUMPY[name])
    return _numba_runner(fn, args)


def _numba_runner(fn, args) -> Runner:
    import numba

    def compile_():
        try:
            fn.compile(tuple(numba.typeof(a) for a in args))
        except ImportError as e:          # np.dot / @ need SciPy's BLAS in Numba
            raise Unavailable(f"Numba: {_first_line(e)}") from None
    return Runner(run=lambda: fn(*args), compile=compile_)


def _memory_facts(name, column, params):
    """A callable measuring the peak memory of one call in a fresh process
    (for the MEMORY benchmarks), or None."""
    if name not in MEMORY:
        return None
    from .suite4_memory import peak_in_new_process
    sized = dict(params, side_log2=max(params["side_log2"], MEMORY_SIDE_LOG2))
    return lambda: peak_in_new_process(name, column, sized)


def build(bench: str, column: str, data, params) -> Runner:
    args = data["args"]
    if column == "numpy":
        fn = K.NUMPY[bench]
        return Runner(lambda: fn(*args), facts=_memory_facts(bench, column, params))
    if column == "ph":
        return pipeline_runner(bench, args, facts=_memory_facts(bench, column, params))
    if column == "ph_sched":
        return pipeline_runner(bench, args, K.SCHEDULES[bench])
    if column == "ph_rfactor":
        if bench not in K.RFACTOR_SCHEDULES:
            raise Unavailable("no rfactor schedule")
        return pipeline_runner(bench, args, K.RFACTOR_SCHEDULES[bench])
    if column in ("numba_prange", "numba_serial"):
        from .suite4_loops import numba_kernels
        return _numba_runner(numba_kernels(column == "numba_prange")[bench], args)
    if column == "numba_array":
        return _numba_array(bench, args)
    raise KeyError(column)


# ---- targets --------------------------------------------------------------------------------
def _ratio_row(b, what, num, den, goal, label=None):
    c = b.cells
    missing = [k for k in (num, den) if k not in c or not c[k].correct]
    if missing:
        why = ", ".join(f"{k} {c[k].status if k in c else 'not run'}" for k in missing)
        return TargetRow(what, b.name, why, f"≤ {goal:g}", "n/a")
    x = b.paired(num, den)
    return TargetRow(label or what, b.name, fmt_ratio(x), f"≤ {goal:g}", verdict(x, goal))


def _best_row(b, what, goal):
    """Per round, the faster correct pyhalide column against NumPy."""
    x = b.paired(b.best_of(["ph", "ph_sched"]), "numpy") if "numpy" in b.cells and \
        b.cells["numpy"].correct else None
    if x is None:
        return TargetRow(what, b.name, "pyhalide or NumPy did not run", f"≤ {goal:g}", "n/a")
    return TargetRow(what, b.name, fmt_ratio(x), f"≤ {goal:g}", verdict(x, goal))


def _memory_rows(b) -> list:
    """Peak memory of a call (suite4_memory.py): pyhalide's default schedule
    against the size of the outputs, NumPy's for reference."""
    if b.name not in MEMORY:
        return []
    what = "peak memory of a call: pyhalide default / outputs"
    ph, npy = b.cells.get("ph"), b.cells.get("numpy")
    if ph is None or "peak" not in ph.facts:
        why = "not run" if ph is None else ph.facts.get("error", ph.status)
        return [TargetRow(what, b.name, why, "≤ 1.05", "n/a")]
    out, p = ph.facts["outputs"], ph.facts["peak"]
    shape = "x".join(map(str, ph.facts.get("shape", ())))
    rows = [TargetRow(what, b.name,
                      f"{p / out:.2f} ({fmt_bytes(p)} for {fmt_bytes(out)} of outputs, input "
                      f"{shape}; buffers: {', '.join(ph.facts.get('buffers', [])) or '—'})",
                      "≤ 1.05", verdict(p / out, 1.05))]
    if npy is not None and "peak" in npy.facts:
        n = npy.facts["peak"]
        rows.append(TargetRow("(reference) peak memory of a call: NumPy / outputs", b.name,
                              f"{n / npy.facts['outputs']:.2f} ({fmt_bytes(n)})", "—", "—"))
    return rows


def targets(res) -> list:
    rows = []
    for b in res.benches:
        name = b.name
        if name in CHAINS or name in STENCILS:
            goal = TRANSC_GOAL if name == "chain_transc" else DEFAULT_GOAL
            rows.append(_ratio_row(b, "pyhalide default / NumPy", "ph", "numpy", goal))
            rows.append(_ratio_row(b, "pyhalide scheduled / NumPy", "ph_sched", "numpy",
                                   SCHED_GOAL))
            rows.append(_ratio_row(b, "pyhalide scheduled / Numba prange", "ph_sched",
                                   "numba_prange", NUMBA_GOAL))
        elif name in REDUCTIONS:
            rows.append(_ratio_row(b, "pyhalide default / NumPy", "ph", "numpy",
                                   REDUCE_DEFAULT_GOAL))
            rows.append(_ratio_row(b, "pyhalide scheduled (parallel) / NumPy", "ph_sched",
                                   "numpy", REDUCE_SCHED_GOAL))
            if name in K.RFACTOR_SCHEDULES:
                rows.append(_ratio_row(b, "pyhalide rfactor (parallel, reassociated) / NumPy",
                                       "ph_rfactor", "numpy", REDUCE_SCHED_GOAL))
        elif name == "matmul":
            rows.append(_best_row(b, "pyhalide (faster of default, scheduled) / NumPy (BLAS)",
                                  MATMUL_GOAL))
        rows += _memory_rows(b)
    for b in res.benches:
        row = compile_target(b, ["ph", "ph_sched"])
        if row is not None:
            rows.append(row)
    return rows
