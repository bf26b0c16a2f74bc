"""A product whose right operand is a transposed C-ordered array (`x @ b.T`,
`np.dot(x1, x2.T)`: numpy-benchmarks' euclidean_distance_square) sums each
element's k terms in 8 interleaved partial sums over the whole chunks of k,
then the lanes, then the rest (array_dot._lane_product): vector loads along
b's rows instead of a gather per vector (euclidean_distance_square 10.9 ->
7.0 ms CPU). Results are within the module's bound of NumPy's
(2·n·eps·(|a| @ |b|), as for BLAS); shapes, dtypes and NaN/inf as NumPy's."""
import re

import numpy as np
import pytest

import pyhalide as ph


def dot_t(a, b):
    return np.dot(a, b.T)


def matmul_t(a, b):
    return a @ b.T


def method_t(a, b):
    return a.dot(b.T)


def euclidean_distance_square(x1, x2):
    return -2 * np.dot(x1, x2.T) + np.sum(np.square(x1), axis=1)[:, np.newaxis] + \
        np.sum(np.square(x2), axis=1)


def _within(got, exp, a, b):
    assert got.shape == exp.shape and got.dtype == exp.dtype, (got.shape, exp.shape)
    n = a.shape[-1]
    eps = np.finfo(exp.dtype).eps
    bound = 2 * n * eps * (np.abs(a).astype(np.float64) @ np.abs(b).T.astype(np.float64))
    assert np.all(np.abs(got.astype(np.float64) - exp.astype(np.float64)) <= bound), \
        np.max(np.abs(got - exp))


def test_shapes():
    p = ph.pipeline(dot_t)
    rng = np.random.default_rng(8)
    for i, k, j in ((1, 512, 37), (3, 7, 5), (2, 8, 3), (4, 9, 6), (1, 1, 1), (2, 0, 3),
                    (0, 4, 2), (5, 17, 0)):
        a, b = rng.standard_normal((i, k)), rng.standard_normal((j, k))
        _within(p(a, b), dot_t(a, b), a, b)
    v, b = rng.standard_normal(9), rng.standard_normal((4, 9))
    _within(p(v, b), dot_t(v, b), v, b)


@pytest.mark.parametrize("fn", [matmul_t, method_t], ids=lambda f: f.__name__)
def test_spellings(fn):
    rng = np.random.default_rng(12)
    a, b = rng.standard_normal((6, 33)), rng.standard_normal((11, 33))
    _within(ph.pipeline(fn)(a, b), fn(a, b), a, b)


def test_float32_and_mixed():
    p = ph.pipeline(dot_t)
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((3, 21)).astype(np.float32), \
        rng.standard_normal((4, 21)).astype(np.float32)
    _within(p(a, b), dot_t(a, b), a, b)
    ai = rng.integers(-5, 5, (3, 21))
    _within(p(ai, b), dot_t(ai, b), ai, b)
    bi = rng.integers(-5, 5, (4, 21))
    np.testing.assert_array_equal(p(ai, bi), dot_t(ai, bi))      # integers: exact


def test_nan_and_inf():
    p = ph.pipeline(dot_t)
    a = np.ones((2, 19))
    b = np.ones((3, 19))
    a[0, 17] = np.inf           # in the rest
    b[1, 3] = np.nan            # in a chunk
    got, exp = p(a, b), dot_t(a, b)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(exp))
    np.testing.assert_array_equal(got[~np.isnan(exp)], exp[~np.isnan(exp)])


def test_fortran_ordered_operand():
    """b Fortran-ordered: b.T is C-ordered, the blocked product's case."""
    p = ph.pipeline(dot_t)
    rng = np.random.default_rng(10)
    a, b = rng.standard_normal((3, 10)), np.asfortranarray(rng.standard_normal((4, 10)))
    _within(p(a, b), dot_t(a, b), a, b)


@pytest.mark.parametrize("schedule", [None, pytest.param("auto", marks=pytest.mark.slow)])
def test_euclidean_distance_square(schedule):
    p = ph.pipeline(euclidean_distance_square, schedule=schedule)
    rng = np.random.default_rng(11)
    x1, x2 = rng.random((1, 512)), rng.random((300, 512))
    got, exp = p(x1, x2), euclidean_distance_square(x1, x2)
    assert got.shape == exp.shape
    np.testing.assert_allclose(got, exp, rtol=0, atol=1e-12 * 512)


def test_the_lanes_are_vector_loads():
    p = ph.pipeline(dot_t)
    p(np.ones((1, 16)), np.ones((3, 16)))
    text = p.lower("final")
    assert re.search(r"dot_lanes(\$\d+)?\[ramp\(", text) and "b[ramp(" in text, text
