"""The parallel runtime: a pthread pool written in LLVM IR, JIT-compiled once
per process, which runs the outlined bodies of parallel loops.

    ensure_loaded() -> None          compile/load the pool and register
                                     `pyhalide_par_for` for JIT objects
    set_num_threads(n: int) -> None  total threads (the caller + n-1 workers)
    num_threads() -> int
    worker_chunks() -> int           chunks run by worker threads so far
    PAR_FOR = "pyhalide_par_for"

Generated code calls

    i32 pyhalide_par_for(ptr task, i32 min, i32 extent, ptr closure)

where `task` is `i32 task(i32 lo, i32 hi, ptr closure)` running loop indices
[lo, hi) and returning nonzero on failure. The iteration space is cut into
chunks of ceil(extent / 64) indices — a function of the extent only, never
of the thread count. The calling thread pushes a job on a shared list, wakes
sleeping workers, and claims chunks of its own job until none is left, then
waits for the chunks other threads are still running; workers claim chunks
of the newest job. So:

- no Python code runs, and the GIL is not needed, anywhere in a parallel loop;
- nested parallel loops work (a worker running a chunk becomes the caller of
  the inner loop) and cannot deadlock: a thread only waits for chunks that
  other threads have already started;
- several Python threads may run kernels at once: each owns its job;
- a failing chunk (nonzero return) stops further claims of its job; the
  first error code is returned after the running chunks finish;
- with one thread (no workers) the chunks run inline, in order, unlocked.

All shared state is read and written under one mutex. The compiled runtime
is never unloaded (workers may still be parked in it at interpreter exit);
at exit the workers are told to stop, and after os.fork() the child resets
the pool state and starts fresh workers on first use.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import threading

import llvmlite.binding as llvm

from pyhalide.ir.config import config, debug_print

__all__ = ["ensure_loaded", "set_num_threads", "num_threads", "worker_chunks", "PAR_FOR",
           "MAX_THREADS"]

from .codegen_llvm import PAR_FOR  # noqa: E402  (the name generated code calls)
MAX_THREADS = 256

# Job fields: 0 task, 1 closure, 2 min, 3 extent, 4 grain, 5 next (offset of
# the next unclaimed chunk), 6 active (chunks running), 7 error, 8 next job
# in the list, 9 in_list.
RUNTIME_IR = r"""
%job = type { ptr, ptr, i32, i32, i32, i32, i32, i32, ptr, i32 }

@pyhalide_rt_mutex = global [128 x i8] zeroinitializer, align 64
@pyhalide_rt_wake = global [128 x i8] zeroinitializer, align 64
@pyhalide_rt_done = global [128 x i8] zeroinitializer, align 64
@pyhalide_rt_head = global ptr null, align 8
@pyhalide_rt_shutdown = global i32 0, align 4
@pyhalide_rt_nworkers = global i32 0, align 4
@pyhalide_rt_sleepers = global i32 0, align 4
@pyhalide_rt_tids = global [256 x i64] zeroinitializer, align 8
@pyhalide_rt_worker_chunks = global i64 0, align 8

declare i32 @pthread_mutex_init(ptr, ptr) nounwind
declare i32 @pthread_mutex_lock(ptr) nounwind
declare i32 @pthread_mutex_unlock(ptr) nounwind
declare i32 @pthread_cond_init(ptr, ptr) nounwind
declare i32 @pthread_cond_wait(ptr, ptr) nounwind
declare i32 @pthread_cond_broadcast(ptr) nounwind
declare i32 @pthread_create(ptr, ptr, ptr, ptr) nounwind
declare i32 @pthread_join(i64, ptr) nounwind

define void @pyhalide_rt_init() nounwind {
  call i32 @pthread_mutex_init(ptr @pyhalide_rt_mutex, ptr null)
  call i32 @pthread_cond_init(ptr @pyhalide_rt_wake, ptr null)
  call i32 @pthread_cond_init(ptr @pyhalide_rt_done, ptr null)
  store ptr null, ptr @pyhalide_rt_head
  store i32 0, ptr @pyhalide_rt_shutdown
  store i32 0, ptr @pyhalide_rt_nworkers
  store i32 0, ptr @pyhalide_rt_sleepers
  ret void
}

