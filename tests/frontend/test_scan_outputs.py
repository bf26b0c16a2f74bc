"""`acc += x[i]; out[i] = acc`: the array is the scan Func (its update
computes the running value, seeded with acc's value before the loop), and
acc reads it (frontend_ast/scan_outputs.py). A schedule names the scan by
the array: p.funcs["out"].update(0).parallel_scan(p.vars["out", "i"], k).
Every result is compared with plain Python, serially and at 1, 2 and 3
threads, on empty, one-element and longer inputs, chunk sizes that do and
do not divide the extent."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override
from tests.rfactor.test_parallel_scan_frontend import argmax_so_far, segmented_sum

RNG = np.random.default_rng(19)


def running_sum(x):
    out = np.zeros(x.shape[0], np.int64)
    acc = np.int64(0)
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out, acc


def from_one(x):
    out = np.zeros(x.shape[0], np.int64)
    acc = np.int64(3)
    for i in range(1, x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out, acc


def running_max(x):
    out = np.empty(x.shape[0], x.dtype)
    best = x[0]
    for i in range(x.shape[0]):
        best = max(best, x[i])
        out[i] = best
    return out


def recurrence(a, b):
    out = np.empty(b.shape[0], np.int32)
    s = np.int32(1)
    for i in range(b.shape[0]):
        s = a[i] * s + b[i]
        out[i] = s
    return out, s


def other_reads(x):
    out = np.zeros(x.shape[0], np.int64)
    before = np.zeros(x.shape[0], np.int64)
    twice = np.zeros(x.shape[0], np.int64)
    acc = np.int64(5)
    for i in range(x.shape[0]):
        before[i] = acc
        acc += x[i]
        out[i] = acc
        twice[i] = acc * 2
    return out, before, twice, acc


def rows(a):
    out = np.zeros(a.shape, np.int64)
    for y in range(a.shape[0]):
        acc = np.int64(a[y, 0])
        for x in range(a.shape[1]):
            acc += a[y, x]
            out[y, x] = acc
    return out


def columns(a):
    out = np.zeros(a.shape, np.int64)
    for x in range(a.shape[1]):
        acc = np.int64(0)
        for y in range(a.shape[0]):
            acc = acc * 3 + a[y, x]
            out[y, x] = acc
    return out


def _ints(n, lo=-40, hi=40):
    return RNG.integers(lo, hi, size=n).astype(np.int32)


# (function, loop variable of the scan, inputs of size n, smallest size)
CASES = [
    (running_sum, "i", lambda n: (_ints(n),), 0),
    (from_one, "i", lambda n: (_ints(n),), 0),
    (running_max, "i", lambda n: (_ints(n),), 1),
    (recurrence, "i", lambda n: (_ints(n, -2, 3), _ints(n)), 0),
    (segmented_sum, "i", lambda n: (_ints(n), RNG.random(n) < 0.3), 0),
    (other_reads, "i", lambda n: (_ints(n),), 0),
    (rows, "x", lambda n: (_ints(3 * n).reshape(3, n),), 1),
    pytest.param(columns, "y", lambda n: (_ints(3 * n).reshape(n, 3),), 0,
                 marks=pytest.mark.slow),
]


def _equal(got, want, what):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w) and g.dtype == w.dtype, what
        np.testing.assert_array_equal(g, w, err_msg=what)


@pytest.mark.parametrize("fn, loop, inputs, smallest", CASES,
                         ids=[getattr(c, "values", c)[0].__name__ for c in CASES])
def test_the_array_is_the_scan_and_equals_python(fn, loop, inputs, smallest):
    serial = ph.pipeline(fn)

    def schedule(p):
        p.funcs["out"].update(0).parallel_scan(p.vars["out", loop], 4)
    scanned = ph.pipeline(fn, schedule=schedule)
    for n in sorted({smallest, 1, 2, 8, 23}):
        args = inputs(n)
        want = fn(*args)
        _equal(serial(*args), want, f"serial, n={n}")
        for threads in (1, 2, 3):
            with override(num_threads=threads):
                _equal(scanned(*args), want, f"parallel_scan, n={n}, {threads} threads")
    out = serial.funcs["out"].function()
    assert len(out.updates) == 1
    lowered = scanned.lower()
    assert re.search(r"produce out(\$\d+)?_scan_carry", lowered)
    assert re.search(r"produce out(\$\d+)?_scan_total", lowered)


def test_the_running_value_is_computed_once_into_the_array():
    serial = ph.pipeline(running_sum)
    x = _ints(10)
    _equal(serial(x), running_sum(x), "")
    lowered = serial.lower()
    assert re.search(r"produce out\b", lowered) and not re.search(r"produce acc\b", lowered)
    assert not serial.funcs["acc"].function().updates


def test_the_apply_variant_through_the_array():
    def schedule(p):
        p.funcs["out"].update(0).parallel_scan(p.vars["out", "i"], 3, variant="apply")
    p = ph.pipeline(from_one, schedule=schedule)
    for n in (0, 1, 2, 10):
        x = _ints(n)
        with override(num_threads=2):
            _equal(p(x), from_one(x), f"n={n}")
    assert re.search(r"produce out(\$\d+)?_scan_local", p.lower())


def test_a_schedule_naming_the_state_is_told_to_name_the_array():
    def schedule(p):
        p.funcs["acc"].update(0).parallel_scan(p.vars["acc", "i"], 4)
    p = ph.pipeline(running_sum, schedule=schedule)
    with pytest.raises(ph.CompileError) as e:
        p(_ints(5))
    msg = str(e.value)
    assert "computed in the array out" in msg
    assert "p.funcs['out'].update(0).parallel_scan(p.vars['out', 'i'], chunk_size)" in msg
    assert "test_scan_outputs.py:" in msg


def widened(x):
    out = np.zeros(x.shape[0], np.int64)
    acc = np.int32(0)
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


def shifted(x):
    out = np.zeros(x.shape[0] + 1, np.int64)
    acc = np.int64(0)
    for i in range(x.shape[0]):
        acc += x[i]
        out[i + 1] = acc
    return out


def sometimes(x):
    out = np.zeros(x.shape[0], np.int64)
    acc = np.int64(0)
    for i in range(x.shape[0]):
        acc += x[i]
        if x[i] > 0:
            out[i] = acc
    return out, acc


@pytest.mark.parametrize("fn", [argmax_so_far, widened, shifted, sometimes],
                         ids=lambda f: f.__name__)
def test_other_forms_keep_the_scan_in_the_state_and_equal_python(fn):
    p = ph.pipeline(fn)
    for n in (1, 2, 17):
        x = _ints(n)
        _equal(p(x), fn(x), f"n={n}")
