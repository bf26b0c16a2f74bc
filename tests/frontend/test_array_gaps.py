"""Issue 16's remaining array gaps, compared with plain Python on the same
inputs (values, dtypes, shapes, exceptions): masked expressions as
assignment values, masks combined with other indices, ..."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import assert_near, check, run_plain, same


def refused(fn, args, words, at):
    with pytest.raises(ph.CompileError) as info:
        fn(*args)
    msg = str(info.value)
    assert words in msg and "hint:" in msg and at in msg, msg


# masked expressions: a[m] = f(a[m], b[m], scalars) -------------------------------------------
@ph.pipeline
def periodic(x, L, periodic_x):
    n = len(x)
    t = np.tile(x, (n, 1))
    dx = t - t.T
    if periodic_x:
        dx[dx>L/2]=dx[dx > L/2]-L          # noqa: E225  (two spellings of one mask)
        dx[dx < -L / 2] = dx[dx < -L / 2] + L
    d = np.sqrt(dx**2)
    d[d == 0] = -1
    return d, dx


@ph.pipeline
def masked_functions(a, b, s):
    out = a.copy()
    m = b > 0
    out[m] = np.sqrt(np.abs(out[m])) * s + np.where(b[m] > 2, b[m], -b[m])
    out[out > 1] = abs(out[out > 1] - 2).astype(np.float32)
    return out


@ph.pipeline
def masked_augmented(a, b):
    out = a.copy()
    out[b > 0] += b[b > 0] * 2
    out[out < 3] *= out[out < 3]
    out[b < 0] -= 1
    return out


@ph.pipeline
def masked_rows(a, r, c):
    out = a.copy()
    m = a[:, 0] > 0
    out[m] = out[m] * 2 + r + c[m]
    return out


@ph.pipeline
def masked_int_from_float(a, f):
    out = a.copy()
    out[f > 0.5] = f[f > 0.5] * 10
    return out


@ph.pipeline
def masked_other_shape(a, c):
    out = a.copy()
    out[a > 0] = c[a > 0] * 2
    return out


def test_periodic_distance():
    x = np.arange(0.0, 20.0, 0.1)
    assert check(periodic, x, 4, True) is not None
    check(periodic, x, 4, False)
    check(periodic, np.array([0.0, 3.0, -1.5, 2.0]), 3, True)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_masked_functions(dt):
    a = np.array([-4.0, 9.0, 0.25, 16.0, -1.0, 3.0]).astype(dt)
    b = np.array([1.0, 3.0, -2.0, 0.5, 4.0, 0.0]).astype(dt)
    assert check(masked_functions, a, b, 2.0) is not None
    check(masked_functions, a, -b, 2.0)            # an empty selection


@pytest.mark.parametrize("dt", [np.int32, np.float64])
def test_masked_augmented(dt):
    a = np.array([[1, 5, -2], [0, 7, 3]]).astype(dt)
    b = np.array([[2, -1, 0], [3, 1, -4]]).astype(dt)
    assert check(masked_augmented, a, b) is not None


def test_masked_rows_broadcast():
    a = np.array([[1, 2, 3], [-1, 5, 6], [4, 0, 1]])
    assert check(masked_rows, a, np.array([10, 20, 30]), np.arange(9).reshape(3, 3)) is not None
    check(masked_rows, a, np.array([10]), np.arange(3).reshape(3, 1))


def test_masked_float_into_int():
    check(masked_int_from_float, np.arange(5), np.array([0.1, 0.7, 0.9, 0.2, 2.25]))


def test_masked_read_of_another_shape_is_index_error():
    check(masked_other_shape, np.arange(4) - 1, np.arange(4.0))
    with pytest.raises(IndexError, match="boolean index did not match"):
        masked_other_shape(np.arange(4) - 1, np.arange(5.0))


@ph.pipeline
def masked_other_mask_in_expression(a, c):
    b = a.copy()
    b[a > 0] = c[c > 0] + 1
    return b


@ph.pipeline
def masked_with_full_array(a, c):
    b = a.copy()
    b[a > 0] = b[a > 0] + c
    return b


@ph.pipeline
def masked_sum(a):
    b = a.copy()
    b[a > 0] = np.sum(a[a > 0])
    return b


@ph.pipeline
def masked_read_named(a):
    v = a[a > 0] * 2
    return v


@ph.pipeline
def masked_other_spelling(a):
    b = a.copy()
    b[a > 0] = b[0 < a] + 1
    return b


@pytest.mark.parametrize("fn,words,at", [
    (masked_other_mask_in_expression, "a boolean-mask read has a size that depends",
     "c[c > 0]"),
    (masked_with_full_array, "needs as many values as the mask selects", "b[a > 0] = b[a > 0] + c"),
    (masked_read_named, "a boolean-mask read has a size that depends", "a[a > 0]"),
    (masked_other_spelling, "a boolean-mask read has a size that depends", "b[0 < a]"),
])
def test_masked_reads_refused(fn, words, at):
    refused(fn, (np.arange(4), np.arange(4)) if fn.py_func.__code__.co_argcount == 2 else
            (np.arange(4),), words, at)


def test_masked_sum_of_integers_compiles_and_of_floats_is_refused():
    # (session 22: reductions of integer mask reads, frontend_ast/mask_reduce.py)
    for a in (np.arange(4) - 1, np.arange(-3, 0), np.zeros(0, np.int64)):
        got = masked_sum(a.copy())
        expect = masked_sum.py_func(a.copy())
        assert got.dtype == expect.dtype and np.array_equal(got, expect)
    refused(masked_sum, (np.arange(4.0),), "boolean-mask read of", "a[a > 0]")


# masks combined with other indices ------------------------------------------------------------
@ph.pipeline
def mask_and_int(a, m, k):
    b = a.copy()
    b[m, 0] = b[m, 0] * 2 + 1
    b[m, k] = -1
    return b


@ph.pipeline
def mask_and_slice(a, m):
    b = a.copy()
    b[1:, m] = -b[1:, m]
    b[m, 1:] += 100
    return b


@ph.pipeline
def mask_not_adjacent(a, m, r):
    b = a.copy()
    b[0, :, m] = r
    b[1, :, m] = b[1, :, m] * 10
    return b


@ph.pipeline
def mask_column_of_other(a, c, m):
    b = a.copy()
    b[m, 1] = c[m, 2] + 0.5
    return b


def test_mask_with_integer_index():
    a = np.arange(12).reshape(3, 4)
    m = np.array([True, False, True])
    assert check(mask_and_int, a, m, 2) is not None
    assert check(mask_and_int, a, m, -1) is not None
    check(mask_and_int, a, np.zeros(3, bool), 7)     # IndexError whatever the mask selects
    check(mask_and_int, a, m, 4)
    with pytest.raises(IndexError):
        mask_and_int(a, np.zeros(3, bool), 4)


def test_mask_with_slices():
    a = np.arange(16.0).reshape(4, 4)
    assert check(mask_and_slice, a, np.array([True, False, False, True])) is not None
    assert check(mask_and_slice, a, np.array([False, True, True, True])) is not None


def test_mask_after_a_slice_goes_first():
    a = np.arange(24).reshape(2, 3, 4)
    m = np.array([True, False, True, True])
    assert check(mask_not_adjacent, a, m, np.array([7, 8, 9])) is not None
    assert check(mask_not_adjacent, a, m, np.array([7])) is not None


def test_mask_column_from_another_array():
    a = np.arange(9.0).reshape(3, 3)
    assert check(mask_column_of_other, a, np.arange(12.0).reshape(3, 4), np.array([True, True, False])) is not None


@ph.pipeline
def mask_data_index(a, m):
    b = a.copy()
    b[m, a[0, 0]] = 0
    return b


@ph.pipeline
def mask_not_adjacent_column(a, m, r):
    b = a.copy()
    b[0, :, m] = r
    return b


@ph.pipeline
def mask_with_index_array(a, m, idx):
    b = a.copy()
    b[m, idx] = 0
    return b


def test_mask_combinations_refused():
    a = np.arange(12).reshape(3, 4)
    refused(mask_data_index, (a, np.ones(3, bool)), "must be known when the function is called",
            "a[0, 0]")
    refused(mask_not_adjacent_column, (np.zeros((2, 3, 4)), np.ones(4, bool),
                                       np.ones((3, 1))),
            "needs as many values as the mask selects", "b[0, :, m] = r")
    refused(mask_with_index_array, (a, np.ones(3, bool), np.array([0, 1, 0])),
            "combined with integer arrays", "idx")


# scalars stored into integer arrays: NumPy's int(v) with a range check -----------------------
def _elements(dt):
    @ph.pipeline
    def store_elements(x):
        out = np.zeros(len(x), dt)
        for i in range(len(x)):
            out[i] = x[i]
        return out
    return store_elements


def _python_float_element(dt):
    @ph.pipeline
    def store_python_float(v):
        out = np.ones(3, dt)
        out[1] = v
        return out
    return store_python_float


STORED = [np.nan, np.inf, -np.inf, 2.7, -2.7, 127.9, 128.5, -129.5, 255.5, 300.5, -1.5, 3e9,
          9.3e18, -9.3e18, 1e19, 2e19, -9.223372036854775808e18]


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("src", [np.float64, np.float32])
def test_numpy_float_scalar_into_int_element(dt, src):
    f = _elements(dt)
    for v in STORED:
        x = np.array([1.0, v, 2.0]).astype(src)
        if np.dtype(dt).kind == "u" and not 0 <= x[1] <= np.iinfo(dt).max:
            continue        # C's cast: platform-defined in NumPy (docs/numpy_code.md)
        check(f, x)


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int64, np.uint64])
def test_python_float_into_int_element(dt):
    f = _python_float_element(dt)
    for v in STORED:
        check(f, v)


@pytest.mark.parametrize("dt,src", [(np.int8, np.int64), (np.int8, np.uint8), (np.int32, np.uint64),
                                    (np.int64, np.uint64), (np.uint8, np.int64)])
def test_numpy_int_scalar_into_smaller_int_element(dt, src):
    f = _elements(dt)
    for vals in ([1, 100, 2], [1, 200, 3], [5, 300, 1], [2, -1, 0], [0, 2**40, 0]):
        x = np.array(vals).astype(src)
        check(f, x)


@ph.pipeline
def fill_slice(v, k):
    out = np.zeros(4, np.int16)
    out[k:] = v
    out[np.arange(4) > 10] = v
    return out


@ph.pipeline
def fill_slice_from_data(x):
    out = np.zeros(4, np.int16)
    out[1:] = x[0]
    return out


@ph.pipeline
def fill_mask_from_data(x):
    out = np.zeros(len(x), np.uint8)
    out[x > 0] = x[0]
    return out


@ph.pipeline
def fill_slice_from_data_maybe_empty(x, k):
    out = np.zeros(4, np.int16)
    out[k:] = x[0]
    return out


def test_scalar_into_int_region():
    for v in (np.nan, np.inf, 2.5, 40000.0, -7.9, 7, 70000, np.float32(np.nan), np.float64(3.5),
              np.int64(2**20), np.uint16(65535)):
        for k in (0, 2, 4):                 # an empty region raises all the same
            check(fill_slice, v, k)
    for x in ([np.nan, 1.0], [5.5, 1.0], [1e6, 0.0]):
        check(fill_slice_from_data, np.array(x))
    # through a mask, a NumPy scalar is cast (C's rules), not checked
    check(fill_mask_from_data, np.array([300.5, 1.0, -1.0]))
    check(fill_mask_from_data, np.array([-1.5, 1.0, 2.0]))


def test_data_scalar_into_maybe_empty_int_region_refused():
    refused(fill_slice_from_data_maybe_empty, (np.array([1.5]), 1), "even where the region is "
            "empty", "out[k:] = x[0]")


@ph.pipeline
def bool_powers(s, a):
    return s ** 1, s ** 2, s ** 0, a ** 1, a[0] ** 1, s ** True


def test_bool_power_is_int():
    for s in (False, True):
        assert check(bool_powers, s, np.array([True, False])) is not None


# np.maximum.at / np.minimum.at ----------------------------------------------------------------
@ph.pipeline
def max_min_at(a, idx, v):
    b = a.copy()
    np.maximum.at(b, idx, v)
    c = a.copy()
    np.minimum.at(c, idx, v)
    d = a.copy()
    np.fmax.at(d, idx, v)
    return b, c, d


@ph.pipeline
def max_at_rows(a, rows, cols, s):
    b = a.copy()
    np.maximum.at(b, (rows, cols), s)
    np.minimum.at(b, (rows, 0), -s)
    return b


@ph.pipeline
def at_python_int(a, idx):
    b = a.copy()
    np.add.at(b, idx, 300)
    np.maximum.at(b, idx, 2.5)
    return b


@ph.pipeline
def max_at_mask(a, v):
    b = a.copy()
    np.maximum.at(b, a > 2, v)
    return b


@pytest.mark.parametrize("dts", [(np.float64,), pytest.param((np.float32, np.int16),
                                                              marks=pytest.mark.slow)])
def test_maximum_minimum_at(dts):
    idx = np.array([0, 3, 3, 1, 0, -1])
    for dt in dts:
        a = np.array([1, 5, -2, 0, 7]).astype(dt)
        assert check(max_min_at, a, idx, np.array([4, -9, 8, 6, -1, 3]).astype(dt)) is not None
        check(max_min_at, a, idx, 3)
    if np.float64 not in dts:
        return
    nan = np.array([1.0, np.nan, 3.0, -0.0, 0.0])
    check(max_min_at, nan, np.array([0, 1, 2, 2, 3, 4]), np.array([np.nan, 5.0, 1.0, 7.0, 0.0,
                                                                   -0.0]))
    check(max_min_at, nan, idx, np.nan)
    check(max_min_at, np.arange(3.0), np.array([0, 3]), 1.0)          # IndexError, as NumPy


def test_maximum_at_tuples_and_casts():
    a = np.arange(12).reshape(3, 4)
    assert check(max_at_rows, a, np.array([0, 2, 2]), np.array([1, 3, 3]), 7) is not None
    check(max_at_rows, a.astype(np.float32), np.array([1]), np.array([-1]), 20.5)
    assert check(at_python_int, np.arange(4, dtype=np.int8), np.array([0, 0, 2])) is not None
    assert check(at_python_int, np.arange(4, dtype=np.uint8), np.array([1, 1, 1])) is not None
    assert check(max_at_mask, np.arange(6.0), 3.5) is not None
    refused(max_at_mask, (np.arange(6.0), np.arange(6.0)),
            "needs as many values as the mask selects", "np.maximum.at(b, a > 2, v)")


# integer powers with an array exponent ------------------------------------------------------------
@ph.pipeline
def int_powers(a, b):
    return a ** b, np.power(a, b), 2 ** b, a ** b[0]


@ph.pipeline
def int_power_loop(a, b):
    out = np.zeros(len(a), a.dtype)
    for i in range(len(a)):
        out[i] = a[i] ** b[i]
    return out


@pytest.mark.parametrize("dt", [np.uint8, np.int64] + [
    pytest.param(t, marks=pytest.mark.slow) for t in (np.int8, np.int32, np.uint64)])
def test_integer_power_with_array_exponent(dt):
    a = np.array([2, 3, 0, 1, 5, 7, 127, 2]).astype(dt)
    b = np.array([3, 0, 5, 100, 30, 63, 2, 64]).astype(dt)
    assert check(int_powers, a, b) is not None
    assert check(int_power_loop, a, b) is not None
    if np.dtype(dt).kind == "i":
        check(int_powers, -a, b)
        neg = b.copy()
        neg[3] = -1
        check(int_powers, a, neg)                       # ValueError, as NumPy
        check(int_power_loop, a, neg)
        with pytest.raises(ValueError, match="negative integer powers"):
            int_powers(a, neg)


def test_integer_power_mixed_dtypes():
    check(int_powers, np.array([2, -3, 4], np.int8), np.array([7, 3, 1], np.int64))
    check(int_powers, np.array([2, 3, 4], np.uint16), np.array([15, 9, 2], np.int16))
    check(int_powers, np.array([2.5, 3.0, 4.0]), np.array([3, -2, 1]))


# exp2 and cbrt within 2 ulp of NumPy (FRONTEND.md: NumPy's own exp2/cbrt differ by host:
# its AVX-512 loops are not its AVX2 ones); copysign, deg2rad, rad2deg, radians, degrees
# bit-exact --------------------------------------------------------------------------------
@ph.pipeline
def more_ufuncs(x, y):
    return (np.exp2(x), np.cbrt(x), np.copysign(x, y), np.deg2rad(x), np.rad2deg(x),
            np.radians(x), np.degrees(x), np.copysign(3, y), np.exp2(x[0]), np.cbrt(-27))


_TRANSCENDENTAL = (0, 1, 8, 9)     # the exp2 and cbrt results of more_ufuncs


@ph.pipeline
def more_ufuncs_loop(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = np.cbrt(x[i]) + np.exp2(x[i])
    return out


@ph.pipeline
def exact_ufuncs_loop(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = np.deg2rad(x[i]) + np.copysign(x[i], -1.0)
    return out


@ph.pipeline
def more_ufuncs_ints(a):
    return np.exp2(a), np.cbrt(a), np.degrees(a), np.copysign(a, -1)


def _ufunc_inputs(dt):
    rng = np.random.default_rng(7)
    x = np.concatenate([rng.uniform(-1100, 1100, 300), rng.uniform(-3, 3, 300),
                        rng.standard_normal(300) * 1e5,
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 1024.0, -1075.0, 8.0]])
    return x.astype(dt), np.where(rng.random(len(x)) < 0.5, -1.0, 1.0).astype(dt)


def _assert_sum_near(got, x):
    """got is cbrt(x) + exp2(x) with each term within 2 ulp of NumPy's and the sum
    rounded once: |got - sum| <= 2 ulp of each term + 1 ulp of the sum."""
    with np.errstate(all="ignore"):
        c, e = np.cbrt(x), np.exp2(x)
        want = c + e
        err = np.abs(got.astype(np.float64) - want)
        bound = 2 * (np.spacing(np.abs(c)) + np.spacing(np.abs(e))) + np.spacing(np.abs(want))
    finite = np.isfinite(want)
    assert got.dtype == x.dtype and np.array_equal(got[~finite], want[~finite], equal_nan=True)
    assert np.all(err[finite] <= bound[finite]), np.max(err[finite] / bound[finite])


def _check_mixed(p, *args):
    """The exp2/cbrt results within 2 ulp of plain Python's, the others bit-exact."""
    got, exp = p(*args), run_plain(p, *args)
    assert isinstance(got, tuple) and len(got) == len(exp)
    for k, (g, e) in enumerate(zip(got, exp)):
        if k in _TRANSCENDENTAL:
            assert_near(g, e)
        else:
            assert same(g, e), f"{p.__name__} result {k}: {g!r} != {e!r}"


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_more_ufuncs(dt):
    x, y = _ufunc_inputs(dt)
    _check_mixed(more_ufuncs, x, y)
    _assert_sum_near(more_ufuncs_loop(x), x)
    assert check(exact_ufuncs_loop, x) is not None