; Remove %j from the job list if it is there (mutex held).
define internal void @unlink(ptr %j) nounwind {
entry:
  %pin = getelementptr %job, ptr %j, i32 0, i32 9
  %in = load i32, ptr %pin
  %listed = icmp ne i32 %in, 0
  br i1 %listed, label %walk, label %out
walk:
  %pp = phi ptr [ @pyhalide_rt_head, %entry ], [ %pnext, %advance ]
  %cur = load ptr, ptr %pp
  %found = icmp eq ptr %cur, %j
  br i1 %found, label %found_it, label %advance
advance:
  %pnext = getelementptr %job, ptr %cur, i32 0, i32 8
  br label %walk
found_it:
  %pjn = getelementptr %job, ptr %j, i32 0, i32 8
  %jn = load ptr, ptr %pjn
  store ptr %jn, ptr %pp
  store i32 0, ptr %pin
  br label %out
out:
  ret void
}

; Claim the next chunk of %j (mutex held, chunks left): returns its end
; offset; the start is the old `next`.
define internal i32 @claim(ptr %j) nounwind {
  %pnext = getelementptr %job, ptr %j, i32 0, i32 5
  %s = load i32, ptr %pnext
  %pext = getelementptr %job, ptr %j, i32 0, i32 3
  %ext = load i32, ptr %pext
  %pgrain = getelementptr %job, ptr %j, i32 0, i32 4
  %grain = load i32, ptr %pgrain
  %rem = sub i32 %ext, %s
  %big = icmp sgt i32 %rem, %grain
  %sg = add i32 %s, %grain
  %e = select i1 %big, i32 %sg, i32 %ext
  store i32 %e, ptr %pnext
  %pact = getelementptr %job, ptr %j, i32 0, i32 6
  %act = load i32, ptr %pact
  %act1 = add i32 %act, 1
  store i32 %act1, ptr %pact
  br i1 %big, label %done, label %last
last:
  call void @unlink(ptr %j)
  br label %done
done:
  ret i32 %e
}

; Run chunk [s, e) of %j with the mutex released; afterwards (mutex held
; again) record a failure, which stops further claims of the job.
define internal void @run_chunk(ptr %j, i32 %s, i32 %e) nounwind {
entry:
  %pfn = getelementptr %job, ptr %j, i32 0, i32 0
  %fn = load ptr, ptr %pfn
  %pclo = getelementptr %job, ptr %j, i32 0, i32 1
  %clo = load ptr, ptr %pclo
  %pmin = getelementptr %job, ptr %j, i32 0, i32 2
  %min = load i32, ptr %pmin
  %lo = add i32 %min, %s
  %hi = add i32 %min, %e
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  %rc = call i32 %fn(i32 %lo, i32 %hi, ptr %clo)
  call i32 @pthread_mutex_lock(ptr @pyhalide_rt_mutex)
  %pact = getelementptr %job, ptr %j, i32 0, i32 6
  %act = load i32, ptr %pact
  %act1 = sub i32 %act, 1
  store i32 %act1, ptr %pact
  %failed = icmp ne i32 %rc, 0
  br i1 %failed, label %fail, label %out
fail:
  %perr = getelementptr %job, ptr %j, i32 0, i32 7
  %old = load i32, ptr %perr
  %first = icmp eq i32 %old, 0
  %new = select i1 %first, i32 %rc, i32 %old
  store i32 %new, ptr %perr
  call void @unlink(ptr %j)
  %pext = getelementptr %job, ptr %j, i32 0, i32 3
  %ext = load i32, ptr %pext
  %pnext = getelementptr %job, ptr %j, i32 0, i32 5
  store i32 %ext, ptr %pnext
  br label %out
out:
  ret void
}

define ptr @pyhalide_rt_worker(ptr %arg) nounwind {
entry:
  call i32 @pthread_mutex_lock(ptr @pyhalide_rt_mutex)
  br label %loop
loop:
  %sd = load i32, ptr @pyhalide_rt_shutdown
  %stop = icmp ne i32 %sd, 0
  br i1 %stop, label %exit, label %look
look:
  %j = load ptr, ptr @pyhalide_rt_head
  %none = icmp eq ptr %j, null
  br i1 %none, label %sleep, label %work
sleep:
  %n0 = load i32, ptr @pyhalide_rt_sleepers
  %n1 = add i32 %n0, 1
  store i32 %n1, ptr @pyhalide_rt_sleepers
  call i32 @pthread_cond_wait(ptr @pyhalide_rt_wake, ptr @pyhalide_rt_mutex)
  %n2 = load i32, ptr @pyhalide_rt_sleepers
  %n3 = sub i32 %n2, 1
  store i32 %n3, ptr @pyhalide_rt_sleepers
  br label %loop
work:
  %wc = load i64, ptr @pyhalide_rt_worker_chunks
  %wc1 = add i64 %wc, 1
  store i64 %wc1, ptr @pyhalide_rt_worker_chunks
  %pnext = getelementptr %job, ptr %j, i32 0, i32 5
  %s = load i32, ptr %pnext
  %e = call i32 @claim(ptr %j)
  call void @run_chunk(ptr %j, i32 %s, i32 %e)
  %pact = getelementptr %job, ptr %j, i32 0, i32 6
  %act = load i32, ptr %pact
  %idle = icmp eq i32 %act, 0
  %nx = load i32, ptr %pnext
  %pext = getelementptr %job, ptr %j, i32 0, i32 3
  %ext = load i32, ptr %pext
  %claimed = icmp sge i32 %nx, %ext
  %finished = and i1 %idle, %claimed
  br i1 %finished, label %signal, label %loop
signal:
  call i32 @pthread_cond_broadcast(ptr @pyhalide_rt_done)
  br label %loop
exit:
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  ret ptr null
}

