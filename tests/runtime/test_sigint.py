"""Ctrl-C (SIGINT) during a long kernel call raises KeyboardInterrupt within
~100 ms (asserted with a 3x margin), serial or parallel; the inputs are
untouched and the next call is correct. A Python SIGINT handler that returns
normally lets the call finish with a correct result."""
import os
import re
import signal
import threading
import time

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override
from tests.runtime import long_kernels as lk

LONG_S = 3.0
LATENCY_S = 0.3


def _sigint_after(delay: float):
    """Start a thread sending SIGINT to this process after `delay` s; returns
    (thread, event set once sent, list holding the send time)."""
    sent, when = threading.Event(), []

    def fire():
        time.sleep(delay)
        when.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
        sent.set()
    t = threading.Thread(target=fire)
    t.start()
    return t, sent, when


def _interrupt_latency(call) -> float:
    """Seconds from SIGINT (0.3 s into call()) to KeyboardInterrupt."""
    t, sent, when = _sigint_after(0.3)
    caught = None
    try:
        call()
        sent.wait(10)          # the call ended first: the interrupt comes here
        time.sleep(1)
    except KeyboardInterrupt:
        caught = time.perf_counter()
    t.join()
    assert caught is not None, "no KeyboardInterrupt"
    return caught - when[0]


def test_ctrl_c_stops_a_long_pipeline_call():
    a = np.random.default_rng(0).random(400)
    a_before = a.copy()
    reps = lk.calibrated_reps(lambda n: lk.recurrence(a, n), LONG_S)
    latency = _interrupt_latency(lambda: lk.recurrence(a, reps))
    assert latency < LATENCY_S, f"KeyboardInterrupt {latency * 1e3:.0f} ms after SIGINT"
    np.testing.assert_array_equal(a, a_before)
    np.testing.assert_allclose(lk.recurrence(a, 50), lk.recurrence_ref(a, 50))


def test_ctrl_c_stops_a_long_parallel_realize():
    img = np.random.default_rng(1).random((64, 40))
    img_before = img.copy()
    f, reps = lk.func_recurrence(img, parallel=True)
    with override(num_threads=2):
        def run(n):
            reps.set(n)
            f.realize([40, 64])
        reps.set(lk.calibrated_reps(run, LONG_S))
        latency = _interrupt_latency(lambda: f.realize([40, 64]))
        assert latency < LATENCY_S, f"KeyboardInterrupt {latency * 1e3:.0f} ms after SIGINT"
        np.testing.assert_array_equal(img, img_before)
        reps.set(20)
        np.testing.assert_allclose(np.asarray(f.realize([40, 64])), lk.func_recurrence_ref(img, 20))


def test_a_sigint_handler_that_returns_lets_the_call_finish():
    a = np.random.default_rng(2).random(200)
    reps = lk.calibrated_reps(lambda n: lk.recurrence(a, n), 1.0)
    seen = []
    old = signal.signal(signal.SIGINT, lambda sig, frame: seen.append(sig))
    try:
        t, _, _ = _sigint_after(0.3)
        out = lk.recurrence(a, reps)
        t.join()
    finally:
        signal.signal(signal.SIGINT, old)
    assert seen == [signal.SIGINT]
    np.testing.assert_allclose(out, lk.recurrence_ref(a, reps))


def test_a_raising_sigint_handler_stops_the_call_with_its_exception():
    class Stop(Exception):
        pass

    def handler(sig, frame):
        raise Stop()
    a = np.random.default_rng(3).random(400)
    reps = lk.calibrated_reps(lambda n: lk.recurrence(a, n), LONG_S)
    old = signal.signal(signal.SIGINT, handler)
    try:
        t, sent, when = _sigint_after(0.3)
        with pytest.raises(Stop):
            lk.recurrence(a, reps)
            sent.wait(10)
            time.sleep(1)
        latency = time.perf_counter() - when[0]
        t.join()
    finally:
        signal.signal(signal.SIGINT, old)
    assert latency < LATENCY_S, f"the handler's exception came {latency * 1e3:.0f} ms after SIGINT"


def test_other_threads_calls_are_not_interrupted():
    """SIGINT interrupts the main thread only (as Python does)."""
    a = np.random.default_rng(4).random(200)
    reps = lk.calibrated_reps(lambda n: lk.recurrence(a, n), 1.0)

    def interrupted():
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(2)
    out, _, _ = lk.in_background(lambda: lk.recurrence(a, reps), interrupted, settle=0.1)
    np.testing.assert_allclose(out, lk.recurrence_ref(a, reps))


def _cancel_checks(f) -> int:
    text = ph.Pipeline(f).lower("llvm")
    return len(re.findall(r"^cancelled[.\d]*:", text, re.MULTILINE))


def test_cancel_checks_sit_in_outer_loops_only():
    """One check per row of a 2-D stage; none in the x loop of a fully fused
    blur (its producer's 3x1 loops get unrolled: a check there kept LLVM from
    vectorizing x, 17x slower); two in a 3-D stage (per plane and row)."""
    img = ph.ImageParam(ph.UInt(16), 2, "img")
    x, y, c = ph.Var("x"), ph.Var("y"), ph.Var("c")
    bx, by = ph.Func("bx"), ph.Func("by")
    bx[x, y] = img[x, y] + img[x + 1, y]
    by[x, y] = bx[x, y] + bx[x, y + 1] + bx[x, y + 2]
    bx.compute_at(by, x)
    assert _cancel_checks(by) == 1
    bx.compute_root()
    assert _cancel_checks(by) == 2
    vol = ph.ImageParam(ph.Float(32), 3, "vol")
    g = ph.Func("g")
    g[x, y, c] = vol[x, y, c] * 2
    assert _cancel_checks(g) == 2