def test_more_ufuncs_of_integers():
    for a in (np.array([-8, 0, 27, 1000, 3], np.int32), np.array([1, -200, 77], np.int16)):
        got, exp = more_ufuncs_ints(a), run_plain(more_ufuncs_ints, a)
        assert_near(got[0], exp[0])
        assert_near(got[1], exp[1])
        assert same(got[2], exp[2]) and same(got[3], exp[3]), (got, exp)


def _cube_roots(x):
    c = np.cbrt(x) + np.exp2(x)
    return c


def _vectorize_c(p):
    c = p.funcs["c"]
    c.vectorize(c.args()[0], 8)


def test_cbrt_exp2_vectorized():
    vec = ph.pipeline(_cube_roots, schedule=_vectorize_c)
    for dt in (np.float64, np.float32):
        x, _ = _ufunc_inputs(dt)
        _assert_sum_near(vec(x), x)


# np.meshgrid -------------------------------------------------------------------------------------
@ph.pipeline
def grids(x, y, z):
    X, Y = np.meshgrid(x, y)
    I, J = np.meshgrid(x, y, indexing="ij")
    S = np.meshgrid(x, y, z, sparse=True)
    T = np.meshgrid(x, y, z, indexing="ij", sparse=True)
    X[0, 0] = 100
    return X, Y, I, J, S, T, np.meshgrid(x, y, z), np.meshgrid(x), np.meshgrid()