define i32 @pyhalide_par_for(ptr %fn, i32 %min, i32 %extent, ptr %closure) nounwind {
entry:
  %j = alloca %job, align 8
  %pos = icmp sgt i32 %extent, 0
  br i1 %pos, label %setup, label %ret0
ret0:
  ret i32 0
setup:
  %e64 = zext i32 %extent to i64
  %g64a = add i64 %e64, 63
  %g64 = udiv i64 %g64a, 64
  %grain = trunc i64 %g64 to i32
  %nw = load i32, ptr @pyhalide_rt_nworkers
  %alone = icmp eq i32 %nw, 0
  br i1 %alone, label %serial, label %parallel

serial:
  %s = phi i32 [ 0, %setup ], [ %se, %serial_next ]
  %srem = sub i32 %extent, %s
  %sbig = icmp sgt i32 %srem, %grain
  %ssg = add i32 %s, %grain
  %se = select i1 %sbig, i32 %ssg, i32 %extent
  %slo = add i32 %min, %s
  %shi = add i32 %min, %se
  %src = call i32 %fn(i32 %slo, i32 %shi, ptr %closure)
  %sfail = icmp ne i32 %src, 0
  br i1 %sfail, label %serial_fail, label %serial_next
serial_next:
  br i1 %sbig, label %serial, label %ret0
serial_fail:
  ret i32 %src

parallel:
  %pfn = getelementptr %job, ptr %j, i32 0, i32 0
  store ptr %fn, ptr %pfn
  %pclo = getelementptr %job, ptr %j, i32 0, i32 1
  store ptr %closure, ptr %pclo
  %pmin = getelementptr %job, ptr %j, i32 0, i32 2
  store i32 %min, ptr %pmin
  %pext = getelementptr %job, ptr %j, i32 0, i32 3
  store i32 %extent, ptr %pext
  %pgrain = getelementptr %job, ptr %j, i32 0, i32 4
  store i32 %grain, ptr %pgrain
  %pnext = getelementptr %job, ptr %j, i32 0, i32 5
  store i32 0, ptr %pnext
  %pact = getelementptr %job, ptr %j, i32 0, i32 6
  store i32 0, ptr %pact
  %perr = getelementptr %job, ptr %j, i32 0, i32 7
  store i32 0, ptr %perr
  %pin = getelementptr %job, ptr %j, i32 0, i32 9
  store i32 1, ptr %pin
  call i32 @pthread_mutex_lock(ptr @pyhalide_rt_mutex)
  %head = load ptr, ptr @pyhalide_rt_head
  %pjn = getelementptr %job, ptr %j, i32 0, i32 8
  store ptr %head, ptr %pjn
  store ptr %j, ptr @pyhalide_rt_head
  %sleepers = load i32, ptr @pyhalide_rt_sleepers
  %anyone = icmp sgt i32 %sleepers, 0
  br i1 %anyone, label %wake, label %own
wake:
  call i32 @pthread_cond_broadcast(ptr @pyhalide_rt_wake)
  br label %own
own:
  %nx = load i32, ptr %pnext
  %more = icmp slt i32 %nx, %extent
  br i1 %more, label %own_claim, label %wait
own_claim:
  %ne = call i32 @claim(ptr %j)
  call void @run_chunk(ptr %j, i32 %nx, i32 %ne)
  br label %own
wait:
  %act = load i32, ptr %pact
  %busy = icmp sgt i32 %act, 0
  br i1 %busy, label %sleep, label %finish
sleep:
  call i32 @pthread_cond_wait(ptr @pyhalide_rt_done, ptr @pyhalide_rt_mutex)
  br label %wait
finish:
  %err = load i32, ptr %perr
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  ret i32 %err
}

