"""The measurement protocol of PERFORMANCE.md, shared by the suites.

Every figure is a ratio measured side by side in one run on one machine:

- each measurement is the minimum of at least 10 timed calls after one
  warm-up call;
- every column of a benchmark (pyhalide, NumPy, Numba, Halide, the bandwidth
  bound) runs in its own worker process; the coordinator measures them in
  turn, round after round (at least 5 rounds), the order alternating between
  forward and reversed, so that drifts of the shared machine hit every side
  alike;
- a ratio is the median over rounds of the per-round paired ratio (both sides
  measured in the same round); a time shown in a table is the median over
  rounds of the per-round minimum;
- compilation (and the definition of the algorithm and schedule, which is
  where rfactor proves its operator) is timed separately, once, in the
  worker, before any timed call.

Before any timing, each worker compares its first result with the truth
(floats within a tolerance, integers exactly, argmin the first occurrence):
a wrong answer is timed but marked "wrong", a missing peer is "n/a", an
implementation that fails is "fails" with its reason. Nothing is ever
estimated or filled in.

A suite is a module (suite1, suite2) that provides:

    TITLE, REFERENCE (the column key ratios are taken against)
    COLUMNS: [Column]            in table order
    BENCHMARKS: {name: Bench}    in table order
    default_params(size_log2, quick) -> dict (JSON-serializable)
    build(bench_name, column_key, data, params) -> Runner   (raise Unavailable)
    targets(result) -> [TargetRow]

and, where schedule parameters are swept (sweep.py), SWEPT, SAME_SCHEDULE,
space(bench_name, params, quick) -> Space, and build(..., sched=parameters).

A Bench gives make_data(params) -> data, truth(data) -> truth, and
check(got, truth, data) -> (ok, detail).

`--quick` (and the tests) can run every column in the calling process
(`in_process=True`): the same steps, without the process isolation.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import math
import os
import select
import statistics
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional

MIN_CALLS = 10
MIN_ROUNDS = 5

THREAD_VARS = ("PYHALIDE_NUM_THREADS", "NUMBA_NUM_THREADS", "HL_NUM_THREADS",
               "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


class Unavailable(Exception):
    """A column that cannot run here (a peer not installed, a feature missing):
    shown as "n/a (reason)"."""


class NotCompiled(Unavailable):
    """A pipeline that pyhalide does not compile (yet): shown as "not
    compiled" with the first line of the error, never as a failure."""


@dataclass
class Column:
    key: str
    header: str
    parallel: bool = False       # uses all cores (documentation only: serial columns never
                                 # start threads)


@dataclass
class Bench:
    name: str
    make_data: Callable          # params -> data
    truth: Callable              # data -> truth
    check: Callable              # (got, truth, data) -> (ok, detail)
    bytes_read: Callable = None  # data -> bytes an implementation must read at least
    description: str = ""


class Runner:
    """One column's implementation of one benchmark.

    run() performs one call and returns its result; result() turns it into
    the form the benchmark's check() expects; compile() does ahead-of-time
    work that is timed separately (None: nothing to compile). A Runner may
    override measure(), and check its own result (`check`)."""

    def __init__(self, run: Callable, compile: Optional[Callable] = None, note: str = "",
                 result: Optional[Callable] = None, check: Optional[Callable] = None,
                 facts: Optional[Callable] = None):
        self.run = run
        self.compile = compile
        self.note = note
        self.result = result or (lambda r: r)
        self.check = check          # got -> (ok, detail), instead of the benchmark's check
        self.facts = facts          # () -> dict of measurements besides time (untimed, once)

    def measure(self, calls: int) -> float:
        self.run()                                   # warm-up
        best = math.inf
        for _ in range(calls):
            t0 = time.perf_counter()
            self.run()
            best = min(best, time.perf_counter() - t0)
        return best


# ---- one column, set up and measured (in a worker process or in-process) ----------------
@dataclass
class SetupReport:
    status: str                  # "ok", "wrong", "n/a", "fails"
    note: str = ""
    define_s: Optional[float] = None     # algorithm + schedule (rfactor proofs happen here)
    compile_s: Optional[float] = None
    detail: str = ""
    facts: dict = field(default_factory=dict)   # Runner.facts(), e.g. peak memory


