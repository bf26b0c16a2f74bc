"""The call fast path of a compiled @pipeline function (frontend_ast/direct_call.py):
calls whose argument shapes, strides and scalar values equal an earlier
call's run the kernel without binding; every result here is compared with
the plain Python function on the same arguments, alternating with calls that
differ only in what the fast path's key must tell apart."""
import math
import threading

import numpy as np
import pytest

import pyhalide as ph

K = 2.0          # a global the code reads: a new value gives a new specialization


@ph.pipeline
def divide(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] / k
    return out


@ph.pipeline
def total(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i]
    return s


@ph.pipeline
def gather(a, idx):
    out = np.empty(idx.shape[0])
    for i in range(idx.shape[0]):
        out[i] = a[idx[i]]
    return out


@ph.pipeline
def scaled(a):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] * K
    return out


@ph.pipeline
def repeat(a, n):
    s = 0
    for r in range(n):
        for i in range(a.shape[0]):
            s += a[i] * (r + 1)
    return s


def _same(got, want):
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    else:
        assert type(got) is type(want), (got, want)
        assert got == want or (got != got and want != want), (got, want)


def _check(p, *args):
    _same(p(*args), p.py_func(*args))


def _fast(p) -> bool:
    spec = p._last
    return spec is not None and spec._direct is not None and bool(spec._direct.entries)


def test_signed_zero_and_nan_scalars_are_told_apart():
    a = np.array([1.0, -2.0, 0.0, 3.5])
    for k in (0.0, -0.0, 0.0, -0.0, 2.0, math.nan, math.nan, -0.0, 2.0, math.inf, -math.inf):
        with np.errstate(all="ignore"):
            got, want = divide(a, k), divide.py_func(a, k)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(got, want)
    assert _fast(divide)


def test_numpy_scalar_arguments_with_signed_zero():
    a = np.array([1.0, -3.0])
    for k in (np.float32(0.0), np.float32(-0.0), np.float32(0.0), np.float32(4.0)):
        with np.errstate(all="ignore"):
            got, want = divide(a, k), divide.py_func(a, k)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(got, want)


def test_shapes_strides_and_layouts_alternate():
    base = np.arange(40, dtype=np.float64) * 0.5 - 3
    # base[:26:2] and base[1:][::3]: one shape and layout key, other strides
    views = [base, base[:7], base[::2], base[::-1], base[1:][::3], base[:26:2], base[:7], base,
             base[1:][::3], base[::2], base[::-1], np.ascontiguousarray(base[::-1])]
    for _ in range(2):
        for v in views:
            _check(total, v)
            _check(divide, v, 3.0)


def test_unaligned_arrays_are_copied_as_before():
    raw = np.zeros(8 * 9 + 1, dtype=np.uint8)
    unaligned = raw[1:].view(np.float64)
    unaligned[:] = np.arange(9) * 1.25
    aligned = unaligned.copy()
    for v in (aligned, unaligned, aligned, unaligned):
        _check(total, v)


def test_empty_and_nonempty_results_keep_their_python_types():
    # s = 0.0 and a loop that may not run: a Python float or a NumPy float64
    for n in (0, 5, 0, 5, 1, 0):
        a = np.linspace(-1, 1, n)
        _check(total, a)


def test_index_errors_on_a_remembered_key():
    a = np.arange(10.0)
    good = np.array([0, 9, 3], dtype=np.int64)
    bad = np.array([0, 12, 3], dtype=np.int64)
    _check(gather, a, good)
    _check(gather, a, good)
    assert _fast(gather)
    with pytest.raises(IndexError) as fast_err:
        gather(a, bad)
    fresh = ph.pipeline(gather.py_func)
    with pytest.raises(IndexError) as slow_err:
        fresh(a, bad)
    assert str(fast_err.value) == str(slow_err.value)
    _check(gather, a, good)


def test_integer_arguments_and_overflow():
    a = np.arange(1, 6, dtype=np.int64)
    for n in (3, 0, 3, 7, 3):
        _check(repeat, a, n)
    with pytest.raises(OverflowError):
        repeat(a, 1 << 70)
    _check(repeat, a, 3)


def test_a_changed_global_is_read():
    global K
    a = np.arange(6.0).reshape(2, 3)
    try:
        for k in (2.0, 2.0, -1.5, -1.5, 2.0):
            K = k
            _check(scaled, a)
    finally:
        K = 2.0


def test_a_schedule_changed_after_a_call_is_compiled():
    a = np.arange(6.0).reshape(2, 3)
    p = ph.pipeline(scaled.py_func)
    _check(p, a)
    _check(p, a)
    assert _fast(p)
    # a bound the call's region exceeds: the call must see it (not run the old kernel)
    p.funcs["out"].bound(p.vars["out", "j"], 0, 2)
    with pytest.raises(ValueError, match="do not cover required region"):
        p(a)
    _check(p, a[:, :2].copy())


def test_calls_from_threads_on_remembered_keys():
    rng = np.random.default_rng(5)
    inputs = [rng.random(n) for n in (3, 50, 17)]
    for v in inputs:
        divide(v, 2.0)
    errors = []

    def worker(k):
        try:
            for rep in range(200):
                v = inputs[(k + rep) % len(inputs)]
                kk = 2.0 if rep % 3 else -0.0
                with np.errstate(all="ignore"):
                    got, want = divide(v, kk), divide.py_func(v, kk)
                if not np.array_equal(got, want) or \
                        not np.array_equal(np.signbit(got), np.signbit(want)):
                    errors.append((k, rep))
        except Exception as e:       # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


@ph.pipeline
def shift(a, n):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] + n
    return out


def test_keyed_and_live_scalars():
    a = np.arange(4, dtype=np.int64)
    for n in (3, 3, 0, 7, 3):
        _check(repeat, a, n)
    assert repeat._last._direct.read == {"n"}        # range(n): read at call time
    for n in (5, 5, -2, 5, 2**40, -5):
        _check(shift, a, n)
    assert shift._last._direct.read == set()         # only the kernel reads n
    with pytest.raises(OverflowError):
        shift(a, 1 << 70)
    with pytest.raises(OverflowError):
        shift(a, -(1 << 63) - 1)
    _check(shift, a, (1 << 63) - 1 - 3)


@ph.pipeline
def pick(a, flag, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * k if flag else a[i] - k
    return out


def test_live_numpy_and_bool_scalars():
    a = np.arange(5, dtype=np.int64)
    for k in (np.int16(3), np.int16(-7), np.int16(3), np.int16(32767)):
        _check(shift, a, k)
    f = np.arange(5.0)
    for flag, k in ((True, 2.0), (False, 2.0), (True, -0.0), (np.True_, 1.5), (np.False_, 1.5),
                    (True, 2.0), (np.True_, 4.0), (False, np.float32(0.5)), (False, np.float32(0.25))):
        _check(pick, f, flag, k)
