"""np.concatenate / np.vstack / np.hstack of complex arrays (they were
refused: the check for a part that may be empty asked a complex element for
one IR node): values, dtype and NumPy's memory order of the result, and
sums of the result bit for bit with NumPy's, for C and F inputs (a transposed
2-D view is F-ordered), complex64 and complex128, and empty parts. Also a.real / a.imag of a
complex argument take the argument's layout (their sums were added in C
order for F-ordered and transposed arguments: last bits differed)."""
import numpy as np
import pytest

import pyhalide as ph


def cat0(a, b):
    return np.concatenate((a, b))


def cat1(a, b):
    return np.concatenate((a, b), axis=1)


def cat_flat(a, b):
    return np.concatenate((a, b), axis=None)


def vstack(a, b):
    return np.vstack((a, b))


def hstack(a, b):
    return np.hstack((a, b))


def cat0_sum(a, b):
    return np.concatenate((a, b)).sum()


def cat1_sum(a, b):
    return np.concatenate((a, b), axis=1).sum()


def vstack_sum0(a, b):
    return np.vstack((a, b)).sum(axis=0)


def hstack_sum1(a, b):
    return np.hstack((a, b)).sum(axis=1)


def with_real_part(a, b):
    return np.concatenate((a, b.real))


def three(a, b):
    return np.concatenate((a, b, a)).sum()


def parts(a, b):
    return np.concatenate((a.real, b.imag))


def real_sum(a, b):
    return a.real.sum() + b.imag.sum(axis=0)[0]


ROWS = [cat0, vstack, cat0_sum, vstack_sum0, cat_flat, with_real_part, three, parts]
COLS = [cat1, hstack, cat1_sum, hstack_sum1]


def data(shape, dt, rng):
    n = int(np.prod(shape))
    v = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    v = v + 1j * rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
    return v.astype(dt).reshape(shape)


def laid_out(x, layout):
    if layout == "F":
        return np.asfortranarray(x)
    return x


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), (got, want)
    if want.ndim >= 2:
        assert got.flags.c_contiguous == want.flags.c_contiguous
        assert got.flags.f_contiguous == want.flags.f_contiguous


# (rows of a, rows of b), columns: parts of both sizes, an empty part either
# side, a square pair, and 1 x 1 parts (C and F at once)
SHAPES = [((37, 5), 300), ((64, 0), 130), ((0, 64), 130), ((40, 40), 33), ((1, 1), 1)]
NONEMPTY = [SHAPES[0], SHAPES[3]]

# The layouts of the two operands: C, F, and one of each (a 2-D transposed
# view, np.ascontiguousarray(x.T).T, is an F-ordered array of the same
# values: it compiles and runs as F, so it is not a case of its own). The
# kernels are made per function, dtype and operand layout (C, F, empty, 1 x
# 1), ~0.6 s CPU each: CC and FF each compile theirs, CF reuses them. The
# default run takes the C pair of the nonempty shapes in complex128 and half
# the functions (QUICK: a join, its sums along and across the joined axis;
# ~3 s CPU; every function and shape ~20 s); every
# function at every shape, the mixed pair, FF and complex64 (float32 parts)
# are in the slow run (sessions 26-30: the default run's budget).
QUICK = [cat0, cat0_sum, vstack_sum0, hstack_sum1]
JOIN_CASES = [(np.complex128, "CC", NONEMPTY, "quick")] + [
    pytest.param(dt, layouts, shapes, funcs, marks=pytest.mark.slow)
    for dt, layouts, shapes, funcs in [
        (np.complex128, "CC", SHAPES, "all"),
        (np.complex128, "CF", NONEMPTY, "all"), (np.complex128, "CF", SHAPES, "all"),
        (np.complex128, "FF", SHAPES, "all"), (np.complex64, "CC", NONEMPTY, "all"),
        (np.complex64, "CC", SHAPES, "all"), (np.complex64, "FF", SHAPES, "all"),
        (np.complex64, "CF", SHAPES, "all")]]


def _case_id(v):
    return {id(SHAPES): "all_shapes", id(NONEMPTY): "nonempty"}.get(id(v))


def _chosen(fns, funcs):
    return [f for f in fns if funcs == "all" or f in QUICK]


@pytest.mark.parametrize("dt, layouts, shapes, funcs", JOIN_CASES, ids=_case_id)
def test_complex_join_equals_numpy(dt, layouts, shapes, funcs):
    rng = np.random.default_rng(11)
    rows = [(f, ph.pipeline(f)) for f in _chosen(ROWS, funcs)]
    cols = [(f, ph.pipeline(f)) for f in _chosen(COLS, funcs)]
    for (ra, rb), n in shapes:
        a = laid_out(data((ra, n), dt, rng), layouts[0])
        b = laid_out(data((rb, n), dt, rng), layouts[1])
        for f, g in rows:
            same(g(a, b), f(a, b))
        at = laid_out(data((n, ra), dt, rng), layouts[0])
        bt = laid_out(data((n, rb), dt, rng), layouts[1])
        for f, g in cols:
            same(g(at, bt), f(at, bt))


@pytest.mark.parametrize("dt", [np.complex128, np.complex64])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_part_sums_of_complex_arguments_equal_numpy(dt, layout):
    rng = np.random.default_rng(5)
    g = ph.pipeline(real_sum)
    for shape in [(300, 37), (37, 300), (64, 130)]:
        a = laid_out(data(shape, dt, rng), layout)
        b = laid_out(data(shape, dt, rng), layout)
        same(g(a, b), real_sum(a, b))


def test_complex_and_real_parts_mixed_dtypes():
    rng = np.random.default_rng(2)
    a = data((5, 7), np.complex64, rng)
    b = rng.standard_normal((3, 7))
    c = rng.integers(-5, 5, (2, 7)).astype(np.int32)

    def f(a, b, c):
        return np.vstack((a, b, c))

    def g(a, b):
        return np.hstack((a.T, b.T))
    same(ph.pipeline(f)(a, b, c), f(a, b, c))
    same(ph.pipeline(g)(a, b), g(a, b))
    same(ph.pipeline(g)(np.asfortranarray(a), b[:, ::-1]), g(np.asfortranarray(a), b[:, ::-1]))