class Session:
    """The state of one column for one benchmark: what a worker holds."""

    def __init__(self, data_cache: Optional[dict] = None):
        self.runner: Optional[Runner] = None
        self._data_cache: dict = {} if data_cache is None else data_cache
        self._trials: dict = {}              # schedule parameters -> Runner (calibration)

    def setup(self, suite: str, bench: str, column: str, params: dict,
              sched: Optional[dict] = None) -> SetupReport:
        self.runner = None
        try:
            mod = importlib.import_module(f"pyhalide.bench.{suite}")
            b = mod.BENCHMARKS[bench]
            key = (suite, bench, json.dumps(params, sort_keys=True))
            if key not in self._data_cache:
                self._data_cache.clear()
                data = b.make_data(params)
                self._data_cache[key] = (data, b.truth(data))
            data, truth = self._data_cache[key]
            t0 = time.perf_counter()
            try:
                runner = mod.build(bench, column, data, params) if sched is None else \
                    mod.build(bench, column, data, params, sched=sched)
            except NotCompiled:
                raise
            except Unavailable as e:
                return SetupReport("n/a", str(e))
            define_s = time.perf_counter() - t0
            compile_s = None
            if runner.compile is not None:
                t0 = time.perf_counter()
                runner.compile()
                compile_s = time.perf_counter() - t0
            got = runner.result(runner.run())
            ok, detail = runner.check(got) if runner.check else b.check(got, truth, data)
            self.runner = runner
            facts = runner.facts() if runner.facts is not None else {}
            return SetupReport("ok" if ok else "wrong", runner.note, define_s, compile_s,
                               detail, facts)
        except NotCompiled as e:
            return SetupReport("not compiled", str(e))
        except Unavailable as e:
            return SetupReport("n/a", str(e))
        except Exception as e:        # a failing implementation is reported, never hidden
            tb = traceback.format_exc(limit=4)
            return SetupReport("fails", f"{type(e).__name__}: {_first_line(str(e))}",
                               detail=tb)

    def measure(self, calls: int) -> float:
        return self.runner.measure(calls)

    def trial(self, suite: str, bench: str, column: str, params: dict, sched: dict,
              calls: int) -> dict:
        """Calibration: set up one parameter set and measure it once; keep its
        runner for retime()."""
        rep = dataclasses.asdict(self.setup(suite, bench, column, params, sched))
        rep["time"] = None
        if self.runner is not None:
            rep["time"] = self.runner.measure(calls)
            self._trials[json.dumps(sched, sort_keys=True)] = self.runner
            self.runner = None
        return rep

    def retime(self, sched: dict, calls: int) -> Optional[float]:
        runner = self._trials.get(json.dumps(sched, sort_keys=True))
        return None if runner is None else runner.measure(calls)


def _first_line(s: str, n: int = 160) -> str:
    line = s.strip().splitlines()[0] if s.strip() else ""
    return line if len(line) <= n else line[:n - 3] + "..."


