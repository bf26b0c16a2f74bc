"""A conditional expression whose branches are complex values of different
types (a Python complex from cmath and a complex128 element) is evaluated
lazily as in Python: a branch that can raise raises only where it is taken."""
import cmath

import numpy as np
import pytest

import pyhalide as ph


def exp_where_small(z, lim):
    out = np.empty(z.shape[0], dtype=np.complex128)
    for i in range(z.shape[0]):
        out[i] = cmath.exp(z[i]) if abs(z[i]) < lim else z[i]
    return out


def sqrt_or_zero(z):
    out = np.zeros(z.shape[0], dtype=np.complex64)
    for i in range(z.shape[0]):
        out[i] = z[i] if z[i].real < 0 else cmath.sqrt(z[i])
    return out


Z = np.array([1 + 2j, 3 - 1j, 0.5j, 800 + 0j, -2 + 0j, 0j])


@pytest.mark.parametrize("lim", [3.0, 1e9])
def test_exp_taken_only_where_python_takes_it(lim):
    p = ph.pipeline(exp_where_small)
    try:
        expected = exp_where_small(Z.copy(), lim)
    except OverflowError:
        with pytest.raises(OverflowError):
            p(Z.copy(), lim)
        return
    got = p(Z.copy(), lim)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=4e-16)


def test_python_complex_against_complex64_element():
    z = Z.astype(np.complex64)
    got = ph.pipeline(sqrt_or_zero)(z.copy())
    expected = sqrt_or_zero(z.copy())
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=2e-7)
