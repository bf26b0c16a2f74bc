"""np.einsum (frontend_ast/array_einsum.py) compared with NumPy: integers
exactly (values, dtypes: no promotion of small integers), float results
without summed labels exactly, float sums within the stated bound
(n - 1)·eps·Σ|terms|; mismatched label sizes raise ValueError as NumPy."""
import numpy as np

import pyhalide as ph
from tests.frontend.frontend_check import check
from tests.frontend.located_errors import expect_error

RNG = np.random.default_rng(1620)


def sums(a, b, v):
    return (np.einsum("ij,jk->ik", a, b), np.einsum("i,i", v, v), np.einsum("ij->i", a),
            np.einsum("ij->", a), np.einsum("ii", a[:3, :3]), np.einsum("ij,j->i", a, v[:a.shape[1]]),
            np.einsum("ij,jk,k->i", a, b, v[:b.shape[1]]))


def no_sums(a, b, v):
    return (np.einsum("i,j->ij", v, v), np.einsum("ij->ji", a), np.einsum("ji", a),
            np.einsum("ii->i", b[:, :3]), np.einsum("ij,ij->ij", a, a), np.einsum("ij", a),
            np.einsum("ij,k->kji", a, v))


def integer_operands():
    return (RNG.integers(-9, 9, (4, 3)).astype(np.int32), RNG.integers(-9, 9, (3, 5)).astype(np.int8),
            RNG.integers(-9, 9, 6))


def test_integers_equal_numpy():
    args = integer_operands()
    check(ph.pipeline(sums), *args)
    check(ph.pipeline(no_sums), *args)


def test_floats():
    a, b, v = (RNG.standard_normal((40, 30)), RNG.standard_normal((30, 50)).astype(np.float32),
               RNG.standard_normal(60))
    check(ph.pipeline(no_sums), a, b, v)
    got = ph.pipeline(sums)(a, b, v)
    exp = sums(a, b, v)
    # the same sums of |terms| bound each result's error
    mags = sums(np.abs(a), np.abs(b), np.abs(v))
    for g, e, m in zip(got, exp, mags):
        assert type(g) is type(e) and np.asarray(g).dtype == np.asarray(e).dtype
        eps = np.finfo(np.asarray(e).dtype).eps
        assert np.all(np.abs(np.asarray(g) - e) <= 2 * 60 * eps * np.asarray(m)), (g, e)


def mismatched(a, b):
    return np.einsum("ij,jk->ik", a, b)


def test_mismatched_sizes_raise_value_error():
    check(ph.pipeline(mismatched), np.ones((2, 3)), np.ones((4, 2)))


def ellipsis(a):
    return np.einsum("...i->i", a)


def optimized(a):
    return np.einsum("ij->i", a, optimize=True)


def named_subscripts(a):
    s = "ij->i"
    return np.einsum(s, a)


def subscripts_of_data(a):
    return np.einsum(a.sum(), a)


def test_refusals_are_located():
    a = np.ones((2, 3))
    expect_error(ellipsis, (a,), "np.einsum(", "'...'")
    expect_error(optimized, (a,), "optimize=True", "optimize=")
    expect_error(subscripts_of_data, (a,), "a.sum(), a)", "constant string")
    check(ph.pipeline(named_subscripts), a)
