"""What pyhalide's parallel runtime costs around a bandwidth-bound reduction
(suite 1's max), measured piece by piece, beside Numba's prange.

    python examples/reductions/pool_timeline.py [--log2 24] [--chunk 32768] [--calls 40]

1. Latency of an almost empty parallel loop: `pyhalide_par_for` called from a
   JIT driver and timed around each call with the cycle counter (extent 2 and
   512), beside a call of a Numba prange loop from Python (its dispatch
   included). Minimum and median of 2000 calls.
2. A per-chunk timeline of a 16-lane int32 max over 2^log2 elements in
   chunks of `chunk` (suite 1's rfactor schedule: one parallel iteration per
   chunk): each claimed range's start and end (from the call's start) and
   its thread. From the
   fastest of `calls` calls: when each thread started (wake-up), how many
   claims it made, the time it spent running chunks (busy) against the
   call's length (the rest is claiming, waiting and the tail), its read
   bandwidth while busy, and the last claims (tail imbalance).

Wall-clock measurements: run on a quiet machine (the load is printed).
"""
from __future__ import annotations

import argparse
import ctypes
import os
import time

import numpy as np

if __name__ == "__main__":          # two threads unless told otherwise
    os.environ.setdefault("PYHALIDE_NUM_THREADS", "2")
    os.environ.setdefault("NUMBA_NUM_THREADS", os.environ["PYHALIDE_NUM_THREADS"])

from pyhalide.lowering import parallel_runtime  # noqa: E402
from pyhalide.lowering.llvm_objects import load_runtime_module  # noqa: E402

LOG_SLOTS = 8192
MIN_I32 = ", ".join(["i32 -2147483648"] * 16)

