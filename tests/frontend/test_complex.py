"""complex64 / complex128 in @pipeline code: scalars (Python complex, NumPy
complex scalars, `1j` constants), arrays (arguments, results, array
values, stores), arithmetic, abs, .real/.imag/conj, np.exp, comparisons,
sums, casts and cmath, compared with plain Python on the same inputs:
bit for bit (signs of zeros included, any NaN equal to any NaN), except
np.exp / cmath.exp (libm's cexp: within 2 ulp)."""
import cmath
import warnings

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError

RNG = np.random.default_rng(7)


def _float_same(x, y) -> bool:
    return (x == y and np.signbit(x) == np.signbit(y)) or (x != x and y != y)


def same(got, exp) -> bool:
    """Equal values of the same types; floats and complex parts bit for bit."""
    if isinstance(exp, tuple):
        return isinstance(got, tuple) and len(got) == len(exp) and \
            all(same(g, e) for g, e in zip(got, exp))
    if isinstance(exp, np.ndarray):
        if not (isinstance(got, np.ndarray) and got.dtype == exp.dtype and
                got.shape == exp.shape):
            return False
        if exp.dtype.kind == "c":
            return same(got.real.copy(), exp.real.copy()) and \
                same(got.imag.copy(), exp.imag.copy())
        if exp.dtype.kind == "f":
            return bool(np.all((got == exp) & (np.signbit(got) == np.signbit(exp)) |
                               (np.isnan(got) & np.isnan(exp))))
        return np.array_equal(got, exp)
    if type(got) is not type(exp):
        return False
    if isinstance(exp, (complex, np.complexfloating)):
        return _float_same(got.real, exp.real) and _float_same(got.imag, exp.imag)
    if isinstance(exp, (float, np.floating)):
        return _float_same(got, exp)
    return got == exp


def plain(p, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return p.py_func(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])


def check(p, *args):
    """p(*args) equals plain Python's result bit for bit (or raises the
    same exception type); the inputs are left alone."""
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        exp = plain(p, *args)
    except Exception as e:
        with pytest.raises(type(e)):
            p(*args)
        return None
    got = p(*args)
    for a, b in zip(args, before):
        if isinstance(a, np.ndarray):
            assert same(a, b), f"{p.__name__} modified an input"
    assert same(got, exp), f"{p.__name__}: compiled {got!r} != plain {exp!r}"
    return got


def ulps(got, exp) -> float:
    """The largest difference of the parts in units of the last place."""
    got, exp = np.asarray(got), np.asarray(exp)
    assert got.dtype == exp.dtype
    worst = 0.0
    for part in ("real", "imag"):
        g, e = getattr(got, part), getattr(exp, part)
        both_nan = np.isnan(g) & np.isnan(e)
        d = np.where(both_nan | (g == e), 0.0, np.abs(g - e) / np.spacing(np.abs(e)))
        worst = max(worst, float(np.max(d, initial=0.0)))
    return worst


def crandom(n, dtype=np.complex128, scale=1.0):
    return ((RNG.standard_normal(n) + 1j * RNG.standard_normal(n)) * scale).astype(dtype)


SPECIAL = np.array([0j, complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0), 1 + 0j,
                    -1j, complex(np.inf, 0), complex(0, -np.inf), complex(np.inf, np.nan),
                    complex(np.nan, 1), 1e-310 + 1e-310j, 1e300 - 1e300j, 3 + 4j, 2.5 - 7j])


# scalars -------------------------------------------------------------------------------------
@ph.pipeline
def scalar_ops(z, w, x):
    return (z + w, z - w, z * w, z / w, z + x, x - z, x * z, z / x, x / z, -z, +z,
            z ** 2, z ** 3, z ** 0, z ** 1, z ** 5, z ** -1, z ** -2, abs(z), z.real, z.imag,
            z.conjugate(), z == w, z != w, z == x, 1j * z, z - 2j, 1 + 2j)


@pytest.mark.parametrize("z, w, x", [
    (1 + 2j, 3 - 4j, 0.5), (1 + 2j, 3 - 4j, 7),
    (np.complex128(1.5 - 2j), np.complex128(0.1 + 0.2j), 0.5),
    (np.complex64(1.5 - 2j), 0.1 + 0.2j, np.float32(0.5)),
    (np.complex64(1.5 - 2j), np.complex128(0.1 + 0.2j), np.float64(0.25)),
    (1.5 - 2j, np.complex64(0.1 + 0.2j), np.float32(3)),
    (complex(-0.0, 0.0), complex(1e300, -1e-300), -0.0),
    (np.complex128(complex(-0.0, -0.0)), np.complex128(complex(1e-310, 4)), np.float64(2)),
])
def test_scalar_arithmetic_is_plain_pythons(z, w, x):
    check(scalar_ops, z, w, x)


