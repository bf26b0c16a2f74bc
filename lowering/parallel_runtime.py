"""The parallel runtime: a pthread pool written in LLVM IR, JIT-compiled once
per process, which runs the outlined bodies of parallel loops.

    ahead_jobs() -> [(name, IR)]     for runtime_ahead.start (none once loaded)
    ensure_loaded() -> None          compile/load the pool and register
                                     `pyhalide_par_for` for JIT objects
    set_num_threads(n: int) -> None  total threads (the caller + n-1 workers),
                                     1 <= n <= MAX_THREADS (else ValueError)
    num_threads() -> int
    worker_chunks() -> int           chunks run by worker threads so far
    PAR_FOR = "pyhalide_par_for"

Generated code calls

    i32 pyhalide_par_for(ptr task, i32 min, i32 extent, ptr closure)

where `task` is `i32 task(i32 lo, i32 hi, ptr closure)` running loop indices
[lo, hi) and returning nonzero on failure. The calling thread pushes a job on
a shared list, wakes sleeping workers, and claims chunks of its own job until
none is left, then waits for the chunks other threads are still running;
workers claim chunks of the newest job. A chunk is a sixteenth of the
indices not yet claimed, but at least ceil(extent / 256): large chunks
first, small ones last, so the threads finish close together. (Chunk
boundaries never change a result: iterations of a parallel loop are
independent.) So:

- no Python code runs, and the GIL is not needed, anywhere in a parallel loop;
- nested parallel loops work (a worker running a chunk becomes the caller of
  the inner loop) and cannot deadlock: a thread only waits for chunks that
  other threads have already started;
- several Python threads may run kernels at once: each owns its job;
- a failing chunk (nonzero return) stops further claims of its job; the
  first error code is returned after the running chunks finish;
- with one thread (no workers) the task runs inline, on the whole range.

Waking a sleeping thread costs tens of microseconds or more (a virtual CPU
that halted must be rescheduled by the host), so threads poll before they
sleep: an idle worker watches the job list for SPIN_IDLE_NS, a caller
watches its job's running chunks for SPIN_WAIT_NS, and the mutex is polled
with trylock before blocking on it. With more threads than the process has
cores nothing polls (a polling thread would take the core of one with work,
and a small call got ~40x slower with 64 threads on 2 cores): idle threads
sleep at once, and a new job wakes at most one worker per spare core. The
polls read only the list head, a job's count of running chunks and the
shutdown flag, atomically; all other shared state is read and written under
one mutex. The compiled runtime
is never unloaded (workers may still be parked in it at interpreter exit);
at exit the workers are told to stop, and after os.fork() the child resets
the pool state and starts fresh workers on first use.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import platform
import sys

import llvmlite.binding as llvm

from pyhalide.ir.config import config, debug_print
from pyhalide.ir.forksafe import fresh_in_child

from . import runtime_ahead
from .codegen_llvm import PAR_FOR  # the name generated code calls
from .llvm_objects import llvm_lock, load_runtime_module

__all__ = ["ahead_jobs", "ensure_loaded", "set_num_threads", "num_threads", "worker_chunks", "PAR_FOR",
           "MAX_THREADS"]

MAX_THREADS = 1024

# How long an idle worker, and a caller waiting for the last chunks of its
# job, poll before sleeping on a condition variable: longer than the gap
# between two parallel loops of a pipeline, or between two calls of a kernel
# from Python.
SPIN_IDLE_NS = 250_000
SPIN_WAIT_NS = 1_000_000


def _cpu_relax() -> tuple:
    """(declaration, call) of the host's spin-wait hint: x86 `pause`, ARM
    `yield`, else nothing."""
    m = platform.machine().lower()
    if m in ("x86_64", "amd64", "i386", "i686"):
        return ("declare void @llvm.x86.sse2.pause() nounwind",
                "call void @llvm.x86.sse2.pause()")
    if m.startswith(("aarch64", "arm64")):
        return ("declare void @llvm.aarch64.hint(i32) nounwind",
                "call void @llvm.aarch64.hint(i32 1)")
    return "", ""


# Job fields: 0 task, 1 closure, 2 min, 3 extent, 4 grain (the smallest
# chunk), 5 next (offset of the next unclaimed chunk), 6 active (chunks
# running), 7 error, 8 next job in the list, 9 in_list. The fields that
# threads poll without the mutex (the list head, a job's `active`, the
# shutdown flag) are read and written atomically; everything else only
# under the mutex.
RUNTIME_IR = r"""
%job = type { ptr, ptr, i32, i32, i32, i32, i32, i32, ptr, i32 }
%timespec = type { i64, i64 }

