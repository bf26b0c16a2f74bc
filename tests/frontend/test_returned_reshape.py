"""A returned reshape (or ravel) of a whole array is the array reshaped when
the function returns (array_shape.Reshaped): the kernel writes the array
itself and the result is a view of it, as NumPy's is, instead of a copy
through div/mod indexing (numpy-benchmarks' create_grid: 9.7 -> 1.9 ms).
Of an argument, NumPy's own reshape runs at return: a view of a C-ordered
argument, a copy of another. Values, dtypes and shapes equal plain Python's
bit for bit (sizes 0, 1, 5, 37), with the default schedule and "auto"."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import describe, same


def create_grid(x):
    n = x.shape[0]
    z = np.zeros((n, n, 3))
    z[:, :, 0] = x.reshape(-1, 1)
    z[:, :, 1] = x
    return z.reshape(n * n, 3)


def ravel_local(x):
    y = x * 2 + 1
    return y.ravel()


def chained(x):
    z = np.zeros((x.shape[0], 2, 3), x.dtype)
    z[:, 0, :] = x.reshape(-1, 1)
    return z.reshape(x.shape[0], 6).reshape(-1)


def written_after(x):
    z = np.ones((x.shape[0], 2))
    g = z.reshape(-1)
    z[:, 1] = x             # NumPy's view g sees the write
    return g


def both(x):
    z = np.zeros((x.shape[0], 2))
    z[:, 0] = x
    return z, z.reshape(-1)


def of_argument(m):
    return m.reshape(-1)


def of_written_argument(m):
    m[0, 0] = 7.0
    return m.ravel()


def part_of_array(x):
    z = np.zeros((x.shape[0], 4))
    z[:, 1] = x
    return z[:, :2].flatten()           # a copy in NumPy and here


def complex_local(x):
    z = np.zeros((x.shape[0], 2), np.complex128)
    z[:, 0] = x + 1j
    return z.reshape(-1)


CASES = [create_grid, ravel_local, chained, written_after, both, part_of_array, complex_local]


def _arg(n, seed=0):
    return np.random.default_rng(seed).standard_normal(n)


# the default run: every case under the default schedule, every other one under auto as
# well; -m slow: the rest under auto
@pytest.mark.parametrize("fn, schedule", [
    pytest.param(fn, schedule, marks=[pytest.mark.slow] if schedule and i % 2 else [])
    for schedule in (None, "auto") for i, fn in enumerate(CASES)],
    ids=lambda v: getattr(v, "__name__", str(v)))
def test_values_equal_python(fn, schedule):
    p = ph.pipeline(fn, schedule=schedule)
    for n in (0, 1, 5, 37):
        x = _arg(n, n)
        for _ in range(2):          # the general call, then the fast path
            got, exp = p(x.copy()), fn(x.copy())
            assert same(got, exp), f"{fn.__name__} n={n}: {describe(got)} != {describe(exp)}"


def test_integer_dtypes():
    p = ph.pipeline(chained)
    x = np.arange(-3, 9, dtype=np.int16)
    got, exp = p(x), chained(x)
    assert same(got, exp), f"{describe(got)} != {describe(exp)}"


def test_the_result_is_a_view_of_the_array_written():
    """No copy: the result is a view of the (n, n, 3) array the kernel
    wrote, C-contiguous, as NumPy's."""
    p = ph.pipeline(create_grid)
    g = p(_arg(6))
    assert g.base is not None and g.base.shape == (6, 6, 3) and g.flags.c_contiguous
    text = p.lower("final")
    assert "produce result" not in text, text      # z itself is the output


def test_shared_memory_as_numpy():
    z, flat = ph.pipeline(both)(_arg(4))
    assert np.shares_memory(z, flat)


def test_argument_reshape_is_numpys():
    """A view of a C-ordered argument; a copy of a Fortran-ordered one, as
    NumPy's reshape gives (values equal either way)."""
    p = ph.pipeline(of_argument)
    m = _arg(12).reshape(3, 4)
    got = p(m)
    assert np.array_equal(got, of_argument(m)) and np.shares_memory(got, m)
    f = np.asfortranarray(m)
    got = p(f)
    assert np.array_equal(got, of_argument(f)) and not np.shares_memory(got, f)


def test_written_argument():
    p = ph.pipeline(of_written_argument)
    a, b = _arg(6).reshape(2, 3), _arg(6).reshape(2, 3)
    got, exp = p(a), of_written_argument(b)
    assert same(got, exp) and np.array_equal(a, b) and np.shares_memory(got, a)


def reshape_then_write(a):
    z = a * 2.0
    y = z.reshape(-1)
    z[0, 1] = 100.0
    return y


def ravel_then_write(a):
    z = a.T * 2.0
    y = z.ravel()
    z[0, 1] = 100.0
    return y, z


@pytest.mark.parametrize("fn", [reshape_then_write, ravel_then_write], ids=lambda f: f.__name__)
def test_a_local_in_another_memory_order_is_copied(fn):
    """Wrong before: NumPy's result of a Fortran-ordered (or transposed)
    operand is in that order, so its reshape/ravel is a copy that a later
    write does not reach; pyhalide took a view (C order assumed)."""
    p = ph.pipeline(fn)
    for m in (np.arange(6.0).reshape(2, 3), np.asfortranarray(np.arange(12.0).reshape(3, 4))):
        got, exp = p(m.copy(order="K")), fn(m.copy(order="K"))
        assert same(got, exp), f"{describe(got)} != {describe(exp)}"
