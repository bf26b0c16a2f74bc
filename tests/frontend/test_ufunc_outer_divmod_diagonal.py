"""ufunc.outer (`np.subtract.outer`), np.divmod and np.diagonal /
a.diagonal() in @pipeline code, each compared with plain Python."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import check

RNG = np.random.default_rng(2)


@ph.pipeline
def cauchy(x, y):
    return 1.0 / np.subtract.outer(x, y)


@ph.pipeline
def outers(a, b):
    return (np.add.outer(a, b), np.multiply.outer(a, b), np.maximum.outer(a, b),
            np.greater.outer(a, b), np.power.outer(a + 1, b))


@ph.pipeline
def divmods(a, b):
    return np.divmod(a, b)


@ph.pipeline
def diagonals(z):
    return (z.diagonal(), np.diagonal(z, 1), z.diagonal(-1), np.diagonal(z, 0, 1, 0),
            z.diagonal(axis1=-1, axis2=0, offset=2))


@ph.pipeline
def symmetric(z):
    return z + z.T - np.diag(z.diagonal())


@pytest.mark.parametrize("p,args", [
    (cauchy, (np.arange(8), np.arange(8) + 0.5)),
    (cauchy, (np.arange(3.0).reshape(3, 1), np.arange(4.0))),
    (outers, (np.arange(4), np.arange(3, dtype=np.uint8))),
    (divmods, (np.array([7, -7, 0, 13]), np.array([2, 2, 5, -4]))),
    (divmods, (np.array([7.5, -7.25, 0.0, -0.0, 13.0]), 2.5)),
    (divmods, (7, -2)),
    (divmods, (7.5, 2)),
    (diagonals, (RNG.random((5, 5)),)),
    (diagonals, (RNG.random((3, 4, 5)),)),
    (symmetric, (RNG.random((5, 5)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_equals_python(p, args):
    check(p, *args)


@ph.pipeline
def write_into_diagonal(z):
    d = z.diagonal()
    d[0] = 1.0
    return z


@ph.pipeline
def write_into_diag_of_2d(z):
    d = np.diag(z)
    d[1:] = 0.0
    return d


@ph.pipeline
def add_into_diagonal(z):
    d = np.diagonal(z, 1)
    d += 1
    return d


@ph.pipeline
def outer_with_keyword(a):
    return np.add.outer(a, a, dtype=np.float32)


@ph.pipeline
def write_into_imag_of_real(z):
    b = z.imag
    b[0] = 1.0
    return b


@ph.pipeline
def add_into_np_imag_of_real(z):
    b = np.imag(z)
    b += 1
    return b


@pytest.mark.parametrize("p", [write_into_diagonal, write_into_diag_of_2d, add_into_diagonal,
                               write_into_imag_of_real, add_into_np_imag_of_real],
                         ids=lambda p: p.__name__)
def test_writes_into_read_only_diagonals_are_refused(p):
    """NumPy raises ValueError (a diagonal is a read-only view, the imaginary
    part of a real array read-only zeros); compiled code wrote into a copy
    and returned."""
    with pytest.raises(ValueError, match="read-only"):
        p.py_func(np.ones((3, 3)))
    with pytest.raises(ph.CompileError, match="read-only") as e:
        p(np.ones((3, 3)))
    assert f"{__file__}:" in str(e.value)


@ph.pipeline
def copies_of_diagonals(z):
    d = z.diagonal().copy()
    d[0] = 1
    e = np.diag(z) + 0
    e[1] = 2
    f = np.diag(z)
    f = f * 2
    f[2] = 3
    g = z.imag.copy()
    g[0] = 4.0
    return d, e, f, np.diag(z)[::-1], g


def test_copies_of_diagonals_are_writable():
    check(copies_of_diagonals, np.arange(9.0).reshape(3, 3))


def test_outer_with_a_keyword_is_refused_with_the_line():
    with pytest.raises(ph.CompileError) as e:
        outer_with_keyword(np.ones(3))
    assert f"{__file__}:" in str(e.value)