@ph.pipeline
def grid_of_ranges(n, m):
    X, Y = np.meshgrid(np.arange(n), np.linspace(0.0, 1.0, m))
    return np.sqrt(X ** 2 + Y ** 2), np.meshgrid(np.arange(3) * 2, 7, indexing="ij")


@ph.pipeline
def grid_of_2d(a, y):
    return np.meshgrid(a, y)


@ph.pipeline
def grid_views(x):
    return np.meshgrid(x, x, copy=False)


@ph.pipeline
def grid_bad_indexing(x):
    return np.meshgrid(x, x, indexing="xyz")


def test_meshgrid():
    x, y = np.arange(3, dtype=np.int16), np.linspace(-1.0, 1.0, 4)
    assert check(grids, x, y, np.array([True, False])) is not None
    assert check(grids, x[:1], y[:2], np.array([5], np.uint8)) is not None
    check(grids, x, y[:0], np.array([5], np.uint8))        # IndexError (X is empty), as NumPy
    assert check(grid_of_ranges, 5, 3) is not None
    assert check(grid_of_2d, np.arange(6).reshape(2, 3), np.arange(2.0)) is not None
    refused(grid_views, (x,), "copy=False", "copy=False")
    refused(grid_bad_indexing, (x,), "Valid values for `indexing`", "indexing=")


# np.concatenate of parts empty only at call time -------------------------------------------------
@ph.pipeline
def join_inputs(a, b):
    return np.concatenate([a, b]), np.concatenate((b * 2, a, b), axis=0)


@ph.pipeline
def join_computed(a, k):
    c = np.zeros(k)
    return np.concatenate([a, c, a[k:]]), np.concatenate((c, a)), np.concatenate([c, c + 1])


@ph.pipeline
def join_rows(a, b):
    return np.concatenate([a, b], axis=1), np.concatenate([b, a, b], axis=-1)


def test_concatenate_parts_empty_at_call_time():
    a = np.arange(3.0)
    for b in (np.arange(2.0), np.zeros(0), np.arange(1.0)):
        assert check(join_inputs, a, b) is not None
        assert check(join_inputs, b, a) is not None
    assert check(join_inputs, np.zeros(0), np.zeros(0)) is not None
    for k in (0, 2, 3):
        assert check(join_computed, a, k) is not None
    for cols in (0, 1, 2):
        assert check(join_rows, np.ones((2, 3)), np.arange(2.0 * cols).reshape(2, cols)) is not None
    check(join_rows, np.ones((2, 3)), np.ones((3, 0)))          # ValueError, as NumPy
