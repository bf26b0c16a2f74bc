"""A child forked (multiprocessing's `fork` start method) while other threads
are inside pyhalide — running a kernel, or holding its locks as a compile
does — computes correct results: every lock is fresh in the child and the
thread pool starts anew there."""
import multiprocessing
import threading

import numpy as np

from pyhalide.ir.config import override
from tests.runtime import long_kernels as lk

CHILD_TIMEOUT_S = 60


def _child_work(queue):
    """In the child: a call of the compiled @pipeline, a new specialization
    (compiled in the child) and a parallel Func pipeline, each checked."""
    try:
        a = np.random.default_rng(5).random(50)
        ok = np.allclose(lk.recurrence(a, 20), lk.recurrence_ref(a, 20))
        a32 = a.astype(np.float32)
        ok &= np.allclose(lk.recurrence(a32, 7), lk.recurrence_ref(a32, 7), rtol=1e-5)
        img = np.random.default_rng(6).random((30, 20))
        f, reps = lk.func_recurrence(img, parallel=True)
        reps.set(9)
        with override(num_threads=2):
            ok &= np.allclose(np.asarray(f.realize([20, 30])), lk.func_recurrence_ref(img, 9))
        queue.put(bool(ok))
    except Exception as e:  # noqa: BLE001 (reported to the parent)
        queue.put(repr(e))


def _fork_and_check():
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    p = ctx.Process(target=_child_work, args=(queue,))
    p.start()
    p.join(CHILD_TIMEOUT_S)
    if p.is_alive():
        p.kill()
        p.join()
        raise AssertionError(f"the forked child did not finish within {CHILD_TIMEOUT_S} s")
    assert p.exitcode == 0
    assert queue.get(timeout=10) is True


def test_fork_while_another_thread_runs_a_kernel():
    a = np.random.default_rng(0).random(300)
    reps = lk.calibrated_reps(lambda n: lk.recurrence(a, n), 2.0)
    out, _, _ = lk.in_background(lambda: lk.recurrence(a, reps), _fork_and_check)
    np.testing.assert_allclose(out, lk.recurrence_ref(a, reps))


def test_fork_while_another_thread_runs_a_parallel_kernel():
    img = np.random.default_rng(1).random((64, 40))
    f, reps = lk.func_recurrence(img, parallel=True)
    with override(num_threads=2):
        def run(n):
            reps.set(n)
            f.realize([40, 64])
        n = lk.calibrated_reps(run, 2.0)
        reps.set(n)
        out, _, _ = lk.in_background(lambda: np.asarray(f.realize([40, 64])), _fork_and_check)
    np.testing.assert_allclose(out, lk.func_recurrence_ref(img, n))


def test_fork_while_another_thread_holds_the_locks():
    """As if the fork came in the middle of a compile in another thread."""
    from pyhalide.lowering import jit, parallel_runtime
    lk.recurrence(np.ones(3), 2)
    spec = lk.recurrence._last
    locks = [jit.llvm_lock(), parallel_runtime._lock, lk.recurrence._lock, spec.lock]
    held, release = threading.Event(), threading.Event()

    def hold():
        for lock in locks:
            lock.acquire()
        held.set()
        release.wait()
        for lock in reversed(locks):
            lock.release()
    t = threading.Thread(target=hold)
    t.start()
    held.wait()
    try:
        _fork_and_check()
    finally:
        release.set()
        t.join()