; Start %n workers (none running); returns how many started.
define i32 @pyhalide_rt_start(i32 %n) nounwind {
entry:
  call i32 @pthread_mutex_lock(ptr @pyhalide_rt_mutex)
  store i32 0, ptr @pyhalide_rt_shutdown
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %next ]
  %slot = getelementptr [256 x i64], ptr @pyhalide_rt_tids, i32 0, i32 %i
  %rc = call i32 @pthread_create(ptr %slot, ptr null, ptr @pyhalide_rt_worker, ptr null)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %next, label %done
next:
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %started = phi i32 [ 0, %entry ], [ %i, %loop ], [ %i1, %next ]
  call i32 @pthread_mutex_lock(ptr @pyhalide_rt_mutex)
  store i32 %started, ptr @pyhalide_rt_nworkers
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  ret i32 %started
}

; Stop the %n running workers: they finish their chunk, then exit; joined.
define void @pyhalide_rt_stop(i32 %n) nounwind {
entry:
  call i32 @pthread_mutex_lock(ptr @pyhalide_rt_mutex)
  store i32 1, ptr @pyhalide_rt_shutdown
  store i32 0, ptr @pyhalide_rt_nworkers
  call i32 @pthread_cond_broadcast(ptr @pyhalide_rt_wake)
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %slot = getelementptr [256 x i64], ptr @pyhalide_rt_tids, i32 0, i32 %i
  %tid = load i64, ptr %slot
  call i32 @pthread_join(i64 %tid, ptr null)
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"""

_lock = threading.Lock()
_state = {"engine": None, "start": None, "stop": None, "init": None, "running": 0,
          "threads": 0}


def ensure_loaded() -> None:
    """Compile (or fetch from the object cache) and load the runtime once,
    and make `pyhalide_par_for` resolvable by JIT objects loaded later."""
    if _state["engine"] is not None:
        return
    from . import jit                # lazy: jit imports this module
    with jit._lock:                  # jit's lock first: the order compile_pipeline uses
        if _state["engine"] is not None:
            return
        engine, addrs = jit.load_runtime_module(
            RUNTIME_IR, "pyhalide_parallel_runtime",
            [PAR_FOR, "pyhalide_rt_init", "pyhalide_rt_start", "pyhalide_rt_stop"])
        llvm.add_symbol(PAR_FOR, addrs[PAR_FOR])
        _state["init"] = ctypes.CFUNCTYPE(None)(addrs["pyhalide_rt_init"])
        _state["start"] = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)(
            addrs["pyhalide_rt_start"])
        _state["stop"] = ctypes.CFUNCTYPE(None, ctypes.c_int32)(addrs["pyhalide_rt_stop"])
        _state["init"]()
        _state["chunks"] = ctypes.c_int64.from_address(
            engine.get_global_value_address("pyhalide_rt_worker_chunks"))
        _state["engine"] = engine    # never released: see the module docstring
        _keep_forever.append(engine)


_keep_forever: list = []


def worker_chunks() -> int:
    """How many chunks worker threads (not callers) have run so far."""
    return _state["chunks"].value if _state.get("chunks") is not None else 0


def num_threads() -> int:
    """Threads a parallel loop uses now (the caller included); 0 before the
    pool first starts."""
    return _state["threads"]


def set_num_threads(n: int) -> None:
    """Use n threads in total (n-1 workers besides the calling thread)."""
    n = max(1, min(int(n), MAX_THREADS))
    ensure_loaded()
    with _lock:
        if _state["threads"] == n:
            return
        if _state["running"]:
            _state["stop"](_state["running"])
            _state["running"] = 0
        started = _state["start"](n - 1)
        _state["running"] = started
        _state["threads"] = started + 1
        debug_print(1, f"pyhalide: parallel runtime uses {started + 1} thread(s)")


def ensure_threads() -> None:
    """Match the pool to config.num_threads (cheap when it already does)."""
    want = config.num_threads or (os.cpu_count() or 1)
    if _state["threads"] != want:
        set_num_threads(want)


def _stop_at_exit():
    if _state["running"]:
        _state["stop"](_state["running"])
        _state["running"] = 0
        _state["threads"] = 0


def _after_fork_in_child():
    # Worker threads do not survive fork; the mutexes may have been held.
    global _lock
    _lock = threading.Lock()
    if _state["init"] is not None:
        _state["init"]()
    _state["running"] = 0
    _state["threads"] = 0


atexit.register(_stop_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
