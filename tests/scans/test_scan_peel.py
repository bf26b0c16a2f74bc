"""parallel_scan of the `@pipeline` form `acc += x[i]; out[i] = acc`: the
scan's first point is computed apart (`out_scan_first`, from the value
before the loop) and the chunks read the previous point without a clamp,
as the Func-API scan does (pyhalide/parallel_scan_seed.py, peel_first).
Results equal plain Python at 1, 2 and 3 threads, on empty, one-element,
chunk-sized and longer inputs; the first point's run-time checks raise as
Python does."""
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override

K = 4


def running_sum(x):
    out = np.zeros(x.shape[0], np.int32)
    acc = np.int32(5)
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


def running_max_from_1(x):
    out = np.zeros(x.shape[0], np.int32)
    best = x[0]
    for i in range(1, x.shape[0]):
        best = max(best, x[i])
        out[i] = best
    return out


def row_sums(a):
    out = np.zeros(a.shape, np.int32)
    for j in range(a.shape[0]):
        acc = np.int32(j)
        for i in range(a.shape[1]):
            acc += a[j, i]
            out[j, i] = acc
    return out


def gathered_sum(x, idx):
    out = np.zeros(idx.shape[0], np.int32)
    acc = np.int32(0)
    for i in range(idx.shape[0]):
        acc += x[idx[i]]
        out[i] = acc
    return out


def _schedule(p):
    p.funcs["out"].update(0).parallel_scan(p.vars["out", "i"], K)


def _ints(shape, seed=3):
    return np.random.default_rng(seed).integers(-50, 50, size=shape).astype(np.int32)


CASES = [
    (running_sum, [(0,), (1,), (2,), (K,), (K + 1,), (3 * K + 2,)]),
    (running_max_from_1, [(1,), (2,), (K + 1,), (K + 2,), (3 * K + 3,)]),
    (row_sums, [(3, 0), (0, 3), (2, 1), (3, 2 * K + 1)]),
]


@pytest.mark.parametrize("fn, shapes", CASES, ids=[c[0].__name__ for c in CASES])
def test_peeled_scan_equals_python_without_a_clamp(fn, shapes):
    p = ph.pipeline(fn, schedule=_schedule)
    for shape in shapes:
        a = _ints(shape)
        want = fn(a)
        for threads in (1, 2, 3):
            with override(num_threads=threads):
                got = p(a)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want, err_msg=f"{shape}, {threads} threads")
    lowered = p.lower()
    out = re.escape(p.funcs["out"].name())        # (out, or out$3 when taken)
    assert re.search(out + r"_scan_first\(", lowered) and "_scan_carry" in lowered
    # the scan reads the previous point as out(r - 1), never out(max(r - 1, lo))
    assert re.search(out + r"\(\(" + out + r"\.s1\.\S+ - 1\)", lowered), lowered
    assert not re.search(out + r"\(max\(", lowered), lowered


def test_peeled_first_point_keeps_its_checks():
    p = ph.pipeline(gathered_sum, schedule=_schedule)
    x = _ints((6,))
    for idx in ([1, 0, 5, 2, 3, 4, 4], [0, 2]):
        idx = np.array(idx, np.int64)
        np.testing.assert_array_equal(p(x, idx), gathered_sum(x, idx))
    for idx in ([6, 0, 1], [1, 2, 9], [9]):       # out of range at the first point, later
        idx = np.array(idx, np.int64)
        with pytest.raises(IndexError):
            gathered_sum(x, idx)
        with pytest.raises(IndexError):
            p(x, idx)
