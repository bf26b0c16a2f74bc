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

With --pipelines: the @pipeline examples of the repository
(examples/pipelines: the six reductions as plain loops, blur, histogram
equalization) with their shipped side-file schedules (`hand`), with
`schedule="auto"` and with the default schedule (`serial`).

    python -m pyhalide.bench.autoschedule [LOG2_SIZE] [--threads N] [--rounds R]
    python -m pyhalide.bench.autoschedule [LOG2_SIZE] --pipelines
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


def _values(result) -> list:
    """A realize() result (pyhalide or Halide) as NumPy values and arrays."""
    import numpy as np
    arrays = [np.array(b, copy=True) for b in (result if isinstance(result, (tuple, list))
                                               else [result])]
    return [a[()] if a.ndim == 0 else a for a in arrays]


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
            ok, detail = bench.check(_values(run()), truth, data)
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


def _example(name):
    import importlib.util
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "examples", "pipelines", name + ".py")
    if not os.path.exists(path):
        raise SystemExit(f"--pipelines needs the repository's examples ({path} is missing)")
    spec = importlib.util.spec_from_file_location(f"_bench_example_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _agree(a, b, exact: bool) -> bool:
    """Equal results (a float32 sum a schedule reassociates: within 1e-3 of the
    serial one, whose own rounding error grows with the length)."""
    import numpy as np
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_agree(x, y, exact) for x, y in zip(a, b))
    if exact:
        return np.array_equal(np.asarray(a), np.asarray(b))
    return bool(np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-3))


def measure_pipelines(size_log2: int, rounds: int):
    """{name: {"hand"|"auto"|"serial": seconds}} of the @pipeline examples."""
    import numpy as np

    import pyhalide as ph
    pr, blur, he = _example("paper_reductions"), _example("blur"), _example(
        "histogram_equalization")
    side = 1 << (size_log2 // 2)
    rng = np.random.default_rng(0)
    cases = [(p.__name__, p, args) for p, args in pr.inputs(size_log2).items()]
    cases.append(("blur", blur.blur, (rng.integers(0, 2 ** 16, (side, side), dtype=np.uint16),)))
    cases.append(("equalize", he.equalize,
                  (rng.normal(100, 20, (side, side)).clip(0, 255).astype(np.uint8),)))
    results, notes = {}, []
    for name, hand, args in cases:
        runs = {"hand": hand, "auto": ph.pipeline(hand.py_func, schedule="auto"),
                "serial": ph.pipeline(hand.py_func, schedule="serial")}
        outs = {k: q(*args) for k, q in runs.items()}
        for k in ("hand", "auto"):
            if not _agree(outs[k], outs["serial"], exact=name != "dot"):
                notes.append(f"{name} {k}: differs from the default schedule")
        best = dict.fromkeys(runs, math.inf)
        for _ in range(rounds):
            for k, q in runs.items():
                t0 = time.perf_counter()
                q(*args)
                best[k] = min(best[k], time.perf_counter() - t0)
        results[name] = best
    return results, notes


def render_pipelines(results, notes, size_log2) -> str:
    lines = [f"@pipeline examples, 2^{size_log2} elements, load "
             f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} (ms, best of the rounds)", "",
             "| pipeline | hand (side file) | auto | serial | auto / hand |", "|---|---|---|---|---|"]
    ratios = []
    for name, b in results.items():
        ratios.append(b["auto"] / b["hand"])
        lines.append(f"| {name} | {b['hand'] * 1e3:.3f} | {b['auto'] * 1e3:.3f} | "
                     f"{b['serial'] * 1e3:.3f} | {ratios[-1]:.2f} |")
    geo = math.exp(sum(map(math.log, ratios)) / len(ratios))
    return "\n".join(lines + ["", f"geomean auto / hand: {geo:.2f}"] +
                     [f"- note: {n}" for n in notes])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("size_log2", nargs="?", type=int, default=22)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--bench", action="append", help="only these benchmarks")
    ap.add_argument("--pipelines", action="store_true",
                    help="the @pipeline examples against their side-file schedules")
    a = ap.parse_args(argv)
    if a.pipelines:
        results, notes = measure_pipelines(a.size_log2, a.rounds)
        print(render_pipelines(results, notes, a.size_log2))
        return
    results, notes = measure(a.size_log2, a.threads, a.rounds, a.bench)
    print(render(results, notes, a.size_log2, a.threads))


if __name__ == "__main__":
    main()
