"""The compiled entry of a hot @pipeline call (pyhalide/dispatch.py): after
a call key's fast-path calls, calls with that key run as a builtin; every
other call (another shape, strides, dtype, scalar type or value read at call
time, an int beyond int64, a failing kernel) takes the general path and
raises what it raises. Every result is compared with the plain Python
function; the builtin's own answers are checked too (MISS or the result)."""
import gc
import math
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.dispatch import MISS

HOT = 8          # calls that make a key hot (pipeline_function._HOT is 2)


@ph.pipeline
def add1(a):
    return a + 1.0


@ph.pipeline
def hasting(y, t, a1, a2, b1, b2, d1, d2):
    yprime = np.empty((3,))
    yprime[0] = y[0] * (1. - y[0]) - a1 * y[0] * y[1] / (1. + b1 * y[0])
    yprime[1] = a1 * y[0] * y[1] / (1. + b1 * y[0]) - a2 * y[1] * y[2] / (1. + b2 * y[1]) \
        - d1 * y[1]
    yprime[2] = a2 * y[1] * y[2] / (1. + b2 * y[1]) - d2 * y[2]
    return yprime


@ph.pipeline
def ten(x, y, z, a, b, c, d, e, f, g):
    return np.array([x + y, z * a, b - c, d * e + f / g])


@ph.pipeline
def stats(a, k):
    s = k * 0.5 - 1.0
    m = 0
    for i in range(a.shape[0]):
        if a[i] > 0:
            m += 1
    return s, m, m > 2, a, None


@ph.pipeline
def ramp(n, step):
    out = np.empty(n)
    for i in range(n):
        out[i] = i * step
    return out


@ph.pipeline
def pick(a, i):
    return a[i] * 2


@ph.pipeline
def times(a, n):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * n
    return out


def _same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, np.ndarray):
        assert type(got) is np.ndarray and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    else:
        assert type(got) is type(want), (got, want)
        assert got == want or (got != got and want != want), (got, want)


def _check(p, *args):
    with np.errstate(all="ignore"):
        want = p.py_func(*args)
        got = p(*args)
    _same(got, want)
    return got


def _hot(p, *args):
    """Call p HOT times, and on while its compiled entry does not answer these
    arguments (pipeline_function waits up to 64 calls to build it again);
    then it does."""
    for k in range(100):
        _check(p, *args)
        if k >= HOT and p._entry is not None and not _misses(p, *args):
            break
    assert p._entry is not None
    with np.errstate(all="ignore"):
        got = p._entry(*args)
    assert got is not MISS
    _same(got, p.py_func(*args))


def _misses(p, *args):
    return p._entry(*args) is MISS


def test_hasting_and_ten_scalars():
    rng = np.random.default_rng(0)
    y = rng.random(3)
    scalars = tuple(rng.random(7))               # NumPy float64 scalars
    _hot(hasting, y, *scalars)
    _hot(hasting, y, *map(float, scalars))       # Python floats: another key
    args = tuple(float(i) - 4.5 for i in range(10))
    with pytest.raises(ZeroDivisionError) as slow_err:     # a Python float division
        ten(*args[:9], 0.0)
    _hot(ten, *args)
    with pytest.raises(ZeroDivisionError) as fast_err:
        ten(*args[:9], 0.0)
    assert str(fast_err.value) == str(slow_err.value)
    for bad in ((1, *args[1:]), (np.float32(1.0), *args[1:]), args[:9], args + (1.0,)):
        assert _misses(ten, *bad)
    _check(ten, 1, *args[1:])
    with pytest.raises(TypeError):
        ten(*args[:9])
    with pytest.raises(TypeError):
        ten(*args, 1.0)
    _check(ten, *args)


