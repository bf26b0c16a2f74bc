"""Parallel scans of float running max / argmax with NaN values and signed
zeros equal the serial loop: the carries combine with the update's own form
and chunks start from the identity (a chunk that started from its first
value, NaN, stayed NaN: running max returned nan from there on). A form
whose result depends on the order with NaN values is refused."""
import numpy as np
import pytest

import pyhalide as ph
from tests.rfactor.nan_cases import nan_inputs
from tests.rfactor.test_parallel_scan_frontend import argmax_so_far, running_max


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


@pytest.mark.parametrize("fn, name", [(running_max, "out"), (argmax_so_far, "best")],
                         ids=["running_max", "argmax_so_far"])
def test_scan_with_nan_and_signed_zeros_equals_python(fn, name):
    p = ph.pipeline(fn, schedule=_schedule(name))
    for case, a in enumerate(nan_inputs(200)):
        want, got = fn(a), p(a)
        assert np.array_equal(want, got, equal_nan=True), case
        assert np.array_equal(np.signbit(want), np.signbit(got)), case


def test_order_dependent_nan_scan_is_refused():
    p = ph.pipeline(running_min_builtin, schedule=_schedule("out"))
    with pytest.raises(ph.CompileError, match="NaN values"):
        p(np.ones(8))