@ph.pipeline
def scalar_div(z, w):
    return z / w


@pytest.mark.parametrize("z, w", [(1 + 1j, 0j), (0j, 0j), (1 + 1j, complex(0.0, -0.0))])
def test_python_complex_division_by_zero_raises(z, w):
    with pytest.raises(ZeroDivisionError):
        scalar_div(z, w)


@pytest.mark.parametrize("z, w", [(np.complex128(1 + 1j), np.complex128(0j)),
                                  (np.complex128(1 + 1j), np.complex128(complex(np.inf, 1))),
                                  (np.complex128(complex(np.nan, 1)), np.complex128(2j))])
def test_numpy_complex_division_special_values(z, w):
    check(scalar_div, z, w)


@ph.pipeline
def scalar_pow(z, n):
    return z ** -1


def test_python_zero_to_negative_power_raises():
    with pytest.raises(ZeroDivisionError):
        scalar_pow(0j, 1)
    check(scalar_pow, 2 + 1j, 1)


@ph.pipeline
def numpy_order(z, w):
    return z < w, z <= w, z > w, z >= w


def test_numpy_complex_scalars_order_lexicographically():
    for z, w in [(1 + 2j, 1 + 3j), (1 + 2j, 1 + 2j), (2 + 0j, 1 + 5j), (1 + 2j, complex(1, np.nan))]:
        check(numpy_order, np.complex128(z), np.complex128(w))
        check(numpy_order, np.complex64(z), np.complex64(w))


def test_python_complex_ordering_is_refused():
    with pytest.raises(CompileError, match="<"):
        numpy_order(1 + 2j, 3j)


I = 2j            # a module-level complex constant


@ph.pipeline
def with_global(x):
    return x * I + 1j


def test_complex_constants_and_globals():
    check(with_global, 3.0)
    check(with_global, np.float32(3.0))


# arrays --------------------------------------------------------------------------------------
@ph.pipeline
def array_ops(a, b):
    return (a + b, a - b, a * b, a / b, a ** 2, a ** 3, a ** -1, np.power(a, 2), -a,
            np.abs(a), abs(b), a.real, a.imag, np.real(b), np.imag(b), np.conj(a), a.conj(),
            b.conjugate(), a == b, a != b, np.square(a), a * 2.5, 1j * b)


@ph.pipeline
def angles(a):
    return np.angle(a)


def check_angles(a):
    """np.angle is atan2: within 2 ulp of NumPy's (NumPy's own float32 atan2 differs by
    host: on AVX-512 it is up to 3 ulp from the correctly rounded value)."""
    got, exp = angles(a), plain(angles, a)
    assert got.dtype == exp.dtype and got.shape == exp.shape
    assert np.array_equal(np.isnan(got), np.isnan(exp)) and ulps(got, exp) <= 2, (got, exp)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_array_operations_are_numpys_bit_for_bit(dtype):
    a, b = crandom(100, dtype), crandom(100, dtype)
    check(array_ops, a, b)
    check_angles(a)
    with np.errstate(over="ignore"):         # 1e300 has no complex64 value: inf
        special = SPECIAL.astype(dtype)
    check(array_ops, special, special[::-1])
    check_angles(special)


@pytest.mark.slow          # each layout compiles array_ops again (C order: above)
def test_strided_and_fortran_order_inputs():
    a = crandom(200).reshape(10, 20)
    check(array_ops, a[:, ::3], a[:, 1::3])
    check_angles(a[:, 1::3])
    f = np.asfortranarray(crandom(60).reshape(6, 10))
    check(array_ops, f, f.T.copy().T)


@ph.pipeline
def promote(c64, f64, f32, i32):
    return (c64 * 1j, c64 + f64, f32 + 1j, i32 * 1j, c64 * np.complex128(2j),
            f32 * np.complex64(1 - 1j), c64 / 3)


def test_results_have_numpys_dtypes():
    got = check(promote, crandom(5, np.complex64), RNG.standard_normal(5),
                RNG.standard_normal(5).astype(np.float32), np.arange(5, dtype=np.int32))
    assert [g.dtype for g in got] == [np.complex64, np.complex128, np.complex64,
                                      np.complex128, np.complex128, np.complex64, np.complex64]


@ph.pipeline
def normalize_complex_arr(a):
    a_oo = a - a.real.min() - 1j * a.imag.min()
    return a_oo / np.abs(a_oo).max()


