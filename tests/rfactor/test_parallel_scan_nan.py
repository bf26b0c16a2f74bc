"""Parallel scans of float running max / argmax with NaN values and signed
zeros equal the serial loop: the carries combine with the update's own form
and chunks start from the identity (a chunk that started from its first
value, NaN, stayed NaN: running max returned nan from there on). A form
whose result depends on the order with NaN values is refused."""
import numpy as np
import pytest

import pyhalide as ph


def running_max(a):
    out = np.empty_like(a)
    m = a[0]
    for i in range(a.shape[0]):
        if a[i] > m:
            m = a[i]
        out[i] = m
    return out


def argmax_so_far(a):
    out = np.empty(a.shape[0], np.int64)
    m, k = a[0], 0
    for i in range(a.shape[0]):
        if a[i] > m:
            m, k = a[i], i
        out[i] = k
    return out


def running_min_builtin(a):
    out = np.empty_like(a)
    m = a[0]
    for i in range(a.shape[0]):
        m = min(a[i], m)
        out[i] = m
    return out


def _schedule(name):
    def schedule(p):
        p.funcs[name].update(0).parallel_scan(p.vars[name, "i"], 16)
    return schedule


def _inputs():
    rng = np.random.default_rng(9)
    out = []
    for case in range(5):
        a = rng.standard_normal(200)
        if case == 1:
            a[[3, 50, 199]] = np.nan
        elif case == 2:
            a[20:150] = np.nan
        elif case == 3:
            a[0] = np.nan
        elif case == 4:
            a[:] = 0.0
            a[::7] = -0.0
        out.append(a)
    return out


@pytest.mark.parametrize("fn, name", [(running_max, "out"), (argmax_so_far, "m_k")],
                         ids=["running_max", "argmax_so_far"])
def test_scan_with_nan_and_signed_zeros_equals_python(fn, name):
    p = ph.pipeline(fn, schedule=_schedule(name))
    for case, a in enumerate(_inputs()):
        want, got = fn(a), p(a)
        assert np.array_equal(want, got, equal_nan=True), case
        assert np.array_equal(np.signbit(want), np.signbit(got)), case


def test_order_dependent_nan_scan_is_refused():
    p = ph.pipeline(running_min_builtin, schedule=_schedule("out"))
    with pytest.raises(ph.CompileError, match="NaN values"):
        p(np.ones(8))
