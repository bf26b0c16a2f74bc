"""Calls from several Python threads run at once: no pyhalide lock is held
while a kernel runs, and the kernel runs without the GIL. A short call made
while another thread is inside a long call of the same @pipeline function
(or Func) returns long before the long one; each result is correct."""
import threading
import time

import numpy as np
import pytest

from tests.runtime import long_kernels as lk

LONG_S = 1.0


def test_pipeline_calls_from_two_threads_overlap():
    a = np.random.default_rng(0).random(400)
    reps = lk.calibrated_reps(lambda n: lk.recurrence(a, n), LONG_S)
    small = a[:4].copy()
    long_out, short_out, overtook = lk.in_background(
        lambda: lk.recurrence(a, reps), lambda: lk.recurrence(small, reps))
    assert overtook, "the second thread waited for the first thread's call to end"
    np.testing.assert_allclose(long_out, lk.recurrence_ref(a, reps))
    np.testing.assert_allclose(short_out, lk.recurrence_ref(small, reps))


def test_func_realize_from_two_threads_overlap():
    img = np.random.default_rng(1).random((40, 50))
    f, reps = lk.func_recurrence(img, parallel=False)

    def run(n):
        reps.set(n)
        return f.realize([50, 40])
    n = lk.calibrated_reps(run, LONG_S)
    reps.set(n)
    long_out, short_out, overtook = lk.in_background(
        lambda: np.asarray(f.realize([50, 40])), lambda: np.asarray(f.realize([5, 4])))
    assert overtook, "the second thread waited for the first thread's realize to end"
    ref = lk.func_recurrence_ref(img, n)
    np.testing.assert_allclose(long_out, ref)
    np.testing.assert_allclose(short_out, ref[:4, :5])


def test_concurrent_calls_of_different_shapes_are_all_correct():
    rng = np.random.default_rng(2)
    inputs = [rng.random(n) for n in (7, 100, 33, 250, 1, 64)]
    results = {}

    def worker(k):
        for rep in range(20):
            a = inputs[(k + rep) % len(inputs)]
            results.setdefault(k, []).append((a, lk.recurrence(a, 30 + k)))

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, calls in results.items():
        assert len(calls) == 20
        for a, out in calls:
            np.testing.assert_allclose(out, lk.recurrence_ref(a, 30 + k))


@pytest.mark.slow
@pytest.mark.exclusive    # times two threads on the two cores
def test_two_threads_take_about_the_time_of_one_call():
    """2 threads x a serial kernel on 2 cores: at most 1.2x one call's time
    on a quiet machine (asserted with a margin, best of 3)."""
    a = np.random.default_rng(3).random(400)
    reps = lk.calibrated_reps(lambda n: lk.recurrence(a, n), 1.0)

    def one():
        t = time.perf_counter()
        lk.recurrence(a, reps)
        return time.perf_counter() - t

    def two():
        ts = [threading.Thread(target=lk.recurrence, args=(a, reps)) for _ in range(2)]
        t = time.perf_counter()
        for th in ts:
            th.start()
        for th in ts:
            th.join()
        return time.perf_counter() - t
    ratio = min(two() for _ in range(3)) / min(one() for _ in range(3))
    assert ratio < 1.7, f"two concurrent calls took {ratio:.2f}x one call"