def test_normalize_complex_arr():
    x = RNG.random(1000) + 1j * RNG.random(1000)
    check(normalize_complex_arr, x)
    check(normalize_complex_arr, x.astype(np.complex64))


@ph.pipeline
def mandelbrot_step(X, Y, horizon, n):
    C = X + Y[:, None] * 1j
    N = np.zeros(C.shape, dtype=np.int64)
    Z = np.zeros(C.shape, np.complex128)
    I = np.less(np.abs(Z), horizon)
    N[I] = n
    Z[I] = C[I]
    I = np.abs(Z) < horizon
    Z = np.where(I, Z ** 2 + C, Z)
    N[N == n] = 0
    return Z, N, C


def test_mandelbrot_array_code_outside_loops():
    X, Y = np.linspace(-2, 1, 30), np.linspace(-1.2, 1.2, 20)
    check(mandelbrot_step, X, Y, 1.5, 3)


@ph.pipeline
def decision_parts(E, symbols, i):
    d = abs(E[i] - symbols) ** 2
    im = np.argmin(d)
    out = np.zeros(E.shape[0], dtype=E.dtype)
    out[i] = symbols[im]
    return out, d


def test_make_decision_complex_parts_outside_loops():
    s = crandom(256)
    sc = RNG.choice(s, 32)
    for i in (0, 5, 255):
        check(decision_parts, s, sc, i)


@ph.pipeline
def decision_loops(E, symbols):
    out = np.zeros(E.shape[0], dtype=E.dtype)
    for i in range(E.shape[0]):
        best = 0
        bd = abs(E[i] - symbols[0]) ** 2
        for j in range(1, symbols.shape[0]):
            dj = abs(E[i] - symbols[j]) ** 2
            if dj < bd:
                bd = dj
                best = j
        out[i] = symbols[best]
    return out


def test_complex_elements_in_loops():
    s = crandom(64)
    check(decision_loops, s, RNG.choice(s, 8))


@ph.pipeline
def stores(C, lo):
    Z = np.zeros(C.shape, np.complex128)
    W = np.ones_like(C)
    F = np.full(C.shape, 1 - 2j)
    m = C.real > lo
    Z[m] = C[m]
    W[m] = 2j
    F[1:3] = C[2:4] * 2
    F[0] = 5
    W[-1] = W[0] * F[1]
    return Z, W, F


def test_masked_sliced_and_element_stores():
    C = crandom(12)
    check(stores, C, 0.0)
    check(stores, C.astype(np.complex64), 0.5)


@ph.pipeline
def casts(x, z):
    return x.astype(np.complex128), z.astype(np.complex64), x.astype(np.complex64), \
        np.complex128(x[0]), np.complex64(z[1]), np.zeros(3, dtype=np.complex64), \
        np.empty_like(z).shape


def test_casts_to_complex():
    check(casts, RNG.standard_normal(4), crandom(4))


@ph.pipeline
def sums(z):
    return np.sum(z, axis=0), z.sum(axis=0), np.sum(z.real), z.imag.sum(axis=1)


@pytest.mark.parametrize("dtype", [np.complex128,
                                   pytest.param(np.complex64, marks=pytest.mark.slow)])
def test_sums_where_numpy_adds_element_by_element(dtype):
    check(sums, crandom(35, dtype).reshape(5, 7))


@ph.pipeline
def exps(a, z):
    return np.exp(a), np.exp(z), cmath.exp(complex(z))


def test_exp_within_two_ulp():
    a = crandom(500, scale=3.0)
    for z in (0.5 - 1.5j, 2 + 0j, -1 + 3j):
        got = exps(a, np.complex128(z))
        exp = plain(exps, a, np.complex128(z))
        assert [type(g) for g in got[1:]] == [type(e) for e in exp[1:]]
        assert got[0].dtype == exp[0].dtype
        for g, e in zip(got, exp):
            assert ulps(g, e) <= 2
    got = exps(a.astype(np.complex64), np.complex64(0.5j))
    assert got[0].dtype == np.complex64 and ulps(got[0], np.exp(a.astype(np.complex64))) <= 2


@ph.pipeline
def cmath_fns(z, r, phi):
    return (cmath.phase(z), cmath.polar(z), cmath.rect(r, phi), cmath.isnan(z),
            cmath.isinf(z), cmath.isfinite(z), abs(z))


def test_cmath_on_scalars():
    for z in (3 + 4j, complex(-0.0, -1.0), complex(np.inf, 1), complex(np.nan, 0), -2 + 0j):
        check(cmath_fns, z, 2.0, 0.0)
        check(cmath_fns, z, 0.5, 1.25)