def test_other_arrays_take_the_general_path():
    a = np.arange(8.0)
    _hot(add1, a)
    others = [np.arange(9.0), a[::2], a.astype(np.float32), a.reshape(2, 4),
              np.arange(8.0)[::-1], a.view(np.ndarray), np.ascontiguousarray(a[::-1])]
    raw = np.zeros(8 * 8 + 1, np.uint8)
    unaligned = raw[1:].view(np.float64)
    unaligned[:] = a
    others.append(unaligned)

    class Sub(np.ndarray):
        pass
    others.append(a.view(Sub))
    for v in others:
        if v.shape != a.shape or v.strides != a.strides or v.dtype != a.dtype or \
                type(v) is not np.ndarray or not v.flags.aligned:
            assert _misses(add1, v)
        _check(add1, v) if type(v) is np.ndarray else add1(v)
    ro = a.copy()
    ro.flags.writeable = False
    assert not _misses(add1, ro)                # read-only inputs are read as they are
    _check(add1, ro)
    with pytest.raises(TypeError):
        add1([1.0, 2.0])
    _check(add1, a)


def test_scalar_results_tuples_and_returned_arguments():
    a = np.array([1.5, -2.0, 3.0, 0.5])
    _hot(stats, a, 2.0)
    got = stats(a, -0.0)
    assert got[3] is a
    _same(got, stats.py_func(a, -0.0))
    b = np.array([-1.0, -2.0, 3.0, 0.5])
    _same(stats(b, 1.0), stats.py_func(b, 1.0))
    refs = sys.getrefcount(a)
    for _ in range(200):
        stats(a, 2.0)
    gc.collect()
    assert sys.getrefcount(a) == refs          # the entry keeps no reference to its arguments
    out = add1(np.arange(3.0))
    assert sys.getrefcount(out) == 2           # the result's only owner is the caller


def test_a_scalar_read_at_call_time_is_part_of_the_key():
    _hot(ramp, 5, 0.5)
    assert _misses(ramp, 6, 0.5)                # n sets the output's shape
    assert not _misses(ramp, 5, -1.25)          # step is a kernel param
    for n, step in ((6, 0.5), (5, 2.0), (0, 1.0), (5, 0.5), (7, -0.0)):
        _check(ramp, n, step)


def test_int_arguments_beyond_int64_raise_as_before():
    a = np.arange(1, 6, dtype=np.int64)
    _hot(times, a, 3)
    assert not _misses(times, a, 5)
    assert not _misses(times, a, -(1 << 63))
    for n in (1 << 70, 1 << 63, -(1 << 63) - 1):
        assert _misses(times, a, n)
        with pytest.raises(OverflowError) as fast_err:
            times(a, n)
        with pytest.raises(OverflowError) as slow_err:
            ph.pipeline(times.py_func)(a, n)
        assert str(fast_err.value) == str(slow_err.value)
    for n in (-3, 4, (1 << 62) + 1, True):
        _check(times, a, n)


def test_a_failing_kernel_raises_through_the_general_path():
    a = np.arange(10.0)
    _hot(pick, a, 3)
    with pytest.raises(IndexError) as fast_err:
        pick(a, 12)
    fresh = ph.pipeline(pick.py_func)
    with pytest.raises(IndexError) as slow_err:
        fresh(a, 12)
    assert str(fast_err.value) == str(slow_err.value)
    _check(pick, a, -1)
    _check(pick, a, 3)


def test_rescheduling_after_the_entry_is_built():
    p = ph.pipeline(add1.py_func)
    a = np.arange(6.0)
    _hot(p, a)
    p.funcs                                    # handed out: the entry is dropped
    assert p._entry is None
    for _ in range(HOT):
        _check(p, a)
    assert p._entry is None                    # and not made again

    r = ph.pipeline(add1.py_func, schedule="auto")
    _hot(r, a)                                 # the automatic scheduler is done with its Funcs
    r.vars
    assert r._entry is None
    _check(r, a)

    q = ph.pipeline(add1.py_func)
    _hot(q, a)

    @q.schedule
    def sched(view):
        pass
    assert q._entry is None
    _check(q, a)


def test_nan_and_signed_zero_scalars():
    y = np.array([0.25, 0.5, 0.75])
    args = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    _hot(hasting, y, *args)
    for v in (math.nan, -0.0, math.inf, -math.inf, 0.0):
        _check(hasting, y, *args[:3], v, *args[4:])


def test_threads_share_the_entry():
    rng = np.random.default_rng(1)
    y = rng.random(3)
    args = tuple(map(float, rng.random(7)))
    _hot(hasting, y, *args)
    want = hasting.py_func(y, *args)

    def worker(_):
        return sum(not np.array_equal(hasting(y, *args), want) for _ in range(500))
    with ThreadPoolExecutor(4) as pool:
        assert sum(pool.map(worker, range(4))) == 0