@pyhalide_rt_mutex = global [128 x i8] zeroinitializer, align 64
@pyhalide_rt_wake = global [128 x i8] zeroinitializer, align 64
@pyhalide_rt_done = global [128 x i8] zeroinitializer, align 64
@pyhalide_rt_head = global ptr null, align 64
@pyhalide_rt_shutdown = global i32 0, align 64
@pyhalide_rt_nworkers = global i32 0, align 4
@pyhalide_rt_sleepers = global i32 0, align 4
@pyhalide_rt_waiters = global i32 0, align 4
@pyhalide_rt_tids = global [MAX_THREADS x i64] zeroinitializer, align 8
@pyhalide_rt_worker_chunks = global i64 0, align 8
@pyhalide_rt_polls = global i32 1, align 4
@pyhalide_rt_wake_max = global i32 0, align 4
declare i32 @pthread_cond_signal(ptr) nounwind

declare i32 @pthread_mutex_init(ptr, ptr) nounwind
declare i32 @pthread_mutex_lock(ptr) nounwind
declare i32 @pthread_mutex_trylock(ptr) nounwind
declare i32 @pthread_mutex_unlock(ptr) nounwind
declare i32 @pthread_cond_init(ptr, ptr) nounwind
declare i32 @pthread_cond_wait(ptr, ptr) nounwind
declare i32 @pthread_cond_broadcast(ptr) nounwind
declare i32 @pthread_create(ptr, ptr, ptr, ptr) nounwind
declare i32 @pthread_join(i64, ptr) nounwind
declare i32 @clock_gettime(i32, ptr) nounwind
RELAX_DECL

define void @pyhalide_rt_init() nounwind {
  call i32 @pthread_mutex_init(ptr @pyhalide_rt_mutex, ptr null)
  call i32 @pthread_cond_init(ptr @pyhalide_rt_wake, ptr null)
  call i32 @pthread_cond_init(ptr @pyhalide_rt_done, ptr null)
  store atomic ptr null, ptr @pyhalide_rt_head monotonic, align 8
  store atomic i32 0, ptr @pyhalide_rt_shutdown monotonic, align 4
  store i32 0, ptr @pyhalide_rt_nworkers
  store i32 0, ptr @pyhalide_rt_sleepers
  store i32 0, ptr @pyhalide_rt_waiters
  ret void
}

; Take the mutex, polling it a while first: it is only ever held briefly,
; and a thread that blocks on it takes long to wake.
define internal void @lock() nounwind {
entry:
  %polls = load i32, ptr @pyhalide_rt_polls
  %poll = icmp ne i32 %polls, 0
  br i1 %poll, label %loop, label %block
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %relax ]
  %rc = call i32 @pthread_mutex_trylock(ptr @pyhalide_rt_mutex)
  %got = icmp eq i32 %rc, 0
  br i1 %got, label %done, label %relax
relax:
  CPU_RELAX
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, 256
  br i1 %more, label %loop, label %block
block:
  call i32 @pthread_mutex_lock(ptr @pyhalide_rt_mutex)
  br label %done
done:
  ret void
}

; Monotonic clock, ns.
define internal i64 @now_ns() nounwind {
  %ts = alloca %timespec, align 8
  call i32 @clock_gettime(i32 1, ptr %ts)
  %ps = getelementptr %timespec, ptr %ts, i32 0, i32 0
  %s = load i64, ptr %ps
  %pn = getelementptr %timespec, ptr %ts, i32 0, i32 1
  %n = load i64, ptr %pn
  %sn = mul i64 %s, 1000000000
  %t = add i64 %sn, %n
  ret i64 %t
}

; What a polling thread waits for (read without the mutex): with %j null,
; a job in the list or shutdown set (an idle worker); else no chunk of %j
; running (a caller at the end of its job).
define internal i1 @ready(ptr %j) nounwind {
entry:
  %worker = icmp eq ptr %j, null
  br i1 %worker, label %work, label %idle
work:
  %h = load atomic ptr, ptr @pyhalide_rt_head monotonic, align 8
  %has = icmp ne ptr %h, null
  %sd = load atomic i32, ptr @pyhalide_rt_shutdown monotonic, align 4
  %stop = icmp ne i32 %sd, 0
  %any = or i1 %has, %stop
  ret i1 %any
idle:
  %pact = getelementptr %job, ptr %j, i32 0, i32 6
  %act = load atomic i32, ptr %pact monotonic, align 4
  %none = icmp eq i32 %act, 0
  ret i1 %none
}