# what is not compiled -------------------------------------------------------------------------
@ph.pipeline
def floor_div(z, w):
    return z // w


@ph.pipeline
def tan_of_complex(a):
    return np.tan(a)


@ph.pipeline
def fractional_power(z):
    return z ** 0.5


@pytest.mark.parametrize("fn, args, text", [
    (floor_div, (1 + 1j, 2j), "//"),
    (tan_of_complex, (crandom(3),), "np.tan of complex"),
    (fractional_power, (1 + 1j,), "constant integer exponent"),
])
def test_refused_constructs_are_located_errors(fn, args, text):
    with pytest.raises(CompileError, match=text) as e:
        fn(*args)
    assert "test_complex.py" in str(e.value)


@ph.pipeline
def exp_scalars(z, w):
    return cmath.exp(z), np.exp(w)


INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("z", [
    complex(710, 0.1), complex(709, 1), complex(800, 1), complex(INF, 1), complex(-INF, 1),
    complex(INF, 0), complex(-INF, INF), complex(-INF, NAN), complex(INF, NAN), complex(NAN, 0),
    complex(NAN, 1), complex(1, INF), complex(1, NAN), complex(INF, INF), complex(-0.0, -0.0)])
def test_exp_special_values_and_errors(z):
    """cmath.exp raises CPython's ValueError / OverflowError; np.exp gives
    glibc's cexp values (its scaling of large real parts included)."""
    w = np.complex128(z)
    try:
        exp = plain(exp_scalars, z, w)
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e)):
            exp_scalars(z, w)
        exp = (None, plain(exp_scalars, 0j, w)[1])
    got = exp_scalars(z, w) if exp[0] is not None else (None, exp_scalars(0j, w)[1])
    for g, e in zip(got, exp):
        if e is not None:
            assert type(g) is type(e) and ulps(g, e) <= 2, (g, e)


@ph.pipeline
def augmented(C, W):
    Z = C.copy()
    Z += W
    Z[1:] *= 2j
    Z[0] += 1j
    V = Z[::2]
    V -= 1
    return Z, V


@ph.pipeline
def branches(C, flag):
    if flag > 0:
        Z = C * 2
    else:
        Z = C + 1j
    z = C[0] if flag > 0 else 1j * C[1]
    return Z, z, abs(z) < 2, np.abs(Z) >= 1.5


def test_augmented_assignments_and_branches():
    check(augmented, crandom(6), crandom(6))
    for flag in (1, -1):
        check(branches, crandom(4), flag)


@ph.pipeline
def square_roots(z, w, a):
    return cmath.sqrt(z), np.sqrt(w), np.sqrt(a)


@pytest.mark.parametrize("z", [
    complex(-INF, NAN), complex(INF, NAN), complex(NAN, INF), complex(-INF, -2),
    complex(INF, -2), complex(NAN, 1), complex(1, NAN), complex(-INF, INF),
    complex(-0.0, -0.0), complex(-4, 0), complex(-4, -0.0), complex(1e-320, 1e-320), 3 + 4j,
    complex(-1e300, 1e-300), 2.5 - 0.1j])
def test_square_roots(z):
    """cmath.sqrt as CPython computes it, bit for bit; np.sqrt (glibc's
    csqrt) within 2 ulp; both with C99's special values."""
    a = crandom(200, scale=5)
    for w, arr in ((np.complex128(z), a), (np.complex64(z), a.astype(np.complex64))):
        with np.errstate(all="ignore"):
            got, exp = square_roots(z, w, arr), plain(square_roots, z, w, arr)
        assert same(got[0], exp[0])
        for g, e in zip(got[1:], exp[1:]):
            assert np.asarray(g).dtype == np.asarray(e).dtype and type(g) is type(e)
            assert ulps(g, e) <= 2, (g, e)


@ph.pipeline
def magnitudes(z, w, a):
    return abs(z), np.abs(z), abs(w), np.abs(w), np.abs(a), abs(a), cmath.polar(w)


def test_magnitudes_bit_for_bit():
    """abs() of scalars is C's hypot, np.abs NumPy's vector loop (also for
    scalars): both bit for bit, over magnitudes from 1e-300 to 1e300."""
    v = RNG.standard_normal((60, 2)) * np.exp(RNG.uniform(-690, 690, (60, 2)))
    a = v[:, 0] + 1j * v[:, 1]
    for x, y in v[:20]:
        with np.errstate(all="ignore"):         # past float32's range: inf parts
            zs = (np.complex128(complex(x, y)), np.complex64(complex(x, y)))
        for z in zs:
            with np.errstate(all="ignore"):
                check(magnitudes, z, complex(x, y), a)
