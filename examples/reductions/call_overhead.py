"""The per-call cost around a kernel, warm and cold: after a bandwidth-bound
kernel has streamed tens of MiB through the caches, the Python code of the
next call runs with cold caches and TLB, and costs many times what a tight
loop of calls measures.

    python examples/reductions/call_overhead.py [--evict-mib 64] [--calls 300]

Suite 1's max over 64 int32 elements (the kernel itself takes well under a
microsecond), called through
  - Func.realize(sizes)      what suite 1's pyhalide columns time (a repeated
                             realize: its recorded call, pyhalide/realize_fast.py),
  - a new Pipeline([f]) realized once per call (the full path: no record),
  - Kernel(buffers, params)  the compiled kernel with bound arrays,
  - the ctypes entry         the machine code alone,
  - Halide's Func.realize and a Numba @njit loop (when installed),
each timed in the caller's thread CPU time (`time.thread_time`, so the load
of other processes counts less), the minimum and the 25th percentile of
`calls` calls: "warm" back to back, "cold" with `--evict-mib` MiB summed
before each call (what a bandwidth-bound kernel does to the caches).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

if __name__ == "__main__":
    os.environ.setdefault("PYHALIDE_NUM_THREADS", "1")

import pyhalide as ph  # noqa: E402
from pyhalide.bench import suite1  # noqa: E402


def callers(a: np.ndarray) -> dict:
    """{name: a function making one call}, each checked against NumPy."""
    f, _, sizes = suite1.alg_max(ph, {"a": a})
    f.realize(sizes)                # compiles; makes the Func's pipeline
    out = np.empty((), np.int32)
    kernel, buffers, params, _, _ = f._solo_pipeline.kernel_call([out])
    scratch = kernel._scratch
    kernel(buffers, params, True)
    fns = {"pyhalide Func.realize": lambda: f.realize(sizes),
           "pyhalide new Pipeline([f]).realize": lambda: ph.Pipeline([f]).realize(sizes),
           "pyhalide Kernel call": lambda: kernel(buffers, params, True),
           "pyhalide ctypes entry": lambda: kernel._fn(scratch.address)}
    want = int(a.max())
    assert int(np.asarray(f.realize(sizes))) == want and int(out) == want
    assert int(np.asarray(ph.Pipeline([f]).realize(sizes))) == want
    try:
        import halide as hl
        hf, _, hsizes = suite1.alg_max(hl, {"a": a})
        hf.compile_jit()
        assert int(np.asarray(hf.realize(hsizes))) == want
        fns["Halide Func.realize"] = lambda: hf.realize(hsizes)
    except ImportError:
        pass
    try:
        import numba

        @numba.njit
        def max_red(x):
            m = np.int32(-2147483648)
            for i in range(x.size):
                m = max(m, x[i])
            return m
        assert max_red(a) == want
        fns["Numba @njit"] = lambda: max_red(a)
    except ImportError:
        pass
    return fns


def measure(fn, evict, calls: int) -> tuple:
    """(minimum, 25th percentile) thread CPU time of one call, us."""
    ts = []
    for _ in range(calls):
        if evict is not None:
            evict.sum()
        t = time.thread_time()
        fn()
        ts.append(time.thread_time() - t)
    return np.min(ts) * 1e6, np.percentile(ts, 25) * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--evict-mib", type=int, default=64)
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    a = np.random.default_rng(0).integers(-2**31, 2**31 - 1, 64, dtype=np.int32)
    evict = np.ones(args.evict_mib << 20, np.uint8)
    print(f"load {os.getloadavg()[0]:.1f}; thread CPU per call, us (min / 25th percentile)")
    print(f"| caller | warm | cold (after {args.evict_mib} MiB) |")
    print("|---|---|---|")
    for name, fn in callers(a).items():
        w = measure(fn, None, args.calls)
        c = measure(fn, evict, args.calls)
        print(f"| {name} | {w[0]:.1f} / {w[1]:.1f} | {c[0]:.1f} / {c[1]:.1f} |")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