; Poll (mutex not held) for at most %budget ns until @ready(%j); returns
; whether it became ready.
define internal i1 @spin(ptr %j, i64 %budget) nounwind {
entry:
  %polls = load i32, ptr @pyhalide_rt_polls
  %poll = icmp ne i32 %polls, 0
  br i1 %poll, label %start, label %no
start:
  %t0 = call i64 @now_ns()
  br label %loop
loop:
  %i = phi i32 [ 0, %start ], [ %i1, %relax ], [ %i1, %clock ]
  %ok = call i1 @ready(ptr %j)
  br i1 %ok, label %yes, label %relax
relax:
  CPU_RELAX
  %i1 = add i32 %i, 1
  %check = and i32 %i1, 63
  %tick = icmp eq i32 %check, 0
  br i1 %tick, label %clock, label %loop
clock:
  %t = call i64 @now_ns()
  %dt = sub i64 %t, %t0
  %over = icmp sgt i64 %dt, %budget
  br i1 %over, label %no, label %loop
yes:
  ret i1 true
no:
  ret i1 false
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
  %cur = load atomic ptr, ptr %pp monotonic, align 8
  %found = icmp eq ptr %cur, %j
  br i1 %found, label %found_it, label %advance
advance:
  %pnext = getelementptr %job, ptr %cur, i32 0, i32 8
  br label %walk
found_it:
  %pjn = getelementptr %job, ptr %j, i32 0, i32 8
  %jn = load atomic ptr, ptr %pjn monotonic, align 8
  store atomic ptr %jn, ptr %pp monotonic, align 8
  store i32 0, ptr %pin
  br label %out
out:
  ret void
}

; Claim the next chunk of %j (mutex held, chunks left): returns its end
; offset; the start is the old `next`. A chunk is a sixteenth of what is
; left, but at least `grain` indices: large chunks first, small ones at the
; end, so that the threads finish together.
define internal i32 @claim(ptr %j) nounwind {
entry:
  %pnext = getelementptr %job, ptr %j, i32 0, i32 5
  %s = load i32, ptr %pnext
  %pext = getelementptr %job, ptr %j, i32 0, i32 3
  %ext = load i32, ptr %pext
  %pgrain = getelementptr %job, ptr %j, i32 0, i32 4
  %grain = load i32, ptr %pgrain
  %rem = sub i32 %ext, %s
  %part = lshr i32 %rem, 4
  %small = icmp slt i32 %part, %grain
  %size = select i1 %small, i32 %grain, i32 %part
  %big = icmp sgt i32 %rem, %size
  %ss = add i32 %s, %size
  %e = select i1 %big, i32 %ss, i32 %ext
  store i32 %e, ptr %pnext
  %pact = getelementptr %job, ptr %j, i32 0, i32 6
  %act = load atomic i32, ptr %pact monotonic, align 4
  %act1 = add i32 %act, 1
  store atomic i32 %act1, ptr %pact monotonic, align 4
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
  call void @lock()
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
  ; last: the caller may stop waiting (and free %j) once this is 0
  %pact = getelementptr %job, ptr %j, i32 0, i32 6
  %act = load atomic i32, ptr %pact monotonic, align 4
  %act1 = sub i32 %act, 1
  store atomic i32 %act1, ptr %pact release, align 4
  ret void
}

