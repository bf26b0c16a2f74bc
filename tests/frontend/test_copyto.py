"""np.copyto(dst, src, casting=...) as a statement: the assignment dst[...] = src
after NumPy's casting rule (compared with plain Python: results and the
arrays written)."""
import copy

import numpy as np
import pytest

import pyhalide as ph


def plain(d, s):
    np.copyto(d, s)
    return d


def doubled_broadcast(d, s):
    np.copyto(d, s * 2)
    return d


def unsafe(d, s):
    np.copyto(d, s, casting="unsafe")
    return d


def python_int(d, v):
    np.copyto(d, v)
    return d


def reversed_self(a):
    np.copyto(a, a[::-1])
    return a


def view_dst(d, s):
    np.copyto(d[1:], s[:2])
    return d


def time_loop(g, steps):
    old = np.zeros_like(g)
    prev = np.zeros_like(g)
    for i in range(steps):
        np.copyto(prev, old)
        np.copyto(old, g)
        g[1:-1, 1:-1] = 0.5 * (old[2:, 1:-1] + old[:-2, 1:-1]) - prev[1:-1, 1:-1]
    return g


CASES = [
    (plain, (np.zeros(4), np.arange(4.0))),
    (plain, (np.zeros(3, np.complex128), np.arange(3.0))),
    (plain, (np.zeros(3, np.float32), 1.5)),
    (plain, (np.zeros(2), np.arange(3.0))),                  # ValueError: shapes
    (doubled_broadcast, (np.zeros((2, 3)), np.arange(3.0))),
    (unsafe, (np.zeros(3, np.int64), np.arange(3.0) + 0.5)),
    (python_int, (np.zeros(3, np.int8), 100)),
    (python_int, (np.zeros(3, np.int8), 300)),               # OverflowError
    (reversed_self, (np.arange(5.0),)),
    (view_dst, (np.zeros(3, np.int64), np.arange(3, dtype=np.int32))),
    (time_loop, (np.arange(20.0).reshape(4, 5), 3)),
    (time_loop, (np.arange(20.0).reshape(4, 5), 0)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{c[0].__name__}{k}" for k, c in
                                                  enumerate(CASES)])
def test_copyto_equals_python(fn, args):
    expected_args = copy.deepcopy(args)
    try:
        expected = fn(*expected_args)
    except Exception as e:
        with pytest.raises(type(e)):
            ph.pipeline(fn)(*copy.deepcopy(args))
        return
    got_args = copy.deepcopy(args)
    got = ph.pipeline(fn)(*got_args)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    for g, e in zip(got_args, expected_args):
        if isinstance(e, np.ndarray):
            np.testing.assert_array_equal(g, e)


def test_refused_cast_is_numpys_type_error():
    with pytest.raises(ph.CompileError, match="TypeError.*same_kind"):
        ph.pipeline(plain)(np.zeros(3, np.int64), np.arange(3.0))


def masked(d, s, m):
    np.copyto(d, s, where=m)
    return d


def test_where_is_a_located_refusal():
    with pytest.raises(ph.CompileError, match="where="):
        ph.pipeline(masked)(np.zeros(3), np.arange(3.0), np.array([True, False, True]))
