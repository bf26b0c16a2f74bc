"""np.linalg.norm sums its squares (or absolute values) in the memory order
NumPy lays its temporaries out in: `(x.conj() * x).real` keeps x's order
(order='K'), so the norm of a Fortran-ordered or transposed array adds along
the memory order, not C order (session 19: the norms of such arrays differed
from NumPy in the last bits; frontend_ast/array_extras.py)."""
import numpy as np
import pytest

import pyhalide as ph


def norm_rows(a):
    return np.linalg.norm(a, axis=1)


def norm_columns_l1(a):
    return np.linalg.norm(a, ord=1, axis=0)


def norm_whole_fro(a):
    return np.linalg.norm(a, axis=(0, 1))


def norm_int_rows(a):
    return np.linalg.norm((a * 100).astype(np.int64), axis=1)


def _layouts(dtype):
    rng = np.random.default_rng(19)
    m = (rng.random((16, 33)) * 10.0 ** rng.integers(-3, 3, (16, 33))).astype(dtype)
    return [m, np.asfortranarray(m), np.ascontiguousarray(m.T).T, m[::-1, ::2]]


# every kernel in float32 and norm_rows in float64 run by default; the other
# float64 kernels (the same sums in the same memory order, one precision up;
# norm_int_rows casts to int64 first) are under `slow` (CI budget)
@pytest.mark.parametrize("kernel,dtype", [
    *[(k, np.float32) for k in (norm_rows, norm_columns_l1, norm_whole_fro, norm_int_rows)],
    (norm_rows, np.float64),
    *[pytest.param(k, np.float64, marks=pytest.mark.slow)
      for k in (norm_columns_l1, norm_whole_fro, norm_int_rows)]])
def test_norms_sum_in_numpys_memory_order(kernel, dtype):
    compiled = ph.pipeline(kernel)
    for a in _layouts(dtype):
        want, got = kernel(a), compiled(a)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)