@ph.pipeline
def decayed(a):
    s = 0.0
    for x in a:
        s = s * 0.5 + x
    return s


def test_union_and_numpy_scalar_results():
    a = np.array([0.5, -1.25, 3.0])
    _hot(decayed, a)                            # a NumPy float64 (the loop ran)
    _hot(decayed, np.zeros(0))                  # the Python float 0.0 (it did not)
    _check(decayed, a)
    _hot(pick, np.arange(10.0), 3)
    _hot(pick, np.arange(10, dtype=np.int16), -2)


def _interrupted(call, after: float) -> float:
    """Seconds from a SIGINT sent `after` s into call() to the exception."""
    import os
    import signal
    import time
    when = []

    def fire():
        time.sleep(after)
        when.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)
    t = threading.Thread(target=fire)
    t.start()
    try:
        call()
        time.sleep(2)
    except (KeyboardInterrupt, ZeroDivisionError):
        caught = time.perf_counter()
    t.join()
    return caught - when[0]


def test_ctrl_c_and_sigint_handlers_on_the_compiled_entry(monkeypatch):
    """A long call through the compiled entry stops within 0.3 s of SIGINT
    (its trip count is part of the key: the entry is made hot at once)."""
    import signal

    from pyhalide import pipeline_function
    from tests.runtime import long_kernels as lk
    monkeypatch.setattr(pipeline_function, "_HOT", 1)
    p = ph.pipeline(lk.recurrence.py_func)
    a = np.random.default_rng(2).random(100)
    reps = lk.calibrated_reps(lambda n: p(a, n), 0.4)
    for _ in range(3):
        p(a, reps)
    assert p._entry is not None and not _misses(p, a, reps)
    assert _interrupted(lambda: p(a, reps), 0.1) < 0.3

    def handler(sig, frame):
        raise ZeroDivisionError("handler")
    old = signal.signal(signal.SIGINT, handler)
    try:
        assert _misses(p, a, reps)             # another handler: the general path
        assert _interrupted(lambda: p(a, reps), 0.1) < 0.3
    finally:
        signal.signal(signal.SIGINT, old)
    np.testing.assert_allclose(p(a, 50), lk.recurrence_ref(a, 50))


def _in_child(queue):
    try:
        a = np.arange(5.0)
        ok = add1._entry(a) is not MISS and np.array_equal(add1(a), a + 1.0)
        from pyhalide import dispatch
        ok = ok and dispatch._MAIN_THREAD.value == threading.get_ident()
        queue.put(bool(ok))
    except Exception as e:  # noqa: BLE001 (reported to the parent)
        queue.put(repr(e))


def test_a_forked_child_uses_the_entry():
    import multiprocessing
    _hot(add1, np.arange(5.0))
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_in_child, args=(queue,))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert queue.get(timeout=10) is True


@ph.pipeline
def rows(m):
    return m * 2.0, m[0] + 1.0, m[1, 2] - 0.5


def test_outputs_of_fewer_dimensions():
    m = np.arange(12.0).reshape(3, 4)
    _hot(rows, m)
    got = rows(m)
    assert got[1].shape == (4,) and got[1].flags.c_contiguous and got[1].flags.writeable
    got[1][0] = 99.0                            # its own memory: the next call is unchanged
    _same(rows(m), rows.py_func(m))


K = 2.0


@ph.pipeline
def scaled_k(a):
    return a * K


def _closure():
    c = 1.5

    @ph.pipeline
    def plus_c(a):
        return a + c

    def set_c(v):
        nonlocal c
        c = v
    return plus_c, set_c


def test_changed_globals_and_closure_cells_take_the_general_path():
    global K
    a = np.arange(4.0)
    _hot(scaled_k, a)
    try:
        for k in (-0.5, 2.0, float("nan"), -0.0, 3):
            K = k
            assert _misses(scaled_k, a)
            _hot(scaled_k, a)
    finally:
        K = 2.0
    _check(scaled_k, a)
    plus_c, set_c = _closure()
    _hot(plus_c, a)
    for v in (4.0, -0.0, 1.5):
        set_c(v)
        assert _misses(plus_c, a)
        _hot(plus_c, a)
