"""NumPy's wrapping integer power of a run-time exponent (the intrinsic
int_power: a loop over the exponent's bits, lowering/codegen_int_power.py),
array code (vector lanes) and a loop of elements (scalars), every integer
dtype and some mixed ones, against plain Python/NumPy: bases at the dtype's
edges, exponents 0..65 around the bit widths, the dtype's maximum and random
ones; a negative exponent raises NumPy's ValueError. (Slow: 24 kernels; the
default run's cases are test_array_gaps' and test_array_ufuncs'.)"""
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