# task(lo, hi, closure): the max of chunks [lo, hi), one result per chunk, and a
# log entry {start, end, lo, hi, thread}; closure {data, log, counter, results, chunk}
IR = r"""
declare i32 @pyhalide_par_for(ptr, i32, i32, ptr)
declare i64 @llvm.readcyclecounter()
declare i32 @llvm.vector.reduce.smax.v16i32(<16 x i32>)
declare <16 x i32> @llvm.smax.v16i32(<16 x i32>, <16 x i32>)
declare i64 @pthread_self()

define internal i32 @touch(i32 %lo, i32 %hi, ptr %clo) {
  %p = getelementptr i32, ptr %clo, i32 %lo
  store volatile i32 %hi, ptr %p
  ret i32 0
}

define void @latency(ptr %buf, ptr %times, i32 %reps, i32 %ext) {
entry:
  br label %loop
loop:
  %i = phi i32 [0, %entry], [%i1, %loop]
  %t0 = call i64 @llvm.readcyclecounter()
  call i32 @pyhalide_par_for(ptr @touch, i32 0, i32 %ext, ptr %buf)
  %t1 = call i64 @llvm.readcyclecounter()
  %d = sub i64 %t1, %t0
  %pt = getelementptr i64, ptr %times, i32 %i
  store i64 %d, ptr %pt
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %reps
  br i1 %more, label %loop, label %out
out:
  ret void
}

define internal i32 @max_task(i32 %lo, i32 %hi, ptr %clo) {
entry:
  %t0 = call i64 @llvm.readcyclecounter()
  %data = load ptr, ptr %clo
  %plog = getelementptr ptr, ptr %clo, i32 1
  %log = load ptr, ptr %plog
  %pcnt = getelementptr ptr, ptr %clo, i32 2
  %cnt = load ptr, ptr %pcnt
  %pres = getelementptr ptr, ptr %clo, i32 3
  %res = load ptr, ptr %pres
  %pch = getelementptr ptr, ptr %clo, i32 4
  %chunk = load i32, ptr %pch
  %vecs = lshr i32 %chunk, 4
  br label %outer
outer:
  %i = phi i32 [%lo, %entry], [%i1, %reduce]
  %base = mul i32 %i, %chunk
  br label %inner
inner:
  %k = phi i32 [0, %outer], [%k1, %inner]
  %acc = phi <16 x i32> [<MIN_I32>, %outer], [%acc1, %inner]
  %k16 = shl i32 %k, 4
  %idx = add i32 %base, %k16
  %idx64 = sext i32 %idx to i64
  %p = getelementptr i32, ptr %data, i64 %idx64
  %v = load <16 x i32>, ptr %p, align 4
  %acc1 = call <16 x i32> @llvm.smax.v16i32(<16 x i32> %acc, <16 x i32> %v)
  %k1 = add i32 %k, 1
  %more_k = icmp slt i32 %k1, %vecs
  br i1 %more_k, label %inner, label %reduce
reduce:
  %r = call i32 @llvm.vector.reduce.smax.v16i32(<16 x i32> %acc1)
  %pr = getelementptr i32, ptr %res, i32 %i
  store i32 %r, ptr %pr
  %i1 = add i32 %i, 1
  %more_i = icmp slt i32 %i1, %hi
  br i1 %more_i, label %outer, label %record
record:
  %t1 = call i64 @llvm.readcyclecounter()
  %slot = atomicrmw add ptr %cnt, i32 1 monotonic
  %s5 = mul i32 %slot, 5
  %e0 = getelementptr i64, ptr %log, i32 %s5
  store i64 %t0, ptr %e0
  %e1 = getelementptr i64, ptr %e0, i32 1
  store i64 %t1, ptr %e1
  %e2 = getelementptr i64, ptr %e0, i32 2
  %lo64 = sext i32 %lo to i64
  store i64 %lo64, ptr %e2
  %e3 = getelementptr i64, ptr %e0, i32 3
  %hi64 = sext i32 %hi to i64
  store i64 %hi64, ptr %e3
  %self = call i64 @pthread_self()
  %e4 = getelementptr i64, ptr %e0, i32 4
  store i64 %self, ptr %e4
  ret i32 0
}

define i64 @timed_max(ptr %clo, i32 %ext) {
  %t0 = call i64 @llvm.readcyclecounter()
  %pstart = getelementptr i64, ptr %clo, i32 5
  store i64 %t0, ptr %pstart
  call i32 @pyhalide_par_for(ptr @max_task, i32 0, i32 %ext, ptr %clo)
  %t1 = call i64 @llvm.readcyclecounter()
  %d = sub i64 %t1, %t0
  ret i64 %d
}

define i64 @cycles() {
  %t = call i64 @llvm.readcyclecounter()
  ret i64 %t
}
""".replace("MIN_I32", MIN_I32)


_ENGINES: list = []


def _load():
    parallel_runtime.ensure_threads()
    engine, addrs = load_runtime_module(IR, "pool_timeline", ["latency", "timed_max", "cycles"])
    _ENGINES.append(engine)        # owns the machine code
    latency = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32,
                               ctypes.c_int32)(addrs["latency"])
    timed_max = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_int32)(
        addrs["timed_max"])
    cycles = ctypes.CFUNCTYPE(ctypes.c_int64)(addrs["cycles"])
    return latency, timed_max, cycles


def _ghz(cycles) -> float:
    """The cycle counter's rate."""
    t0, c0 = time.perf_counter(), cycles()
    time.sleep(0.2)
    return (cycles() - c0) / (time.perf_counter() - t0) / 1e9


def _numba_loops():
    try:
        import numba
    except ImportError:
        return None, None

    @numba.njit(parallel=True)
    def touch(out):
        for i in numba.prange(out.size):
            out[i] = i

    @numba.njit(parallel=True)
    def max_red(a):
        m = np.int32(-2147483648)
        for i in numba.prange(a.size):
            m = max(m, a[i])
        return m
    return touch, max_red


