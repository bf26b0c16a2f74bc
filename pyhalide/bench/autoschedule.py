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
equalization, conv5x5) with their shipped side-file schedules (`hand`), with
`schedule="auto"`, with the default schedule (`serial`) and Halide 21's
autoschedulers on the same algorithm (suites 1 and 2; histogram equalization
dividing by a run-time w * h, as the loop does) and data.

    python -m pyhalide.bench.autoschedule [LOG2_SIZE] [--threads N] [--rounds R]
    python -m pyhalide.bench.autoschedule [LOG2_SIZE] --pipelines [--threads 1 --cpu]
"""
from __future__ import annotations

import argparse
import contextlib
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


def measure(size_log2: int, threads: int, rounds: int, names=None, cpu=False):
    """{name: {column: seconds or None}} and notes (`cpu`: CPU time, for one
    thread on a loaded machine)."""
    from ..ir.config import override
    clock = time.process_time if cpu else time.perf_counter
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
        with override(num_threads=threads):
            for _ in range(rounds):
                for column in best:
                    t0 = clock()
                    runs[column]()
                    best[column] = min(best[column], clock() - t0)
        results[name] = best
    return results, notes


def render(results, notes, size_log2, threads, cpu=False) -> str:
    cols = ("hand", "auto", "serial") + HALIDE_SCHEDULERS
    lines = [f"Automatic schedules, 2^{size_log2} elements, {threads} threads, load "
             f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} (ms "
             f"{'of CPU' if cpu else 'wall'}, best of the rounds)", "",
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


def _near_truth(bench, out, data, suite_name) -> bool:
    """Whether a float reduction's result passes suite 1's check against the
    exact value (a reassociated float32 sum of 2^24 products can be further
    from the serial sum than _agree allows, and nearer the truth)."""
    if suite_name != "suite1" or isinstance(out, tuple):
        return False
    return bool(bench.check(_values(out), bench.truth(data), data)[0])


# The @pipeline examples and the suite whose data and Func-API algorithm
# (for Halide's autoschedulers) each one shares: (example module, pipeline,
# suite, suite name, the suite data's arguments of the pipeline)
_PIPELINES = (
    ("paper_reductions", "max_reduction", "suite1", "max", ("a",)),
    ("paper_reductions", "histogram2d", "suite1", "histogram2d", ("img",)),
    ("paper_reductions", "argmin4d", "suite1", "argmin4d", ("a",)),
    ("paper_reductions", "complex_mul", "suite1", "complex_mul", ("re", "im")),
    ("paper_reductions", "dot", "suite1", "dot", ("a", "b")),
    ("paper_reductions", "kitchen_sink", "suite1", "kitchen_sink", ("a",)),
    ("blur", "blur", "suite2", "blur", ("img",)),
    ("histogram_equalization", "equalize", "suite2", "histeq", ("img",)),
    ("conv5x5", "conv5x5", "suite2", "conv5x5", ("img",)),
)


def _halide_image_pipeline(suite, name, data, scheduler, threads):
    """Halide 21's autoscheduler `scheduler` on suite 2's algorithm `name`,
    its output allocated by each call (as a @pipeline's is)."""
    import halide as hl
    import numpy as np
    _load_plugin(hl, scheduler)
    out_f = _histeq_runtime_divisor(hl, data) if name == "histeq" else \
        suite.ALGORITHMS[name](hl, data)[0]
    out_f.set_estimates([(0, data["shape"][1]), (0, data["shape"][0])])
    p = hl.Pipeline(out_f)
    target = hl.get_host_target()
    p.apply_autoscheduler(target, hl.AutoschedulerParams(scheduler,
                                                         {"parallelism": str(threads)}))
    p.compile_jit(target)
    width, height = data["shape"][1], data["shape"][0]
    return lambda: np.asarray(p.realize([width, height]))   # allocated, as @pipeline's


def _histeq_runtime_divisor(hl, data):
    """Suite 2's histogram equalization with the divisor of its lookup a
    run-time value (Param n = w * h, estimated), as the @pipeline loop's
    `h * w` from the image's shape is: Halide with suite 2's compile-time
    constant divides by multiplying (1-thread CPU, 4096^2: 17-20 ms against
    52 ms with the Param); a @pipeline compiles per size class, not per shape."""
    from . import suite2
    image = data["img"]
    h, w = image.shape
    _, fs = suite2.alg_histeq(hl, data)
    x, y = fs["x"], fs["y"]
    n = hl.Param(hl.Int(64), "n", w * h)
    n.set_estimate(w * h)
    out = hl.Func("equalized")
    level = fs["cdf"][hl.cast(hl.Int(32), hl.Buffer(image, "image_lookup")[x, y])]
    out[x, y] = hl.cast(hl.UInt(8), (hl.cast(hl.Int(64), level) * 255) / n)
    return out


def _load_plugin(hl, scheduler):
    lib = os.path.join(os.path.dirname(hl.__file__), "lib64",
                       f"libautoschedule_{scheduler.lower()}.so")
    hl.load_plugin(lib if os.path.exists(lib) else "autoschedule_" + scheduler.lower())


@contextlib.contextmanager
def _scheduler_time():
    """[CPU seconds of each run of the automatic scheduler (planning and
    applying its decisions: autoschedule.schedule_specialization)]."""
    from .. import autoschedule
    plan, spent = autoschedule.schedule_specialization, []

    def timed(*args, **kwargs):
        t0 = time.process_time()
        try:
            return plan(*args, **kwargs)
        finally:
            spent.append(time.process_time() - t0)
    autoschedule.schedule_specialization = timed
    try:
        yield spent
    finally:
        autoschedule.schedule_specialization = plan


def measure_pipelines(size_log2: int, rounds: int, threads: int, names=None, cpu=False,
                      schedulers=HALIDE_SCHEDULERS):
    """{name: {column: seconds}} of the @pipeline examples: their side-file
    schedule (`hand`), `schedule="auto"`, the default schedule (`serial`) and
    Halide 21's autoschedulers on the same algorithm and data (suite 1 at
    2^size_log2 elements, suite 2 at a side of 2^(size_log2 // 2)), timed in
    interleaved rounds (`schedulers`: Halide's to run; `cpu`: the process's
    CPU time, for one thread on a loaded machine; else wall time);
    `compile`: the first call of auto
    (seconds, CPU); `scheduler`: the automatic scheduler's part of it."""
    import importlib

    import numpy as np

    import pyhalide as ph

    from ..ir.config import override
    results, notes = {}, []
    clock = time.process_time if cpu else time.perf_counter
    for module, pname, suite_name, name, arg_names in _PIPELINES:
        if names and pname not in names and name not in names:
            continue
        suite = importlib.import_module(f"pyhalide.bench.{suite_name}")
        bench = suite.BENCHMARKS[name]
        data = bench.make_data(suite.default_params(size_log2 if suite_name == "suite1"
                                                    else size_log2 // 2))
        args = tuple(data[a] for a in arg_names)
        hand = getattr(_example(module), pname)
        runs = {"hand": hand, "auto": ph.pipeline(hand.py_func, schedule="auto"),
                "serial": ph.pipeline(hand.py_func, schedule="serial")}
        with override(num_threads=threads):
            # the hand schedule first: its rfactor imports what auto's would (z3, tables)
            outs = {k: runs[k](*args) for k in ("hand", "serial")}
            with _scheduler_time() as spent:
                t0 = time.process_time()
                outs["auto"] = runs["auto"](*args)
                compile_cpu = time.process_time() - t0
        for k in ("hand", "auto"):
            if not _agree(outs[k], outs["serial"], exact=name not in ("dot", "conv5x5")) \
                    and not _near_truth(bench, outs[k], data, suite_name):
                notes.append(f"{pname} {k}: differs from the default schedule")
        for sched in schedulers:
            try:
                if suite_name == "suite1":
                    run = build_halide(name, data, sched, threads)
                    ok, detail = bench.check(_values(run()), bench.truth(data), data)
                else:
                    run = _halide_image_pipeline(suite, name, data, sched, threads)
                    ok, detail = bench.check(np.array(run(), copy=True), bench.truth(data),
                                             data)
            except Exception as e:      # noqa: BLE001 - a peer that cannot run shows n/a
                notes.append(f"{pname} {sched}: {type(e).__name__}: "
                             f"{str(e).splitlines()[0][:90]}")
                continue
            if not ok:
                notes.append(f"{pname} {sched}: wrong result ({detail})")
                continue
            runs[sched] = run
        best = dict.fromkeys(runs, math.inf)
        with override(num_threads=threads):
            for _ in range(rounds):
                for k, q in runs.items():
                    t0 = clock()
                    q(*args) if k in ("hand", "auto", "serial") else q()
                    best[k] = min(best[k], clock() - t0)
        best["compile"], best["scheduler"] = compile_cpu, sum(spent)
        results[pname] = best
    return results, notes


def render_pipelines(results, notes, size_log2, threads, cpu=False) -> str:
    cols = ("hand", "auto", "serial") + HALIDE_SCHEDULERS
    lines = [f"@pipeline examples, 2^{size_log2} elements, {threads} threads, load "
             f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} (ms "
             f"{'of CPU' if cpu else 'wall'}, best of the rounds; "
             f"auto's first call and its scheduler's part in CPU seconds and ms)", "",
             "| pipeline | hand (side file) | auto | serial | " + " | ".join(HALIDE_SCHEDULERS)
             + " | auto / hand | best Halide / auto | auto 1st call s | scheduler ms |",
             "|---" * (len(cols) + 5) + "|"]
    ratios, halide = [], []
    for name, b in results.items():
        cells = [f"{b[c] * 1e3:.3f}" if c in b else "n/a" for c in cols]
        ratios.append(b["auto"] / b["hand"])
        hl = [b[c] for c in HALIDE_SCHEDULERS if c in b]
        if hl:
            halide.append(min(hl) / b["auto"])
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratios[-1]:.2f} | "
                     + (f"{halide[-1]:.2f}" if hl else "n/a")
                     + f" | {b['compile']:.2f} | {b['scheduler'] * 1e3:.1f} |")

    def geo(xs):
        return f"{math.exp(sum(map(math.log, xs)) / len(xs)):.2f}" if xs else "n/a"
    return "\n".join(lines + ["", f"geomean auto / hand: {geo(ratios)}; best Halide / auto: "
                                  f"{geo(halide)}"] + [f"- note: {n}" for n in notes])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("size_log2", nargs="?", type=int, default=24)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--bench", action="append", help="only these benchmarks")
    ap.add_argument("--pipelines", action="store_true",
                    help="the @pipeline examples against their side-file schedules")
    ap.add_argument("--cpu", action="store_true",
                    help="with --threads 1: time CPU, not wall (a loaded machine)")
    a = ap.parse_args(argv)
    os.environ["HL_NUM_THREADS"] = str(a.threads)     # Halide's pool, before its first use
    if a.pipelines:
        if a.cpu and a.threads != 1:
            raise SystemExit("--cpu times one thread: give --threads 1")
        results, notes = measure_pipelines(a.size_log2, a.rounds, a.threads, a.bench, a.cpu)
        print(render_pipelines(results, notes, a.size_log2, a.threads, a.cpu))
        return
    if a.cpu and a.threads != 1:
        raise SystemExit("--cpu times one thread: give --threads 1")
    results, notes = measure(a.size_log2, a.threads, a.rounds, a.bench, a.cpu)
    print(render(results, notes, a.size_log2, a.threads, a.cpu))


if __name__ == "__main__":
    main()