# ---- the worker process -------------------------------------------------------------------
def worker_main():
    """JSON lines on stdin -> JSON lines on the original stdout. Anything the
    libraries print goes to stderr."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    session = Session()

    def reply(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    reply({"ready": True})
    for line in sys.stdin:
        msg = json.loads(line)
        cmd = msg.get("cmd")
        try:
            if cmd == "setup":
                rep = session.setup(msg["suite"], msg["bench"], msg["column"], msg["params"],
                                    msg.get("sched"))
                reply(dataclasses.asdict(rep))
            elif cmd == "trial":
                reply(session.trial(msg["suite"], msg["bench"], msg["column"], msg["params"],
                                    msg["sched"], int(msg["calls"])))
            elif cmd == "retime":
                reply({"time": session.retime(msg["sched"], int(msg["calls"]))})
            elif cmd == "measure":
                reply({"time": session.measure(int(msg["calls"]))})
            elif cmd == "quit":
                reply({"bye": True})
                return
            else:
                reply({"error": f"unknown command {cmd!r}"})
        except Exception as e:
            reply({"error": f"{type(e).__name__}: {_first_line(str(e))}"})


class WorkerError(RuntimeError):
    pass


class ProcessColumn:
    """A column measured in its own process."""

    def __init__(self, env: dict, timeout: float):
        self.timeout = timeout
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pyhalide.bench.worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL if not os.environ.get(
                "PYHALIDE_BENCH_VERBOSE") else None, env=env, text=True, bufsize=1)
        self._recv()

    def _send(self, obj):
        self.proc.stdin.write(json.dumps(obj) + "\n")
        self.proc.stdin.flush()

    def _recv(self) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        if not ready:
            self.close(kill=True)
            raise WorkerError(f"worker timed out after {self.timeout:.0f} s")
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            raise WorkerError(f"worker exited with status {code}")
        return json.loads(line)

    def setup(self, suite, bench, column, params, sched=None) -> SetupReport:
        self._send({"cmd": "setup", "suite": suite, "bench": bench, "column": column,
                    "params": params, "sched": sched})
        return SetupReport(**self._recv())

    def _ask(self, msg: dict) -> dict:
        self._send(msg)
        rep = self._recv()
        if "error" in rep:
            raise WorkerError(rep["error"])
        return rep

    def measure(self, calls: int) -> float:
        return self._ask({"cmd": "measure", "calls": calls})["time"]

    def trial(self, suite, bench, column, params, sched, calls) -> dict:
        return self._ask({"cmd": "trial", "suite": suite, "bench": bench, "column": column,
                          "params": params, "sched": sched, "calls": calls})

    def retime(self, sched, calls) -> Optional[float]:
        return self._ask({"cmd": "retime", "sched": sched, "calls": calls})["time"]

    def close(self, kill=False):
        if self.proc.poll() is None:
            if not kill:
                try:
                    self._send({"cmd": "quit"})
                    self.proc.wait(timeout=10)
                except Exception:
                    kill = True
            if kill or self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


class InProcessColumn:
    """The same steps in the calling process (quick mode and tests)."""

    def __init__(self, data_cache: Optional[dict] = None):
        self.session = Session(data_cache)

    def setup(self, suite, bench, column, params, sched=None) -> SetupReport:
        return self.session.setup(suite, bench, column, params, sched)

    def measure(self, calls: int) -> float:
        return self.session.measure(calls)

    def trial(self, suite, bench, column, params, sched, calls) -> dict:
        return self.session.trial(suite, bench, column, params, sched, calls)

    def retime(self, sched, calls) -> Optional[float]:
        return self.session.retime(sched, calls)

    def close(self, kill=False):
        self.session = None


# ---- results ------------------------------------------------------------------------------
@dataclass
class Cell:
    status: str
    note: str = ""
    define_s: Optional[float] = None
    compile_s: Optional[float] = None
    detail: str = ""
    times: list = field(default_factory=list)     # per-round minimum, seconds (None: failed)
    facts: dict = field(default_factory=dict)     # measurements besides time (SetupReport)

    @property
    def timed(self) -> bool:
        return self.status in ("ok", "wrong") and any(t is not None for t in self.times)

    @property
    def correct(self) -> bool:
        return self.status == "ok" and self.timed

    def median(self) -> Optional[float]:
        ts = [t for t in self.times if t is not None]
        return statistics.median(ts) if ts else None


class Ratio(float):
    """A median of per-round ratios that remembers their range."""

    def __new__(cls, median: float, lo: float, hi: float, n: int):
        self = super().__new__(cls, median)
        self.lo, self.hi, self.n = lo, hi, n
        return self


@dataclass
class BenchResult:
    name: str
    cells: dict                  # column key -> Cell
    rounds: int
    calls: int
    order: list = field(default_factory=list)   # the column order of each round
    calibrations: dict = field(default_factory=dict)   # column key -> sweep.Calibration

    def paired(self, num, den) -> Optional[float]:
        """Median over rounds of num/den, each a column key or a function
        round -> seconds (None when a side did not run)."""
        ratios = []
        for r in range(self.rounds):
            a, b = self._at(num, r), self._at(den, r)
            if a is not None and b is not None and b > 0:
                ratios.append(a / b)
        return Ratio(statistics.median(ratios), min(ratios), max(ratios), len(ratios)) \
            if ratios else None

    def _at(self, side, r):
        if callable(side):
            return side(self, r)
        c = self.cells.get(side)
        if c is None or not c.timed or r >= len(c.times):
            return None
        return c.times[r]

    def best_of(self, keys, correct_only=True):
        """A side for paired(): per round, the fastest of `keys` (correct ones only)."""
        def side(res, r):
            vals = [res._at(k, r) for k in keys
                    if k in res.cells and (res.cells[k].correct or not correct_only)]
            vals = [v for v in vals if v is not None]
            return min(vals) if vals else None
        return side


@dataclass
class SuiteResult:
    suite: str
    title: str
    params: dict
    columns: list                # [Column]
    reference: str
    benches: list                # [BenchResult]
    rounds: int
    calls: int
    threads: int
    in_process: bool
    quick: bool = False
    swept: bool = False          # a calibration round chose each system's parameters


# ---- the coordinator -----------------------------------------------------------------------
def worker_env(threads: int) -> dict:
    env = dict(os.environ)
    for v in THREAD_VARS:
        env[v] = str(threads)
    # the first compile is timed cold: no on-disk object cache for pyhalide
    env["PYHALIDE_CACHE_DIR"] = "0"
    env.setdefault("PYTHONHASHSEED", "0")
    # Python's own bytecode cache is left on, as in an installed package
    # (suite3.py does the same): the first compile is pyhalide's work, not
    # CPython compiling pyhalide's sources
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_bytecode() -> None:
    """Write the bytecode of pyhalide's modules that is missing or stale, as
    an installed package has it, before the first worker starts: a worker
    (worker_env leaves the bytecode cache on) would otherwise compile the
    modules a first compile imports lazily, and time that as its compile
    (after a checkout or merge, the first benchmark's first compile: suite
    4's chain_ops, 0.63 s against ~0.12 s). Up-to-date files are only
    stat'ed."""
    import compileall

    import pyhalide
    from pyhalide import frontend_ast, lowering, tables
    dirs = {os.path.dirname(pyhalide.__file__)}
    for pkg in (frontend_ast, lowering, tables):
        dirs.update(pkg.__path__)
    for d in sorted(dirs):
        compileall.compile_dir(d, quiet=2, workers=1)


def run_suite(suite: str, *, size_log2: Optional[int] = None, rounds: int = MIN_ROUNDS,
              calls: int = MIN_CALLS, quick: bool = False, in_process: Optional[bool] = None,
              benches: Optional[list] = None, columns: Optional[list] = None,
              threads: Optional[int] = None, timeout: float = 900.0,
              progress: Callable = None, sweep: Optional[bool] = None) -> SuiteResult:
    """`sweep`: run the calibration round (sweep.py) of the suites that have
    one (default: yes, except in quick mode); without it every system runs
    the default parameters and the same-schedule columns are left out."""
    from . import sweep as sweeping
    mod = importlib.import_module(f"pyhalide.bench.{suite}")
    if in_process is None:
        in_process = quick
    threads = threads or os.cpu_count() or 1
    params = mod.default_params(size_log2, quick)
    swept = bool(getattr(mod, "SWEPT", None)) and (not quick if sweep is None else sweep)
    same = getattr(mod, "SAME_SCHEDULE", {})
    cols = [c for c in mod.COLUMNS if (columns is None or c.key in columns) and
            (swept or c.key not in same)]
    unknown = set(columns or ()) - {c.key for c in mod.COLUMNS}
    if unknown:
        raise ValueError(f"unknown columns for {suite}: {sorted(unknown)}; "
                         f"choose from {[c.key for c in mod.COLUMNS]}")
    names = [n for n in mod.BENCHMARKS if benches is None or n in benches]
    unknown = set(benches or ()) - set(mod.BENCHMARKS)
    if unknown:
        raise ValueError(f"unknown benchmarks for {suite}: {sorted(unknown)}; "
                         f"choose from {list(mod.BENCHMARKS)}")
    say = progress or (lambda suite, text, done, total: None)
    total, done = len(names) * len(cols) * (1 + rounds), 0
    env = worker_env(threads)
    if not in_process:
        compile_bytecode()
    results = []
    for name in names:
        cells, handles, data_cache = {}, {}, {}

        def new_handle():
            return InProcessColumn(data_cache) if in_process else ProcessColumn(env, timeout)

        cals = sweeping.calibrate_bench(
            mod, suite, name, [c.key for c in cols], params, quick, calls, new_handle,
            lambda text: say(suite, f"{name}: calibrating {text}", done, total)) \
            if swept else {}
        try:
            for col in cols:                      # setup one after another: compile times clean
                say(suite, f"{name}: setting up {col.header}", done, total)
                done += 1
                sched, why = sweeping.sched_for(mod, col.key, cals)
                h = None
                try:
                    if why:
                        rep = SetupReport("n/a", why)
                    else:
                        h = new_handle()
                        rep = h.setup(suite, name, col.key, params, sched)
                except WorkerError as e:
                    rep, h = SetupReport("fails", str(e)), None
                cells[col.key] = Cell(rep.status, rep.note, rep.define_s, rep.compile_s,
                                      rep.detail, facts=rep.facts)
                if rep.status in ("ok", "wrong") and h is not None:
                    handles[col.key] = h
                elif h is not None:
                    h.close()
            order_log = []
            for r in range(rounds):
                order = [c.key for c in cols if c.key in handles]
                if r % 2:
                    order.reverse()
                order_log.append(order)
                say(suite, f"{name}: round {r + 1}/{rounds}", done, total)
                done += len(cols)
                for key in order:
                    try:
                        t = handles[key].measure(calls)
                    except WorkerError as e:
                        cells[key].note = (cells[key].note + "; " if cells[key].note else "") + \
                            f"measurement failed: {e}"
                        t = None
                    cells[key].times.append(t)
        finally:
            for h in handles.values():
                h.close()
        for c in cells.values():
            if c.status in ("ok", "wrong") and not c.timed:
                c.status = "fails"
        results.append(BenchResult(name, cells, rounds, calls, order_log, cals))
    say(suite, "done", total, total)
    return SuiteResult(suite, mod.TITLE, params, cols, mod.REFERENCE, results, rounds, calls,
                       threads, in_process, quick, swept)


# ---- tables -------------------------------------------------------------------------------
def fmt_time(s: Optional[float]) -> str:
    if s is None:
        return "—"
    ms = s * 1e3
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    if ms >= 1:
        return f"{ms:.2f}"
    return f"{ms:.3f}"


def fmt_bytes(n: float) -> str:
    """2.5 MiB, 48 KiB, 512 B."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def fmt_ratio(x: Optional[float], spread: bool = True) -> str:
    """1.17× (0.84–2.00): the median of the per-round ratios and their range."""
    if x is None:
        return "—"
    text = f"{x:.2f}×"
    if spread and isinstance(x, Ratio) and x.n > 1 and x.hi - x.lo >= 0.005:
        text += f" ({x.lo:.2f}–{x.hi:.2f})"
    return text


def md_table(headers: list, rows: list) -> str:
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    def line(cells):
        return "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    out = [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


class Notes:
    """Footnotes for cells that are not plain numbers."""

    def __init__(self):
        self.items: list = []

    def ref(self, text: str) -> str:
        if text not in self.items:
            self.items.append(text)
        return f"[{self.items.index(text) + 1}]"

    def render(self) -> str:
        return "\n".join(f"[{i + 1}] {t}" for i, t in enumerate(self.items))


def cell_text(cell: Optional[Cell], notes: Notes, value: Optional[str] = None) -> str:
    """The table text of a cell: its value, "wrong" or "n/a"/"fails" with a note."""
    if cell is None:
        return "—"
    if cell.status == "n/a":
        return "n/a" + (f" ({cell.note})" if len(cell.note) <= 28 else " " + notes.ref(cell.note))
    if cell.status == "fails":
        return "fails " + notes.ref(cell.note or "failed")
    if cell.status == "not compiled":
        return "not compiled " + notes.ref(cell.note)
    text = value if value is not None else fmt_time(cell.median())
    if cell.status == "wrong":
        text += " wrong " + notes.ref(cell.detail or "differs from the serial result")
    elif cell.note:
        text += " " + notes.ref(cell.note)
    return text


def render(res: SuiteResult, targets: list) -> str:
    """Times, ratios, compile times and targets of a suite, as Markdown."""
    mod = importlib.import_module(f"pyhalide.bench.{res.suite}")
    notes = Notes()
    from .sweep import render_params
    head = [f"## {res.title}", "",
            _param_line(res), "", *render_params(res, notes)]
    cols = res.columns
    ref_header = next((c.header for c in mod.COLUMNS if c.key == res.reference),
                      res.reference)
    # times
    rows = []
    for b in res.benches:
        rows.append([b.name] + [cell_text(b.cells.get(c.key), notes) for c in cols])
    head += ["Time per call, ms (median over rounds of the minimum of "
             f"{res.calls} calls):", "", md_table(["benchmark"] + [c.header for c in cols], rows),
             ""]
    # ratios: against the reference column, or its fallback where it did not run
    fallback = getattr(mod, "FALLBACK_REFERENCE", None)
    rows, refs = [], []
    for b in res.benches:
        ref = res.reference
        if ref not in b.cells or not b.cells[ref].timed:
            ref = fallback if fallback in b.cells and b.cells[fallback].timed else None
        refs.append(ref)
        row = [b.name]
        for c in cols:
            cell = b.cells.get(c.key)
            if cell is None or not cell.timed or ref is None:
                row.append("—")
                continue
            r = b.paired(c.key, ref)
            row.append(fmt_ratio(r) + (" wrong" if cell.status == "wrong" else ""))
        rows.append(row)
    headers = ["benchmark"] + [c.header for c in cols]
    if any(r != res.reference for r in refs):
        by_key = {c.key: c.header for c in cols}
        headers.append("relative to")
        for row, ref in zip(rows, refs):
            row.append(by_key.get(ref, "—"))
        what = f"{ref_header} (or the column named last where it did not run)"
    else:
        what = ref_header
    head += [f"Time relative to {what}: median of the per-round paired ratios "
             f"(their range in parentheses), > 1 is slower:", "", md_table(headers, rows), ""]
    # compile
    rows = []
    comp_cols = [c for c in cols if getattr(mod, "COMPILED", {}).get(c.key, True)]
    for b in res.benches:
        row = [b.name]
        for c in comp_cols:
            cell = b.cells.get(c.key)
            if cell is None or cell.status in ("n/a", "fails") or cell.compile_s is None:
                row.append("—")
            else:
                row.append(f"{cell.compile_s:.3f}" + (f" (+{cell.define_s * 1e3:.0f} ms def)"
                                                      if cell.define_s and
                                                      cell.define_s >= 0.0005 else ""))
        rows.append(row)
    head += ["First compilation, s, once per worker process, timed apart from the calls "
             "(pyhalide with its disk cache off; \"def\": defining the algorithm and "
             "schedule, where rfactor searches and proves its operator):", "",
             md_table(["benchmark"] + [c.header for c in comp_cols], rows), ""]
    # targets
    if targets:
        if res.quick:       # a smoke run measures nothing worth a verdict
            rows = [[t.name, t.bench, t.measured, t.goal] for t in targets]
            head += [("Targets (PERFORMANCE.md), not judged: a quick run (tiny sizes, one "
                      "process) is dominated by per-call overheads:"), "",
                     md_table(["target", "benchmark", "measured", "goal"], rows), ""]
        else:
            rows = [[t.name, t.bench, t.measured, t.goal, t.verdict] for t in targets]
            head += ["Targets (PERFORMANCE.md):", "",
                     md_table(["target", "benchmark", "measured", "goal", "met"], rows), ""]
    if notes.items:
        head += ["Notes:", "", *(f"{n}  " for n in notes.render().splitlines()), ""]
    return "\n".join(head)


def _param_line(res: SuiteResult) -> str:
    mode = "in one process (quick mode: no process isolation)" if res.in_process else \
        "one worker process per column, interleaved"
    p = ", ".join(f"{k}={v}" for k, v in res.params.items())
    return (f"{p}; {res.rounds} round(s), alternating order, {mode}; "
            f"{res.threads} thread(s) for parallel columns "
            f"({'/'.join(THREAD_VARS[:3])}={res.threads}).")


@dataclass
class TargetRow:
    name: str
    bench: str
    measured: str
    goal: str
    verdict: str       # "yes", "NO", "n/a"


def compile_target(bench: "BenchResult", keys: list, limit: float = 0.5) -> Optional[TargetRow]:
    """pyhalide's first compile of this benchmark's pipeline(s) (PERFORMANCE.md:
    ≤ 0.5 s, cold disk cache)."""
    cells = [(k, bench.cells[k]) for k in keys if k in bench.cells and
             bench.cells[k].compile_s is not None and bench.cells[k].status in ("ok", "wrong")]
    if not cells:
        return None
    worst = max(c.compile_s for _, c in cells)
    return TargetRow("pyhalide first compile, s (" + " / ".join(k for k, _ in cells) + ")",
                     bench.name, " / ".join(f"{c.compile_s:.3f}" for _, c in cells),
                     f"≤ {limit}", verdict(worst, limit))


def verdict(value: Optional[float], limit: float, le: bool = True) -> str:
    if value is None:
        return "n/a"
    ok = value <= limit if le else value >= limit
    return "yes" if ok else "NO"
