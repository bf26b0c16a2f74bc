"""The six reductions of "Parallel Associative Reductions in Halide" (CGO
2017, Table 1) with their rfactor schedules — split + rfactor + parallel +
vectorize, as in Halide's test/performance/rfactor.cpp — each checked against
the same algorithm under the serial schedule, and timed side by side.

    python examples/rfactor_benchmarks.py [log2_size] [repeats]   (default 20, 10)

The algorithms are those of paper_reductions.py (built twice on the same
data: once left serial, once scheduled). argmin4d and kitchen_sink keep the
first occurrence of the extreme, as their serial loops do: rfactor rewrites
argmin/argmax to an exact lexicographic operator, so the factored result is
the serial one bit for bit (the float dot product is reassociated, and is
checked within a tolerance).
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

import pyhalide as ph

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paper_reductions import make_all  # noqa: E402

SIZES = {"histogram2d": [256]}


def _rvar(name: str) -> ph.RVar:
    """The RVar of paper_reductions' RDom "r" (RVars are found by name)."""
    return ph.RVar(f"r${name}")


def _one_d(f, chunk: int, vec_u: int | None = None):
    """Chunks of `chunk` in parallel, each reduced 8 lanes wide, the lanes
    then merged (max, complex_mul, dot, kitchen_sink)."""
    rxo, rxi, rxio, rxii = ph.RVar("rxo"), ph.RVar("rxi"), ph.RVar("rxio"), ph.RVar("rxii")
    u, v = ph.Var("u"), ph.Var("v")
    f.update().split(_rvar("x"), rxo, rxi, chunk)
    intm = f.update().rfactor(rxo, u)
    intm.compute_root()
    if vec_u:
        intm.vectorize(u, vec_u)
    intm.update().parallel(u).split(rxi, rxio, rxii, 8) \
        .rfactor(rxii, v).compute_at(intm, u).vectorize(v).update().vectorize(v)


def schedule_max(f):
    _one_d(f, 4 * 8192)


def schedule_histogram2d(f):
    x = f.args()[0]
    u = ph.Var("u")
    ryo, ryi = ph.RVar("ryo"), ph.RVar("ryi")
    f.update().split(_rvar("y"), ryo, ryi, 16).rfactor(ryo, u) \
        .compute_root().vectorize(x, 8).update().parallel(u)
    f.update().vectorize(x, 8)


def schedule_argmin4d(f):
    u, v = ph.Var("u"), ph.Var("v")
    intm1 = f.update(0).rfactor(_rvar("w"), u)
    intm1.compute_root()
    intm1.update(0).parallel(u)
    rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
    intm2 = intm1.update(0).split(_rvar("x"), rxo, rxi, 16).rfactor(rxi, v)
    intm2.compute_at(intm1, u)
    intm2.update(0).vectorize(v)


def schedule_complex_mul(f):
    _one_d(f, 2 * 8192, vec_u=8)


def schedule_dot(f):
    _one_d(f, 4 * 8192)


def schedule_kitchen_sink(f):
    _one_d(f, 8192)


SCHEDULES = {"max": schedule_max, "histogram2d": schedule_histogram2d,
             "argmin4d": schedule_argmin4d, "complex_mul": schedule_complex_mul,
             "dot": schedule_dot, "kitchen_sink": schedule_kitchen_sink}


def _arrays(result) -> list:
    return [np.asarray(b) for b in (result if isinstance(result, tuple) else (result,))]


def _best(f, sizes, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f.realize(sizes)
        times.append(time.perf_counter() - t)
    return min(times)


def check(name: str, serial: list, factored: list, exact=None):
    """The factored results equal the serial ones bit for bit; dot's (float32
    sums reassociated) is as close to the exact sum `exact` as the serial
    loop's, within twice its error."""
    for s, g in zip(serial, factored):
        if name == "dot":
            err = abs(float(s) - exact)
            assert abs(float(g) - exact) <= 2 * err + 1e-6 * abs(exact), (float(g), float(s), exact)
        else:
            np.testing.assert_array_equal(g, s)


def exact_dot(f) -> float:
    """The exact dot product of the inputs of Func `f` (float64 products and sum)."""
    from pyhalide.graph import collect_graph
    graph = collect_graph([f.function()])
    a, b = (graph.input_array(n).astype(np.float64) for n in ("da", "db"))
    return float(np.dot(a, b))


def build_pair(name: str, log2n: int):
    """(serial Func, rfactor-scheduled Func) of benchmark `name`, on the same
    data."""
    serial, _ = make_all(log2n)[name]
    factored, _ = make_all(log2n)[name]
    SCHEDULES[name](factored)
    return serial, factored


def main(log2n: int = 20, repeats: int = 10):
    print(f"2^{log2n} elements, min of {repeats} runs; compile times in s, runs in ms")
    print(f"{'benchmark':14s} {'compile':>8s} {'serial':>9s} {'compile':>8s} {'rfactor':>9s} "
          f"{'speedup':>8s}  equal")
    for name in SCHEDULES:
        sizes = SIZES.get(name, [])
        serial, factored = build_pair(name, log2n)
        t0 = time.perf_counter()
        serial.compile_jit()
        t1 = time.perf_counter()
        factored.compile_jit()
        t2 = time.perf_counter()
        want = _arrays(serial.realize(sizes))
        got = _arrays(factored.realize(sizes))
        check(name, want, got, exact_dot(serial) if name == "dot" else None)
        ts, tf = [], []
        for _ in range(repeats):            # interleaved, so drift hits both alike
            ts.append(_best(serial, sizes, 1))
            tf.append(_best(factored, sizes, 1))
        s, f = min(ts), min(tf)
        print(f"{name:14s} {t1 - t0:8.2f} {s * 1e3:9.2f} {t2 - t1:8.2f} {f * 1e3:9.2f} "
              f"{s / f:7.1f}x  yes")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
