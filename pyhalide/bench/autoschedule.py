"""The automatic scheduler against hand-written rfactor schedules and Halide
21's autoschedulers, on the six CGO 2017 reductions of suite 1 (the same
algorithms and data):

- `hand`: suite 1's rfactor schedule (Halide's test/performance/rfactor.cpp);
- `auto`: `Pipeline.apply_autoscheduler(AutoschedulerParams("pyhalide"))`;
- `Mullapudi2016`, `Adams2019`, `Li2018`: Halide 21's autoschedulers on the
  same algorithm (the wheel's plugins), where Halide is installed;
- `serial`: pyhalide without a schedule.

Each column is compiled first, then timed in interleaved rounds (the minimum
of each is kept); every result is checked against suite 1's truth. Prints a
Markdown table with auto / hand and best Halide / auto.

    python -m pyhalide.bench.autoschedule [LOG2_SIZE] [--threads N] [--rounds R]
"""
from __future__ import annotations

import argparse
import math
import os
import time

from . import suite1 as S

HALIDE_SCHEDULERS = ("Mullapudi2016", "Adams2019", "Li2018")


def _estimates(hl_or_ph, f, name, data):
    """Estimates of the output (and nothing else: every input is a Buffer)."""
    if name == "histogram2d":
        f.set_estimates([(0, 256)])


def build_pyhalide(name, data, column, threads):
    import pyhalide as ph
    f, r, sizes = S.ALGORITHMS[name](ph, data)
    if column == "hand":
        S.SCHEDULES[name](ph, f, r, S.DEFAULTS[name])
    elif column == "auto":
        _estimates(ph, f, name, data)
        params = ph.AutoschedulerParams("pyhalide", {"parallelism": str(threads)})
        ph.Pipeline([f]).apply_autoscheduler(params=params)
    f.compile_jit()
    return lambda: f.realize(sizes)


def build_halide(name, data, scheduler, threads):
    import halide as hl
    lib = os.path.join(os.path.dirname(hl.__file__), "lib64",
                       f"libautoschedule_{scheduler.lower()}.so")
    hl.load_plugin(lib if os.path.exists(lib) else "autoschedule_" + scheduler.lower())
    f, r, sizes = S.ALGORITHMS[name](hl, data)
    _estimates(hl, f, name, data)
    p = hl.Pipeline(f)
    target = hl.get_host_target()
    p.apply_autoscheduler(target, hl.AutoschedulerParams(scheduler,
                                                         {"parallelism": str(threads)}))
    p.compile_jit(target)
    return lambda: p.realize(sizes)


def measure(size_log2: int, threads: int, rounds: int, names=None):
    """{name: {column: seconds or None}} and notes."""
    params = S.default_params(size_log2)
    results, notes = {}, []
    for name in names or list(S.ALGORITHMS):
        bench = S.BENCHMARKS[name]
        data = bench.make_data(params)
        truth = bench.truth(data)
        runs = {}
        for column in ("hand", "auto", "serial"):
            runs[column] = build_pyhalide(name, data, column, threads)
        for sched in HALIDE_SCHEDULERS:
            try:
                runs[sched] = build_halide(name, data, sched, threads)
            except Exception as e:      # noqa: BLE001 - a peer that cannot run shows n/a
                notes.append(f"{name} {sched}: {type(e).__name__}: {str(e).splitlines()[0][:90]}")
        best = {}
        for column, run in runs.items():
            ok, detail = bench.check(S._values(run()), truth, data)
            if not ok:
                notes.append(f"{name} {column}: wrong result ({detail})")
                continue
            best[column] = math.inf
        for _ in range(rounds):
            for column in best:
                t0 = time.perf_counter()
                runs[column]()
                best[column] = min(best[column], time.perf_counter() - t0)
        results[name] = best
    return results, notes


def render(results, notes, size_log2, threads) -> str:
    cols = ("hand", "auto", "serial") + HALIDE_SCHEDULERS
    lines = [f"Automatic schedules, 2^{size_log2} elements, {threads} threads, load "
             f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} (ms, best of the rounds)", "",
             "| benchmark | " + " | ".join(cols) + " | auto / hand | best Halide / auto |",
             "|---" * (len(cols) + 3) + "|"]
    ratios, halide = [], []
    for name, best in results.items():
        cells = [f"{best[c] * 1e3:.3f}" if c in best else "n/a" for c in cols]
        a, h = best.get("auto"), best.get("hand")
        hl = [best[c] for c in HALIDE_SCHEDULERS if c in best]
        r1 = f"{a / h:.2f}" if a and h else "n/a"
        r2 = f"{min(hl) / a:.2f}" if a and hl else "n/a"
        if a and h:
            ratios.append(a / h)
        if a and hl:
            halide.append(min(hl) / a)
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {r1} | {r2} |")

    def geo(xs):
        return f"{math.exp(sum(map(math.log, xs)) / len(xs)):.2f}" if xs else "n/a"
    lines += ["", f"geomean auto / hand: {geo(ratios)}; best Halide / auto: {geo(halide)}"]
    lines += [f"- note: {n}" for n in notes]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("size_log2", nargs="?", type=int, default=22)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--bench", action="append", help="only these benchmarks")
    a = ap.parse_args(argv)
    results, notes = measure(a.size_log2, a.threads, a.rounds, a.bench)
    print(render(results, notes, a.size_log2, a.threads))


if __name__ == "__main__":
    main()
