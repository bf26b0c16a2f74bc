"""The calibration round: each system's schedule parameters swept, its best
set chosen (PERFORMANCE.md: every system at its best, best against best).

A suite that sweeps provides, besides protocol.py's interface:

    SWEPT: {column key: system name}     columns built with swept parameters
    SAME_SCHEDULE: {column key: (runs as column, with the best set of column)}
    space(bench_name, params) -> Space   its parameters, values and defaults

For each benchmark and each swept column (each system), one worker process of
its own (so that the paired rounds' first-compile times stay cold) builds
every parameter set in turn: it defines, compiles and runs it once, compares
the result with the truth, and measures it (one warm-up call, the minimum of
`calls` calls). The sets are measured PASSES times in all, the later passes
in alternating order over the sets of a step (the whole grid, or one
parameter's values), and the three fastest once more; a set's time is the
minimum of its measurements (a loaded machine only ever slows a measurement
down). The best is the fastest correct set; when no set is correct (Halide's
rfactor form of argmin returns another index among ties), the fastest of the
wrong ones. A set that fails to build or gives a wrong answer is kept in the
record with its reason and shown in the report. Quick runs sweep only the
smallest and largest value of each parameter.

Which sets: the whole grid when it has at most GRID_LIMIT sets, else one
parameter at a time (in the order of the Space), starting from the defaults,
each parameter fixed at its best before the next is swept. The defaults are
always tried first.
"""
from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

GRID_LIMIT = 24
PASSES = 3                   # measurements of every set
RETIME = 3                   # the fastest sets, measured once more

# bytes of the widest vector register of the host: the unit of "lanes = 1..4
# native vectors", the same for every system
_FEATURE_BYTES = (("avx512f", 64), ("avx", 32))


@functools.lru_cache(maxsize=None)
def native_vector_bytes() -> int:
    """64 with AVX-512, 32 with AVX/AVX2, else 16 (SSE, NEON)."""
    try:
        import llvmlite.binding as llvm
        feats = llvm.get_host_cpu_features()
    except Exception:
        return 16
    for name, size in _FEATURE_BYTES:
        if feats.get(name):
            return size
    return 16


