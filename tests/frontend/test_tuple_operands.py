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


def nested_targets(a, k):
    out = a.copy()
    out[k][1] += 5.0
    out[0][0] = -1.0
    out[1] = out[-1] = 0, 0
    return out


def unpack_rows(a):
    dx, dy = a[1] - a[0]
    s = 0.0
    for i in range(1, a.shape[0]):
        x, y = a[i] - a[i - 1]
        s += x * y
    return dx, dy, s


def test_nested_subscript_targets_and_tuple_stores():
    a = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(ph.pipeline(nested_targets)(a, 2), nested_targets(a, 2))


def test_unpacking_a_1d_array_value():
    a = np.arange(8.0).reshape(4, 2) ** 2
    assert ph.pipeline(unpack_rows)(a) == unpack_rows(a)
    with pytest.raises(ValueError, match=r"too many values to unpack \(expected 2\)"):
        ph.pipeline(unpack_rows)(np.ones((3, 3)))


def helper_writes_twice(force, i):
    force[i - 1, 0] = 2.0     # an element and a row of one array: still refused
    force[i] += 1.0


def calls_helper(a):
    f = np.zeros(a.shape)
    for i in range(1, a.shape[0]):
        helper_writes_twice(f, i)
    return f


def test_messages_name_a_helpers_locals_as_written():
    with pytest.raises(ph.CompileError) as e:
        ph.pipeline(calls_helper)(np.ones((4, 2)))
    msg = str(e.value)
    assert "_ph_" not in msg and "'f' is written at two places" in msg, msg