define ptr @pyhalide_rt_worker(ptr %arg) nounwind {
entry:
  call void @lock()
  br label %loop
loop:
  %spun = phi i1 [ false, %entry ], [ true, %respin ], [ false, %sleep ], [ false, %work ],
                 [ false, %signal ]
  %sd = load atomic i32, ptr @pyhalide_rt_shutdown monotonic, align 4
  %stop = icmp ne i32 %sd, 0
  br i1 %stop, label %exit, label %look
look:
  %j = load atomic ptr, ptr @pyhalide_rt_head monotonic, align 8
  %none = icmp eq ptr %j, null
  br i1 %none, label %idle, label %work
idle:
  br i1 %spun, label %sleep, label %respin
respin:
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  call i1 @spin(ptr null, i64 SPIN_IDLE)
  call void @lock()
  br label %loop
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
  ; %j may be gone now (its caller returns once `active` is 0): only
  ; wake sleeping callers, which recheck their own jobs
  %w = load i32, ptr @pyhalide_rt_waiters
  %waiting = icmp sgt i32 %w, 0
  br i1 %waiting, label %signal, label %loop
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
  %nw = load i32, ptr @pyhalide_rt_nworkers
  %alone = icmp eq i32 %nw, 0
  br i1 %alone, label %serial, label %parallel

serial:
  %hi = add i32 %min, %extent
  %src = call i32 %fn(i32 %min, i32 %hi, ptr %closure)
  ret i32 %src

parallel:
  %e64 = zext i32 %extent to i64
  %g64a = add i64 %e64, 255
  %g64 = udiv i64 %g64a, 256
  %grain = trunc i64 %g64 to i32
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
  store atomic i32 0, ptr %pact monotonic, align 4
  %perr = getelementptr %job, ptr %j, i32 0, i32 7
  store i32 0, ptr %perr
  %pin = getelementptr %job, ptr %j, i32 0, i32 9
  store i32 1, ptr %pin
  call void @lock()
  %head = load atomic ptr, ptr @pyhalide_rt_head monotonic, align 8
  %pjn = getelementptr %job, ptr %j, i32 0, i32 8
  store atomic ptr %head, ptr %pjn monotonic, align 8
  store atomic ptr %j, ptr @pyhalide_rt_head monotonic, align 8
  %sleepers = load i32, ptr @pyhalide_rt_sleepers
  %anyone = icmp sgt i32 %sleepers, 0
  br i1 %anyone, label %wake, label %own
wake:
  ; wake at most wake_max sleepers; woken workers need the mutex: release
  ; it while signalling
  %wmax = load i32, ptr @pyhalide_rt_wake_max
  %few = icmp slt i32 %sleepers, %wmax
  %nwake = select i1 %few, i32 %sleepers, i32 %wmax
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  br label %signal_one
signal_one:
  %k = phi i32 [ 0, %wake ], [ %k1, %signal_one ]
  call i32 @pthread_cond_signal(ptr @pyhalide_rt_wake)
  %k1 = add i32 %k, 1
  %again = icmp slt i32 %k1, %nwake
  br i1 %again, label %signal_one, label %woken
woken:
  call void @lock()
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
  %act = load atomic i32, ptr %pact acquire, align 4
  %busy = icmp sgt i32 %act, 0
  br i1 %busy, label %spin, label %finish
spin:
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  %idle = call i1 @spin(ptr %j, i64 SPIN_WAIT)
  call void @lock()
  br label %recheck
recheck:
  %act2 = load atomic i32, ptr %pact acquire, align 4
  %busy2 = icmp sgt i32 %act2, 0
  br i1 %busy2, label %sleep, label %finish
sleep:
  %w0 = load i32, ptr @pyhalide_rt_waiters
  %w1 = add i32 %w0, 1
  store i32 %w1, ptr @pyhalide_rt_waiters
  call i32 @pthread_cond_wait(ptr @pyhalide_rt_done, ptr @pyhalide_rt_mutex)
  %w2 = load i32, ptr @pyhalide_rt_waiters
  %w3 = sub i32 %w2, 1
  store i32 %w3, ptr @pyhalide_rt_waiters
  br label %recheck
finish:
  %err = load i32, ptr %perr
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  ret i32 %err
}

; Start %n workers (none running); returns how many started.
define i32 @pyhalide_rt_start(i32 %n) nounwind {
entry:
  call void @lock()
  store atomic i32 0, ptr @pyhalide_rt_shutdown monotonic, align 4
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %next ]
  %slot = getelementptr [MAX_THREADS x i64], ptr @pyhalide_rt_tids, i32 0, i32 %i
  %rc = call i32 @pthread_create(ptr %slot, ptr null, ptr @pyhalide_rt_worker, ptr null)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %next, label %done
next:
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %started = phi i32 [ 0, %entry ], [ %i, %loop ], [ %i1, %next ]
  call void @lock()
  store i32 %started, ptr @pyhalide_rt_nworkers
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  ret i32 %started
}

