"""Array creation and assembly (np.arange, np.linspace, np.array/asarray,
copies, np.tile, np.concatenate/stack/hstack/vstack, np.full with an array
fill), compared with plain Python: values bit for bit, dtypes, shapes,
aliasing and NumPy's errors."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

# np.arange ----------------------------------------------------------------------------------


@ph.pipeline
def arange3(s, e, st):
    return np.arange(s, e, st)


@pytest.mark.parametrize("args", [(1, 10, 3), (10, 1, -3), (0, 0, 1), (5, 1, 1), (1.5, 10, 0.7),
                                  (0.0, 1.0, 0.1), (-2.5, 3, 0.25), (1e-3, 0.37, 1e-2),
                                  (3, -7.25, -0.3)])
def test_arange_length_and_values(args):
    check(arange3, *args)


def test_arange_step_zero_raises_as_python():
    with pytest.raises(ZeroDivisionError):
        arange3(0, 5, 0)
    check(arange3, 0, 5, 0)
    check(arange3, 0.0, 5.0, 0.0)


@ph.pipeline
def arange_dtypes(a, k):
    return (np.arange(0, 1, 0.1, dtype=np.float32), np.arange(len(a), dtype=np.uint8),
            np.arange(3, 30, 7, dtype=np.int8), np.arange(0.5, 5.5, dtype=np.int64),
            np.arange(250, 260, dtype=np.uint8), np.arange(k, dtype=np.float32),
            np.arange(np.int32(k)), np.arange(np.float32(0.5), k), np.arange(len(a) * 2.5))


@pytest.mark.parametrize("n", [0, 1, 7, 40])
def test_arange_dtypes_and_symbolic_lengths(n):
    check(arange_dtypes, np.zeros(n), n)
    assert len(arange_dtypes._specs) <= 2       # a size-1 axis specializes


@ph.pipeline
def arange_from_data(a):
    return np.arange(a[0])


def test_arange_of_array_contents_is_a_compile_error():
    with pytest.raises(ph.CompileError, match="must not depend on array contents"):
        arange_from_data(np.array([3]))


# np.linspace --------------------------------------------------------------------------------


@ph.pipeline
def linspaces(n, lo, hi):
    return (np.linspace(lo, hi, n), np.linspace(lo, hi, n, endpoint=False),
            np.linspace(np.float32(lo), hi, n), np.linspace(-3, 5, n, dtype=np.int32),
            np.linspace(lo, np.float32(hi), n, dtype=np.float64), np.linspace(lo, hi))


@pytest.mark.parametrize("n,lo,hi", [(11, 0.1, 2.7), (7, -1.3, 0.37), (1, 2.0, 3.0), (0, 1.0, 2.0),
                                     (50, 1e-300, 3e-300), (13, 5.0, -5.0), (3, 1.0, 1.0)])
def test_linspace_bit_exact(n, lo, hi):
    check(linspaces, n, lo, hi)


@ph.pipeline
def linspace_step(lo, hi):
    return np.linspace(lo, hi, 50, retstep=True), np.linspace(lo, hi, 1, retstep=True)


def test_linspace_retstep():
    check(linspace_step, 0.0, 1.0)
    check(linspace_step, np.float32(0.25), np.float32(7.5))


def test_linspace_negative_num():
    with pytest.raises(ValueError, match="Number of samples, -1, must be non-negative."):
        linspaces(-1, 0.0, 1.0)


# np.array / np.asarray ----------------------------------------------------------------------


@ph.pipeline
def literals(k, f):
    return (np.array([1, 2, k]), np.array([[1.5, k], [3, 4]], dtype=np.float32),
            np.array([np.uint8(3), np.uint8(k)]), np.array([1, f]), np.array([True, False]),
            np.array([[[1, 2]], [[k, 4]]], dtype=np.int16), np.array(k), np.array([]),
            np.asarray([f, 2.5]), np.array((k, k + 1)))


def test_array_of_literals():
    check(literals, 7, 0.5)
    check(literals, -3, 2.25)


@ph.pipeline
def array_of_arrays(a, b):
    c = a * 1
    d = np.array(c)             # a copy
    e = np.asarray(c)           # c itself
    s = np.array([a, b, a + b])
    c[0] = 99
    return d, e, s, np.array(a, dtype=np.float32), np.asarray(a, dtype=np.int64)


@pytest.mark.parametrize("dt", [np.int32, np.float64, np.uint8])
def test_array_of_arrays_and_asarray_aliasing(dt):
    d, e, *_ = check(array_of_arrays, np.arange(4).astype(dt), np.arange(4, 8).astype(dt))
    assert d[0] == 0 and e[0] == 99


@ph.pipeline
def ragged(k):
    return np.array([[1, 2], [k]])


@ph.pipeline
def too_big(k):
    return np.array([300, k], dtype=np.uint8)


def test_array_errors():
    with pytest.raises(ValueError, match="setting an array element with a sequence"):
        ragged(3)
    check(too_big, 1)


# copies -------------------------------------------------------------------------------------


@ph.pipeline
def copies(a):
    c = a * 2
    b1 = c.copy()
    b2 = np.copy(c)
    t = c.T.copy()
    c[0, 0] = -1
    return b1, b2, t, c, a.copy()


@pytest.mark.parametrize("dt", [np.int16, np.float32])
def test_copies_are_snapshots(dt):
    b1, b2, t, c, _ = check(copies, np.arange(1, 13).reshape(3, 4).astype(dt))
    assert b1[0, 0] == 2 and b2[0, 0] == 2 and t[0, 0] == 2 and c[0, 0] == -1


# np.tile ------------------------------------------------------------------------------------


@ph.pipeline
def tiles(a):
    return np.tile(a, 3), np.tile(a, (2, 1)), np.tile(a, (2, 1, 2)), np.tile(a, 1)


@pytest.mark.parametrize("shape,dt", [((4,), np.int32), ((2, 3), np.float32), ((2, 1, 3), np.uint8),
                                      ((2, 2, 1, 2), np.float64)])
def test_tile(shape, dt):
    check(tiles, np.arange(np.prod(shape)).reshape(shape).astype(dt))


@ph.pipeline
def tile_n(a, n):
    return np.tile(a, (n, 2))


def test_tile_symbolic_and_negative():
    check(tile_n, np.arange(3.0), 4)
    check(tile_n, np.arange(5.0), 0)
    check(tile_n, np.arange(0.0), 3)         # an empty input is read nowhere
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        tile_n(np.arange(3.0), -1)


# concatenate / stack ------------------------------------------------------------------------


@ph.pipeline
def joins(a, b):
    return (np.concatenate([a, b]), np.concatenate((a, b * 2), axis=0), np.stack([a, b], axis=1),
            np.hstack([a, b]), np.vstack([a, b]), np.stack((a, b, a), axis=-1),
            np.concatenate([a, b], axis=None))


@pytest.mark.parametrize("ta,tb", [(np.int16, np.float32), (np.uint8, np.int8), (np.float64, np.float64)])
def test_joins_1d(ta, tb):
    check(joins, np.arange(5).astype(ta), np.arange(5, 10).astype(tb))


@ph.pipeline
def joins_nd(a, b):
    return (np.concatenate([a, b], axis=-1), np.concatenate([a, a, b]), np.hstack((a, b)),
            np.vstack((a, b)), np.stack([a, b]))


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (1, 2, 2, 3)])
def test_joins_nd(shape):
    a = np.arange(np.prod(shape)).reshape(shape).astype(np.float32)
    check(joins_nd, a, -a)


@ph.pipeline
def concat2(a, b):
    return np.concatenate([a, b])


@ph.pipeline
def concat_axis1(a, b):
    return np.concatenate([a, b], axis=1)


def test_concatenate_symbolic_sizes_and_errors():
    for n, m in ((3, 4), (1, 6), (5, 2)):
        check(concat2, np.arange(n * 2).reshape(n, 2), np.arange(m * 2).reshape(m, 2))
    assert len(concat2._specs) <= 2          # size-1 axes specialize
    with pytest.raises(ValueError, match="along dimension 1, the array at index 0 has size 3 and "
                                         "the array at index 1 has size 4"):
        concat2(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="all the input arrays must have same number of "
                                         "dimensions"):
        concat2(np.ones((2, 3)), np.ones(3))
    with pytest.raises(np.exceptions.AxisError, match="axis 1 is out of bounds for array of "
                                                      "dimension 1"):
        concat_axis1(np.ones(3), np.ones(3))
    check(concat2, np.ones((2, 3)), np.ones(3))


@ph.pipeline
def stack2(a, b):
    return np.stack([a, b])


def test_stack_shape_mismatch():
    with pytest.raises(ValueError, match="all input arrays must have the same shape"):
        stack2(np.ones(3), np.ones(4))
    check(stack2, np.ones(3), np.ones(4))


# np.full with an array fill -----------------------------------------------------------------


@ph.pipeline
def full_rows(a):
    return np.full((3, len(a)), a), np.full((2, 3, len(a)), a, dtype=np.float32), np.full(4, 2.5)


def test_full_with_array_fill():
    check(full_rows, np.arange(5, dtype=np.int16))
    check(full_rows, np.arange(1.0, 3.0))


@ph.pipeline
def full_bad(a):
    return np.full((2, 4), a)


def test_full_fill_shape_mismatch():
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\) into "
                                         r"shape \(2,4\)"):
        full_bad(np.ones(3))


@ph.pipeline
def full_then_loop(a, k):
    h = np.full(len(a), k, dtype=np.int32)
    g = np.full((2, len(a)), 1.5)
    for i in range(len(a)):
        h[i] += a[i]
        g[1, i] = a[i]
    return h, g


def test_full_scalar_fill_is_an_array_loops_write():
    check(full_then_loop, np.arange(6, dtype=np.int32), 3)
    full_then_loop(np.arange(6, dtype=np.int32), 3)
    assert "h" in full_then_loop.funcs and "g" in full_then_loop.funcs
