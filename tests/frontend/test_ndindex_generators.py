"""`for p in np.ndindex(...)` loops (loop_forms.py, loop_seqs.NdIndex,
index_tuples.py) and `tuple(<generator expression>)` over tuples
(generators.py), compared with plain Python; numpy-benchmarks
local_maxima with each of its boundary modes."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

RNG = np.random.default_rng(7)
X3 = RNG.random((3, 2, 4))
X2 = RNG.integers(-9, 9, (4, 5)).astype(np.int32)


# np.ndindex --------------------------------------------------------------------------------
def ordered_sum(data):
    s = 0.0
    for pos in np.ndindex(data.shape):      # C order: the running value shows it
        s = s * 0.5 + data[pos]
    return s


def unpacked(data):
    out = np.zeros(data.shape, np.int64)
    c = 0
    for i, j in np.ndindex(data.shape[0], data.shape[1]):
        out[i, j] = c + data[i, j]
        c += i - 2 * j
    return out, c


def sizes(n):
    c = 0
    for (i,) in np.ndindex(n):
        c = c * 3 + i
    return c


def test_ndindex_walks_positions_in_c_order():
    check(ph.pipeline(ordered_sum), X3)
    check(ph.pipeline(ordered_sum), X3[:, :, 1])


def test_ndindex_of_sizes_with_unpacking():
    check(ph.pipeline(unpacked), X2)


@pytest.mark.parametrize("n", [5, 1, 0, -1])
def test_ndindex_of_an_int(n):
    # -1: NumPy raises ValueError (negative dimensions); 0 never runs
    p = ph.pipeline(sizes)
    if n < 0:
        with pytest.raises(ValueError):
            sizes(n)
        with pytest.raises(ValueError):
            p(n)
    else:
        assert check(p, n) == sizes(n)


# tuple(generator) --------------------------------------------------------------------------
def shifted(p, o, w):
    return (p + o) % w


def neighbours(data):
    s = 0.0
    w = data.shape
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            pos = (i, j)
            idx = tuple(shifted(p, 1, q) for p, q in zip(pos, w))
            back = tuple(p - k for k, p in enumerate(reversed(idx)))
            s += data[idx] * 2.0 + data[back]
    return s


def from_range(data):
    t = tuple(k * k for k in range(1, 4))
    u = tuple(v + 1 for v in data.shape)
    return t, u, data[t[0], 2] + u[1]


def test_generator_over_zip_enumerate_reversed():
    check(ph.pipeline(neighbours), X2.astype(np.float64))


def test_generator_over_range_and_shape():
    check(ph.pipeline(from_range), X2)


def over_array(a):
    t = tuple(x for x in a)
    return t[0]


def with_if(a):
    t = tuple(v for v in a.shape if v > 1)
    return len(t)


def ndindex_value(a):
    it = np.ndindex(a.shape)
    return it


def test_generator_of_data_dependent_length_is_refused():
    expect_error(over_array, (X2,), "a)", "known when compiling")


def test_generator_with_if_is_refused():
    expect_error(with_if, (X2,), "v > 1", "`if`")


def test_ndindex_outside_a_loop_is_refused():
    expect_error(ndindex_value, (X2,), "np.ndindex(a.shape)", "`for` loop")


# numpy-benchmarks local_maxima ------------------------------------------------------------
def wrap(pos, offset, bound):
    return (pos + offset) % bound


def clamp(pos, offset, bound):
    return min(bound - 1, max(0, pos + offset))


def reflect(pos, offset, bound):
    idx = pos + offset
    return min(2 * (bound - 1) - idx, max(idx, -idx))


def local_maxima(data, mode=wrap):
    wsize = data.shape
    result = np.ones(data.shape, bool)
    for pos in np.ndindex(data.shape):
        myval = data[pos]
        for offset in np.ndindex(wsize):
            neighbor_idx = tuple(mode(p, o - w // 2, w) for (p, o, w) in zip(pos, offset, wsize))
            result[pos] &= (data[neighbor_idx] <= myval)
    return result


def local_maxima_clamp(data, mode=clamp):
    return local_maxima(data, mode)


def local_maxima_reflect(data, mode=reflect):
    return local_maxima(data, mode)


@pytest.mark.parametrize("fn", [local_maxima, local_maxima_clamp, local_maxima_reflect],
                         ids=["wrap", "clamp", "reflect"])
def test_local_maxima(fn):
    data = RNG.random((3, 4, 2))
    data[1, 2, 1] = 5.0
    got = check(ph.pipeline(fn), data)
    assert got.any() and not got.all()
    check(ph.pipeline(fn), np.arange(24, dtype=np.float64).reshape(2, 3, 4))
