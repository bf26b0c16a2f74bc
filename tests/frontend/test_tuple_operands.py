"""A tuple on one side of an array operator or as a NumPy function's
operand is the array NumPy makes of it (np.asarray: a Python int int64, a
Python float float64), compared with NumPy."""
import numpy as np
import pytest

import pyhalide as ph


def arithmetic(a):
    return (1, 0, 2) * a + np.maximum((1.5, -1, 0), a), a == (1, 2, 3)


def bitwise(a):
    return np.bitwise_and((1, 0, 3), a)


def check_mask(db, mask=(1, 0, 1)):
    out = np.zeros(db.shape[0], dtype=bool)
    for idx, line in enumerate(db):
        target, vector = line[0], line[1:]
        if (mask == np.bitwise_and(mask, vector)).all():
            if target == 1:
                out[idx] = 1
    return out


@pytest.mark.parametrize("fn", [arithmetic, bitwise])
@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.float32])
def test_tuple_operands(fn, dtype):
    a = np.array([1, 2, 3], dtype=dtype)
    if fn is bitwise and dtype is np.float32:
        with pytest.raises(TypeError):
            fn(a)
        with pytest.raises((TypeError, ph.CompileError)):
            ph.pipeline(fn)(a)
        return
    got, want = ph.pipeline(fn)(a), fn(a)
    for g, w in zip(got if isinstance(want, tuple) else [got], want if isinstance(want, tuple)
                    else [want]):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_numpy_benchmarks_check_mask():
    rng = np.random.default_rng(0)
    db = np.array(rng.integers(2, size=(200, 4)), dtype=bool)
    np.testing.assert_array_equal(ph.pipeline(check_mask)(db), check_mask(db))
