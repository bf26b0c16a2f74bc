"""Integer powers of a run-time exponent as loops over the exponent's bits
(lowering/codegen_int_power.py), against plain Python/NumPy.

NumPy's wrapping power (the intrinsic int_power): array code (vector lanes)
and a loop of elements (scalars), every integer dtype and some mixed ones,
bases at the dtype's edges, exponents 0..65 around the bit widths, the
dtype's maximum and random ones; a negative exponent raises NumPy's
ValueError.

Python's int power in int64 of an exponent without a small bound
(int_power_checked, int_power_fits): the value where Python's fits in
int64, else the compiled call's OverflowError (the documented int64 limit),
bases around 2**31, isqrt(2**63), 2**62, -2**63 and every k-th root of
2**63, exponents up to 2**63 - 1.

(Slow: 26 kernels; the default run's cases are test_array_gaps',
test_array_ufuncs', test_data_branch_checks21's and tests/reference.)"""
import itertools

import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
PAIRS = [(d, d) for d in DTYPES] + [(np.int8, np.int64), (np.uint16, np.int16),
                                     (np.uint64, np.uint8), (np.int32, np.uint32)]


@ph.pipeline
def array_power(a, b):
    return a ** b


@ph.pipeline
def element_power(a, b):
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] ** b[i]
    return out


def _operands(da, db, seed):
    ia, ib = np.iinfo(da), np.iinfo(db)
    bases = [0, 1, 2, 3, 5, 7, 127, ia.max, ia.max - 1]
    if ia.min < 0:
        bases += [-1, -2, -3, ia.min, ia.min + 1]
    exps = [0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 62, 63, 64, 65, 127, ib.max, ib.max - 1]
    rng = np.random.default_rng(seed)
    exps += [int(x) for x in rng.integers(0, ib.max, 6, dtype=db, endpoint=True)]
    pairs = list(itertools.product(bases, [e for e in exps if e <= ib.max]))
    return np.array([p[0] for p in pairs], da), np.array([p[1] for p in pairs], db)


@pytest.mark.slow
@pytest.mark.parametrize("da,db", PAIRS, ids=lambda d: np.dtype(d).name)
def test_wrapping_int_power_sweep(da, db):
    a, b = _operands(da, db, np.dtype(da).itemsize * 10 + np.dtype(db).itemsize)
    for fn in (array_power, element_power):
        check(fn, a, b)
        if np.iinfo(db).min < 0:
            neg = b.copy()
            neg[5] = -1
            check(fn, a, neg)           # NumPy's ValueError


@ph.pipeline
def python_int_power(b):
    return int(b[1]) ** (int(b[0]) & 0x7FFFFFFFFFFFFFFF)      # (an exponent known >= 0)


@ph.pipeline
def python_int_power_in_loop(x, stop, start):
    r = 0
    for j in range(start, stop):
        r = x ** j
    return r


def _python_outcome(x, e):
    if abs(x) >= 2 and e >= 64:
        return "OverflowError"
    r = x ** e
    return r if -2**63 <= r < 2**63 else "OverflowError"


def _compiled_outcome(fn, *args):
    try:
        return int(fn(*args))
    except OverflowError as e:
        assert "int64" in str(e)
        return "OverflowError"


@pytest.mark.slow
def test_checked_int_power_sweep():
    bases = [0, 1, -1, 2, -2, 3, -3, 7, 2**31, -2**31, 2**32, 3037000500, -3037000500,
             3037000499, -3037000499, 2**62, -2**62, -2**63, 2**63 - 1]
    exps = [*range(4), *range(30, 34), *range(39, 42), *range(61, 68), 100, 127, 128, 129,
            1000, 10**5]
    cases = [(x, e) for x in bases
             for e in exps + ([2**31 - 3, 2**53 + 1, 2**62 + 3, 2**63 - 2, 2**63 - 1]
                              if abs(x) <= 1 else [])]
    for k in range(2, 64):                     # around every k-th root of 2**63
        r = round(2 ** (63 / k))
        cases += [(s * x, e) for x in range(max(0, r - 2), r + 3) for s in (1, -1)
                  for e in (k - 1, k, k + 1, 0, 1, 69, 2**40)]
    for x, e in cases:
        want = _python_outcome(x, e)
        assert _compiled_outcome(python_int_power, np.array([e, x], np.int64)) == want, (x, e)
        if e < 2**31 - 1 and (e < 2000 or abs(x) <= 1):
            assert _compiled_outcome(python_int_power_in_loop, x, e + 1, e) == want, (x, e)