def native_lanes(elem_bytes: int) -> int:
    return max(1, native_vector_bytes() // elem_bytes)


def vector_counts(elem_bytes: int, counts=(1, 2, 4)) -> list:
    """Lane counts of 1, 2 and 4 native vectors of an element type (3 vectors
    would not divide the power-of-two extents of the benchmarks)."""
    return [k * native_lanes(elem_bytes) for k in counts]


@dataclass
class Param:
    name: str
    values: list
    default: int
    doc: str = ""


@dataclass
class Space:
    params: list                     # [Param], in sweep order

    def default(self) -> dict:
        return {p.name: p.default for p in self.params}

    def size(self) -> int:
        return math.prod(len(p.values) for p in self.params)

    def reduced(self) -> "Space":
        """The smallest and largest value of each parameter (quick runs)."""
        return Space([Param(p.name, sorted({p.values[0], p.values[-1]}), p.default, p.doc)
                      for p in self.params])


@dataclass
class Trial:
    sched: dict
    status: str                      # "ok", "wrong", "fails"
    note: str = ""
    detail: str = ""
    compile_s: Optional[float] = None
    times: list = field(default_factory=list)

    @property
    def time(self) -> Optional[float]:
        ts = [t for t in self.times if t is not None]
        return min(ts) if ts else None


@dataclass
class Calibration:
    column: str
    system: str
    default: dict
    how: str                         # "grid" or "one parameter at a time"
    trials: list = field(default_factory=list)       # [Trial]
    best: Optional[dict] = None
    note: str = ""                   # why there is no best

    def best_trial(self) -> Optional[Trial]:
        return next((t for t in self.trials if t.sched == self.best), None)

    def bad(self) -> list:
        return [t for t in self.trials if t.status != "ok"]


def fmt_sched(sched: Optional[dict]) -> str:
    return "—" if not sched else ", ".join(f"{k}={v}" for k, v in sched.items())


def _rank(t: Trial):
    """Correct before wrong; then faster."""
    return ({"ok": 0, "wrong": 1}.get(t.status, 2), t.time if t.time is not None else math.inf)


def _pick(trials: list) -> Optional[Trial]:
    timed = [t for t in trials if t.status in ("ok", "wrong") and t.time is not None]
    return min(timed, key=_rank) if timed else None


def calibrate(column: str, system: str, space: Space, trial: Callable, retime: Callable,
              say: Callable = lambda text: None) -> Calibration:
    """trial(sched) -> Trial (measured once); retime(sched) -> seconds or None."""
    default = space.default()
    grid = space.size() <= GRID_LIMIT
    cal = Calibration(column, system, default, "grid" if grid else "one parameter at a time")
    seen: dict = {}

    def run(sched: dict) -> Trial:
        key = tuple(sorted(sched.items()))
        if key not in seen:
            say(f"{system} {fmt_sched(sched)}")
            seen[key] = trial(dict(sched))
            cal.trials.append(seen[key])
        return seen[key]

    def remeasure(group: list):
        """Up to PASSES measurements of each set, in alternating order."""
        group = [t for t in group if t.time is not None]
        for k in range(PASSES - 1):
            for t in (group[::-1] if k % 2 == 0 else group):
                if len(t.times) < PASSES:
                    t.times.append(retime(t.sched))

    first = run(default)
    if grid:
        names = [p.name for p in space.params]
        for values in itertools.product(*(p.values for p in space.params)):
            run(dict(zip(names, values)))
        remeasure(cal.trials)
    else:
        current = dict(default)
        for p in space.params:
            tried = [first] + [run({**current, p.name: v}) for v in p.values]
            tried = list({id(t): t for t in tried}.values())
            remeasure(tried)
            best = _pick(tried)
            if best is not None:
                current, first = dict(best.sched), best
    # the fastest few once more, in reverse order
    top = _pick(cal.trials)
    group = [t for t in cal.trials if top is not None and t.status == top.status and
             t.time is not None]
    for t in sorted(group, key=_rank)[:RETIME][::-1]:
        t.times.append(retime(t.sched))
    best = _pick(cal.trials)
    if best is None:
        cal.note = "no parameter set ran"
    else:
        cal.best = best.sched
    return cal


# ---- the coordinator's side (protocol.run_suite) --------------------------------------------
class _NotAvailable(Exception):
    pass


def sources(mod, keys: list) -> list:
    """The swept columns to calibrate for the columns `keys`: the swept ones
    among them and those whose best set a same-schedule column borrows."""
    same = getattr(mod, "SAME_SCHEDULE", {})
    borrowed = {same[k][1] for k in keys if k in same}
    return [k for k in getattr(mod, "SWEPT", {}) if k in keys or k in borrowed]


def calibrate_bench(mod, suite: str, bench: str, keys: list, params: dict, quick: bool,
                    calls: int, new_handle: Callable, say: Callable) -> dict:
    """{column key: Calibration} for the swept columns that `keys` need."""
    space = mod.space(bench, params)
    if quick:
        space = space.reduced()
    return {key: calibrate_column(suite, bench, key, mod.SWEPT[key], params, space, calls,
                                  new_handle, say) for key in sources(mod, keys)}


def calibrate_column(suite, bench, key, system, params, space, calls, new_handle,
                     say) -> Calibration:
    """One system's calibration, in a worker of its own (restarted if a
    parameter set kills it)."""
    state: dict = {"h": None}

    def drop():
        if state["h"] is not None:
            state["h"].close(kill=True)
            state["h"] = None

    def trial(sched) -> Trial:
        try:
            if state["h"] is None:
                state["h"] = new_handle()
            rep = state["h"].trial(suite, bench, key, params, sched, calls)
        except Exception as e:     # a crash at one set (WorkerError) is that set's failure
            drop()
            return Trial(sched, "fails", f"{type(e).__name__}: {e}")
        if rep["status"] == "n/a":
            raise _NotAvailable(rep["note"])
        status = rep["status"] if rep["time"] is not None else "fails"
        return Trial(sched, status, rep["note"], rep["detail"], rep["compile_s"],
                     [rep["time"]])

    def retime(sched) -> Optional[float]:
        try:
            return None if state["h"] is None else state["h"].retime(sched, calls)
        except Exception:
            drop()
            return None

    try:
        return calibrate(key, system, space, trial, retime, say)
    except _NotAvailable as e:
        return Calibration(key, system, space.default(), "none", note=f"n/a ({e})")
    finally:
        if state["h"] is not None:
            state["h"].close()


def sched_for(mod, key: str, cals: dict):
    """(parameters, why not) for a column: a swept column's best set (None:
    the defaults), a same-schedule column's source's best set."""
    if key in getattr(mod, "SWEPT", {}):
        cal = cals.get(key)
        return (cal.best if cal is not None else None), ""
    same = getattr(mod, "SAME_SCHEDULE", {})
    if key in same:
        cal = cals.get(same[key][1])
        if cal is None or cal.best is None:
            why = cal.note if cal is not None and cal.note else "not calibrated"
            return None, f"{mod.SWEPT[same[key][1]]}'s best parameters unknown: {why}"
        return cal.best, ""
    return None, ""


# ---- the report -------------------------------------------------------------------------------
def _values_text(p: Param) -> str:
    return f"{p.name} " + "/".join(str(v) for v in p.values)


def _best_text(cal: Optional[Calibration], notes) -> str:
    if cal is None:
        return "—"
    if cal.best is None:
        return notes.ref(f"{cal.system}: {cal.note}") if cal.note else "—"
    from .protocol import fmt_time
    t = cal.best_trial()
    wrong = " wrong" if t.status == "wrong" else ""
    return f"{fmt_sched(cal.best)} ({fmt_time(t.time)} ms{wrong})"


def _bad_text(cal: Optional[Calibration], bench: str, notes) -> str:
    """Every set that failed or was wrong, grouped by reason, as notes."""
    if cal is None:
        return "—"
    groups: dict = {}
    for t in cal.bad():
        why = t.note if t.status == "fails" else (t.detail or "differs from the truth")
        why = re.sub(r"\$\d+\b", "", why)        # Halide's per-definition name suffixes
        # wrong values differ from set to set: group by the results that are wrong
        names = re.findall(r"(?:^|; )([\w ]+?) = ", why) if t.status == "wrong" else []
        key = (t.status, ", ".join(names) if names else why)
        groups.setdefault(key, (why, t.note if t.status == "wrong" else "", []))[2] \
            .append(t.sched)
    refs = []
    for (status, key), (why, note, scheds) in groups.items():
        sets = "every set tried" if len(scheds) == len(cal.trials) else \
            "; ".join(fmt_sched(s) for s in scheds)
        what = f"{key} wrong, e.g. {why}" if key != why else why
        what += f" ({note})" if note else ""
        refs.append(f"{len(scheds)} {status} " + notes.ref(
            f"{cal.system}, {bench}, {status} at {len(scheds)} parameter set(s): {sets}: "
            f"{what}"))
    return ", ".join(refs) if refs else "none"


def render_params(res, notes) -> list:
    """The parameters table of a suite that sweeps (lines of Markdown)."""
    from .protocol import md_table
    mod = __import__(f"pyhalide.bench.{res.suite}", fromlist=["space"])
    if not getattr(mod, "SWEPT", None):
        return []
    systems = list(mod.SWEPT.items())
    if not res.swept:
        rows = [[b.name, fmt_sched(mod.space(b.name, res.params).default())]
                for b in res.benches]
        return ["Schedule parameters: the fixed defaults for every system (no calibration "
                "round):", "", md_table(["benchmark", "parameters"], rows), ""]
    if not any(b.calibrations for b in res.benches):     # no swept column was asked for
        return []
    rows = []
    for b in res.benches:
        space = mod.space(b.name, res.params)
        if res.quick:
            space = space.reduced()
        cals = [b.calibrations.get(k) for k, _ in systems]
        tried = " / ".join(str(len(c.trials)) if c else "—" for c in cals)
        how = next((c.how for c in cals if c is not None and c.trials), "—")
        rows.append([b.name, ", ".join(_values_text(p) for p in space.params) + f" ({how})",
                     fmt_sched(space.default())] +
                    [_best_text(c, notes) for c in cals] + [tried] +
                    [_bad_text(c, b.name, notes) for c in cals])
    headers = (["benchmark", "swept", "default"] + [f"{s} best" for _, s in systems] +
               ["sets tried (" + " / ".join(s for _, s in systems) + ")"] +
               [f"{s}: failed or wrong" for _, s in systems])
    where = "in this process (quick mode)" if res.in_process else "its own worker process"
    return [f"Schedule parameters: a calibration round per system ({where}; each parameter "
            f"set defined, compiled, checked against the truth, then measured {PASSES} times "
            f"(a warm-up call, then the minimum of {res.calls} calls; the later passes in "
            f"alternating order), the {RETIME} fastest once more, a set's time being the "
            f"minimum of its measurements) chose each system's best set (the time in "
            f"parentheses is the calibration's); the rounds below ran each system at its "
            f"best. Lanes are counted in elements; one native vector of this host is "
            f"{native_vector_bytes()} bytes ({native_lanes(4)} int32/float32 lanes), for "
            f"every system.", "",
            md_table(headers, rows), ""]


# ---- the targets of best against best -------------------------------------------------------
BEST_GOAL, SAME_GOAL, BOUND_SLACK = 1.00, 1.05, 1.15


def _faster_in_rounds(cells, a: str, b: str) -> bool:
    """Whether column a ran correct and faster than column b (median over rounds)."""
    ca, cb = cells.get(a), cells.get(b)
    if ca is None or cb is None or not (ca.timed and ca.correct):
        return False
    if not (cb.timed and cb.correct):
        return True
    return ca.median() < cb.median()


def halide_targets(res, b, ph: str, hl: str, same: str, what: str,
                   bound: Optional[str] = None) -> list:
    """Target rows of pyhalide against Halide (PERFORMANCE.md): best against
    best ≤ 1.00, pyhalide at Halide's best parameters ≤ 1.05; either counts as
    met where both sides are within 1.15× of the bandwidth bound (`bound`: its
    column, where the benchmark is bandwidth-bound)."""
    from .protocol import TargetRow, fmt_ratio, verdict
    c = b.cells
    label = f"{what}, best vs best" if res.swept else \
        f"{what} (default parameters, not swept)"
    if hl not in c or not c[hl].timed:
        return [TargetRow(label, b.name, "Halide n/a", f"≤ {BEST_GOAL:.2f}", "n/a")]
    extra = "" if c[hl].correct else " (Halide's answer is wrong)"
    use_bound = bound is not None and bound in c and c[bound].timed
    hl_bound = b.paired(hl, bound) if use_bound else None
    rows = []
    if res.swept and _faster_in_rounds(c, same, ph):
        # both columns are pyhalide parameter sets measured in the same rounds: its
        # best is the faster of the two (the calibration's choice is one noisy pass)
        ph = same
        label += " (pyhalide's best: Halide's parameters, faster in the rounds than its own pick)"
    checks = [(label, ph, BEST_GOAL)]
    if res.swept:
        checks.append((f"{what}, same schedule (Halide's best parameters)", same, SAME_GOAL))
    for name, num, goal in checks:
        goal_text = f"≤ {goal:.2f}" + (", or both ≤ 1.15× the bound" if use_bound else "")
        if num not in c or not c[num].timed:
            rows.append(TargetRow(name, b.name, "did not run", goal_text, "n/a"))
            continue
        x = b.paired(num, hl)
        met = verdict(x, goal)
        if met == "NO" and use_bound:
            ph_bound = b.paired(num, bound)
            if ph_bound is not None and hl_bound is not None and \
                    max(ph_bound, hl_bound) <= BOUND_SLACK:
                met = f"yes (both within {BOUND_SLACK:.2f}× of the bound)"
        rows.append(TargetRow(name, b.name, fmt_ratio(x) + extra, goal_text, met))
    return rows
