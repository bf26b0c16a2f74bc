"""Sums, means and products of complex arrays, compared with NumPy bit for
bit (frontend_ast/complex_sums.py): sums along the innermost axis in
memory in NumPy's complex pairwise_sum order (4 accumulators per part,
blocks of 64 elements: sum_order.float_sum lanes=4), products in turn."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError
from tests.frontend.test_complex import check

RNG = np.random.default_rng(23)


def crandom(n, dtype=np.complex128):
    """Parts of magnitudes 1e-5 .. 1e4: a different order rounds differently."""
    def part():
        return RNG.standard_normal(n) * 10.0 ** RNG.integers(-5, 5, n)
    return (part() + 1j * part()).astype(dtype)


@ph.pipeline
def whole(z):
    return np.sum(z), z.sum(axis=-1)


@pytest.mark.parametrize("n", [0, 1, 3, 4, 7, 64, 65, 129, 1000, 9001])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_one_axis_pairwise(n, dtype):
    check(whole, crandom(n, dtype))


@ph.pipeline
def rows_and_views(z):
    return (np.sum(z, axis=1), z.sum(), z[:, ::2].sum(axis=1), z.T.sum(axis=0),
            z[1:, 3:].sum())


@pytest.mark.parametrize("shape", [(5, 4)] + [
    pytest.param(s, marks=pytest.mark.slow) for s in ((3, 70), (2, 300))])
def test_rows_views_and_transposes(shape):
    check(rows_and_views, crandom(shape[0] * shape[1]).reshape(shape))


@ph.pipeline
def cast_sum(z):
    return np.sum(z, dtype=np.complex128)


@ph.pipeline
def cast_first(z):
    return z.astype(np.complex128).sum(), np.sum(z.reshape(2, -1), axis=0, dtype=np.complex128)


@pytest.mark.parametrize("n", [6, 8192 + 78, 20000])
def test_casting_sums(n):
    """The cast along the innermost axis is a located error (NumPy's
    buffered pieces of a complex cast are not reproduced); a cast array's
    sum and a casting sum along another axis compile."""
    z = crandom(n, np.complex64)
    check(cast_first, z)
    with pytest.raises(CompileError, match="astype") as e:
        cast_sum(z)
    assert "test_complex_sums.py" in str(e.value)


@ph.pipeline
def transposed(x, z):
    return x.T.sum(axis=0), np.transpose(x).sum(axis=0), z.T.sum(axis=0)


def test_transposed_views_sum_in_memory_order():
    """A transpose's innermost axis in memory is its array's: NumPy sums it
    pairwise (float sums were summed element by element before)."""
    x = crandom(210).real.copy().reshape(3, 70)
    check(transposed, x, crandom(210).reshape(3, 70))


@ph.pipeline
def means(z):
    return np.mean(z), z.mean(axis=0), np.mean(z, axis=1), np.average(z)


@pytest.mark.parametrize("shape, dtype", [((3, 70), np.complex128), ((4, 1), np.complex64)] + [
    pytest.param(s, t, marks=pytest.mark.slow) for s, t in (
        ((1, 5), np.complex128), ((4, 1), np.complex128), ((3, 70), np.complex64),
        ((1, 5), np.complex64))])
def test_complex_means(shape, dtype):
    """The sum in NumPy's order divided by the count as NumPy's complex
    division (Smith's algorithm) does."""
    check(means, crandom(shape[0] * shape[1], dtype).reshape(shape))


@ph.pipeline
def products(z):
    return np.prod(z), z.prod(axis=0), np.prod(z, axis=1)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_products(dtype):
    """Unfused along the innermost axis (NumPy's reduce loop), fused where
    it is kept (its vector loop); from 1 + 0j; special values included."""
    for shape in [(5, 16), (1, 5), (4, 1)]:
        z = (1 + 0.3 * crandom(shape[0] * shape[1])).astype(dtype).reshape(shape)
        check(products, z)
    sp = np.array([complex(-0.0, -0.0), complex(np.inf, 1), complex(np.nan, 0),
                   complex(1, np.inf), complex(-2, 0.5), complex(0.0, -0.0)], dtype=dtype)
    check(products, sp.reshape(2, 3))
    check(products, sp[[0, 4, 5, 4]].reshape(2, 2))


@ph.pipeline
def spreads(z):
    return np.var(z), np.std(z, axis=0), z.var(axis=1, ddof=1)


@pytest.mark.parametrize("dtype", [np.complex128,
                                   pytest.param(np.complex64, marks=pytest.mark.slow)])
def test_complex_var_std(dtype):
    """NumPy's _var of complex values: |z - mean|**2 as re*re + im*im, a
    float sum in NumPy's order."""
    check(spreads, crandom(3 * 70, dtype).reshape(3, 70))