def latency_rows(latency, ghz, touch, reps=2000):
    buf = np.zeros(1024, np.int32)
    times = np.zeros(reps, np.int64)
    for ext in (2, 512):
        latency(buf.ctypes.data, times.ctypes.data, reps, ext)
        us = times / ghz / 1e3
        line = f"  extent {ext:3d}: pyhalide par_for min {us.min():.2f} median {np.median(us):.2f} us"
        if touch is not None:
            out = np.zeros(ext, np.int32)
            touch(out)
            nt = np.empty(reps)
            for k in range(reps):
                t = time.perf_counter()
                touch(out)
                nt[k] = (time.perf_counter() - t) * 1e6
            line += f"; Numba prange, called from Python, min {nt.min():.2f} median " \
                    f"{np.median(nt):.2f} us"
        print(line)


def timeline(timed_max, ghz, a, chunk, calls):
    """The log of the fastest of `calls` calls, its length in us."""
    ext = a.size // chunk
    log = np.zeros(LOG_SLOTS * 5, np.int64)
    count = np.zeros(1, np.int32)
    res = np.zeros(ext, np.int32)
    clo = (ctypes.c_uint64 * 6)(a.ctypes.data, log.ctypes.data, count.ctypes.data,
                                res.ctypes.data, chunk, 0)
    best = None
    for _ in range(calls):
        count[0] = 0
        d = timed_max(ctypes.addressof(clo), ext)
        assert count[0] <= LOG_SLOTS
        if best is None or d < best[0]:
            best = (d, log[:count[0] * 5].reshape(-1, 5).copy(), clo[5])
    if int(res.max()) != int(a.max()):
        raise AssertionError("the timeline's max differs from NumPy's")
    return best[0] / ghz / 1e3, best[1], best[2]


def report_timeline(length, log, start, ghz, chunk, itemsize):
    """Times from the call's start (in par_for's caller)."""
    us = (log[:, :2] - start) / ghz / 1e3
    print(f"  fastest call {length:.1f} us, {len(log)} claims")
    for tid in np.unique(log[:, 4]):
        mine = log[:, 4] == tid
        busy = (us[mine, 1] - us[mine, 0]).sum()
        nbytes = ((log[mine, 3] - log[mine, 2]) * chunk * itemsize).sum()
        print(f"  thread {tid % 100000:5d}: {mine.sum():3d} claims, first start "
              f"{us[mine, 0].min():7.1f} us, last end {us[mine, 1].max():7.1f} us, busy "
              f"{busy:7.1f} us ({busy / length:.1%} of the call), {nbytes / busy / 1e3:.1f} "
              f"GB/s while busy")
    print("  last claims:")
    for r, (t0, t1) in zip(log[np.argsort(log[:, 0])][-6:], us[np.argsort(log[:, 0])][-6:]):
        print(f"    thread {r[4] % 100000:5d}: chunks [{r[2]}, {r[3]}) {t0:7.1f} - {t1:7.1f} us")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2", type=int, default=24)
    ap.add_argument("--chunk", type=int, default=32768)
    ap.add_argument("--calls", type=int, default=40)
    args = ap.parse_args()
    latency, timed_max, cycles = _load()
    ghz = _ghz(cycles)
    touch, max_red = _numba_loops()
    print(f"threads {parallel_runtime.num_threads()}, cycle counter {ghz:.2f} GHz, "
          f"load {os.getloadavg()[0]:.1f}")
    print("1. an almost empty parallel loop, per call:")
    latency_rows(latency, ghz, touch)
    n = 1 << args.log2
    a = np.random.default_rng(0).integers(-2**31, 2**31 - 1, n, dtype=np.int32)
    print(f"2. int32 max over 2^{args.log2} elements, chunks of {args.chunk}:")
    length, log, start = timeline(timed_max, ghz, a, args.chunk, args.calls)
    report_timeline(length, log, start, ghz, args.chunk, a.itemsize)
    if max_red is not None:
        max_red(a)
        best = min(_timed(lambda: max_red(a)) for _ in range(args.calls))
        print(f"  Numba prange max, fastest of {args.calls} calls: {best:.1f} us")
    print(f"load {os.getloadavg()[0]:.1f}")


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1e6


if __name__ == "__main__":
    main()
