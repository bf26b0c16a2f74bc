"""The six rfactor benchmarks of the CGO 2017 paper, each written twice and
run with the same schedule on the same data: as plain Python loops with
@pipeline (paper_reductions.py here; symbolic sizes) and with the Func API
(../paper_reductions.py with the schedules of ../rfactor_benchmarks.py;
constant sizes). Prints the Func API time, the @pipeline time and their
ratio (min over interleaved runs), and checks that both results are equal.

The @pipeline side gets the schedules of paper_reductions_schedules/_common.py
with 8 lanes (what its x86 side files apply), so both sides run the same
loops; the ratio measures what symbolic sizes and the call path cost.
`--serial` runs both sides unscheduled instead. The ratio column is the
ratio of the minimum times; "spread" is the ratio of the median times.

    python examples/pipelines/frontend_vs_func.py [--serial] [log2_size] [repeats] [name ...]
                                                   (default 24, 15, all six)
"""
from __future__ import annotations

import importlib.util
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import paper_reductions as func_api  # noqa: E402  (examples/)
from rfactor_benchmarks import SCHEDULES, SIZES  # noqa: E402

import pyhalide as ph  # noqa: E402

LANES = 8


def _load(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# examples/pipelines/paper_reductions.py has the same module name as the
# Func API's examples/paper_reductions.py: loaded by path
loops = _load("_paper_reductions_loops", os.path.join(HERE, "paper_reductions.py"))
common = _load("_paper_reductions_common",
               os.path.join(HERE, "paper_reductions_schedules", "_common.py"))

# benchmark -> (@pipeline function, Func API builder, schedule of the @pipeline side)
BENCHMARKS = {
    "max": (loops.max_reduction, func_api.max_reduction, common.max_reduction),
    "histogram2d": (loops.histogram2d, func_api.histogram2d, common.histogram2d),
    "argmin4d": (loops.argmin4d, func_api.argmin4d, common.argmin4d),
    "complex_mul": (loops.complex_mul, func_api.complex_mul, common.complex_mul),
    "dot": (loops.dot, func_api.dot, common.dot),
    "kitchen_sink": (loops.kitchen_sink, func_api.kitchen_sink, common.kitchen_sink),
}

# the Func API's argmin4d returns (value, r.x, r.y, r.z, r.w), r.x innermost;
# the loops return (value, i, j, k, l) in NumPy axis order
ORDER = {"argmin4d": (0, 4, 3, 2, 1)}


def build(name: str, args, serial: bool = False):
    """(the @pipeline function, the Func) on `args`, both scheduled, or
    both left serial."""
    fn, make_func, schedule = BENCHMARKS[name]
    if serial:
        return ph.pipeline(fn.py_func, schedule="serial"), make_func(*args)[0]
    p = ph.pipeline(fn.py_func, schedule=lambda view: schedule(view, LANES))
    f, _ = make_func(*args)
    SCHEDULES[name](f)
    return p, f


def _values(result, order=None) -> list:
    vals = [np.asarray(v) for v in (result if isinstance(result, tuple) else (result,))]
    return [vals[i] for i in order] if order else vals


def same(name: str, got_loops, got_func) -> bool:
    a, b = _values(got_loops), _values(got_func, ORDER.get(name))
    return len(a) == len(b) and all(np.array_equal(x, y.astype(x.dtype)) for x, y in zip(a, b))


def compare(name: str, args, repeats: int, serial: bool = False):
    """(Func API seconds, @pipeline seconds, results equal, ratio of the
    median times)."""
    p, f = build(name, args, serial)
    sizes = SIZES.get(name, [])
    equal = same(name, p(*args), f.realize(sizes))
    tf, tp = [], []
    for _ in range(repeats):                 # interleaved, so drift hits both alike
        t = time.perf_counter()
        f.realize(sizes)
        tf.append(time.perf_counter() - t)
        t = time.perf_counter()
        p(*args)
        tp.append(time.perf_counter() - t)
    return min(tf), min(tp), equal, float(np.median(tp) / np.median(tf))


def main(log2n: int = 24, repeats: int = 15, names=None, serial: bool = False):
    data = loops.inputs(log2n)
    print(f"2^{log2n} elements, {'serial' if serial else 'scheduled'}, min of {repeats} "
          f"interleaved runs")
    print(f"{'benchmark':14s} {'Func API ms':>12s} {'@pipeline ms':>13s} {'ratio':>6s} "
          f"{'spread':>7s}  equal")
    ok = True
    for name in names or BENCHMARKS:
        tf, tp, equal, med = compare(name, data[BENCHMARKS[name][0]], repeats, serial)
        ok &= equal
        print(f"{name:14s} {tf * 1e3:12.2f} {tp * 1e3:13.2f} {tp / tf:6.2f} {med:7.2f}  "
              f"{'yes' if equal else 'NO'}", flush=True)
    if not ok:
        raise SystemExit("@pipeline and the Func API disagree")


if __name__ == "__main__":
    argv = sys.argv[1:]
    serial = "--serial" in argv
    argv = [a for a in argv if a != "--serial"]
    main(int(argv[0]) if argv else 24, int(argv[1]) if len(argv) > 1 else 15, argv[2:] or None,
         serial)