; Stop the %n running workers: they finish their chunk, then exit; joined.
define void @pyhalide_rt_stop(i32 %n) nounwind {
entry:
  call void @lock()
  store atomic i32 1, ptr @pyhalide_rt_shutdown monotonic, align 4
  store i32 0, ptr @pyhalide_rt_nworkers
  call i32 @pthread_cond_broadcast(ptr @pyhalide_rt_wake)
  call i32 @pthread_mutex_unlock(ptr @pyhalide_rt_mutex)
  %any = icmp sgt i32 %n, 0
  br i1 %any, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %slot = getelementptr [MAX_THREADS x i64], ptr @pyhalide_rt_tids, i32 0, i32 %i
  %tid = load i64, ptr %slot
  call i32 @pthread_join(i64 %tid, ptr null)
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
""".replace("RELAX_DECL", _cpu_relax()[0]).replace("CPU_RELAX", _cpu_relax()[1]) \
   .replace("SPIN_IDLE", str(SPIN_IDLE_NS)).replace("SPIN_WAIT", str(SPIN_WAIT_NS)) \
   .replace("MAX_THREADS", str(MAX_THREADS))

_lock = fresh_in_child(sys.modules[__name__], "_lock")   # guards resizing the pool
_state = {"engine": None, "start": None, "stop": None, "init": None, "running": 0,
          "threads": 0}


_RUNTIME_NAME = "pyhalide_parallel_runtime"
def ahead_jobs() -> list:
    """[(name, IR)] of the runtime for runtime_ahead.start, or [] once loaded."""
    return [] if _state["engine"] is not None else [(_RUNTIME_NAME, RUNTIME_IR)]


def ensure_loaded() -> None:
    """Compile (or fetch from the object cache, or take from runtime_ahead)
    and load the runtime once, and make `pyhalide_par_for` resolvable by
    JIT objects loaded later."""
    if _state["engine"] is not None:
        return
    with llvm_lock():   # the LLVM lock first: the order compile_pipeline uses
        if _state["engine"] is not None:
            return
        engine, addrs = load_runtime_module(
            RUNTIME_IR, _RUNTIME_NAME,
            [PAR_FOR, "pyhalide_rt_init", "pyhalide_rt_start", "pyhalide_rt_stop"],
            runtime_ahead.take(_RUNTIME_NAME))
        llvm.add_symbol(PAR_FOR, addrs[PAR_FOR])
        _state["init"] = ctypes.CFUNCTYPE(None)(addrs["pyhalide_rt_init"])
        _state["start"] = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)(
            addrs["pyhalide_rt_start"])
        _state["stop"] = ctypes.CFUNCTYPE(None, ctypes.c_int32)(addrs["pyhalide_rt_stop"])
        _state["init"]()
        for name, ctype in (("chunks", ctypes.c_int64), ("polls", ctypes.c_int32),
                            ("wake_max", ctypes.c_int32)):
            addr = engine.get_global_value_address(
                "pyhalide_rt_worker_chunks" if name == "chunks" else "pyhalide_rt_" + name)
            _state[name] = ctype.from_address(addr)
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
    """Use n threads in total (n-1 workers besides the calling thread);
    ValueError unless 1 <= n <= MAX_THREADS."""
    n = checked_thread_count(n)
    ensure_loaded()
    with _lock:
        if _state["threads"] == n:
            return
        if _state["running"]:
            _state["stop"](_state["running"])
            _state["running"] = 0
        cores = _cores()
        # more threads than cores: no polling (a polling thread takes the
        # core of one with work), and a new job wakes one worker per spare core
        _state["polls"].value = int(n <= cores)
        _state["wake_max"].value = min(n, cores) - 1 if n > 1 else 0
        started = _state["start"](n - 1)
        _state["running"] = started
        _state["threads"] = started + 1
        debug_print(1, f"pyhalide: parallel runtime uses {started + 1} thread(s)")


def ensure_threads() -> None:
    """Match the pool to config.num_threads (cheap when it already does);
    ValueError for a count set_num_threads refuses (0 too: the count of a
    pool not started yet)."""
    want = config.num_threads
    if _state["threads"] != want or type(want) is not int or not want:
        set_num_threads(want)


def checked_thread_count(n) -> int:
    """n, when it is an integer from 1 to MAX_THREADS; else ValueError."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_THREADS:
        raise ValueError(f"PYHALIDE_NUM_THREADS (the threads of parallel loops) must be an "
                         f"integer from 1 to {MAX_THREADS}, not {n!r}")
    return n


def _cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _stop_at_exit():
    if _state["running"]:
        _state["stop"](_state["running"])
        _state["running"] = 0
        _state["threads"] = 0


def _after_fork_in_child():
    # Worker threads do not survive fork; the mutexes may have been held.
    if _state["init"] is not None:
        _state["init"]()
    _state["running"] = 0
    _state["threads"] = 0


atexit.register(_stop_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
