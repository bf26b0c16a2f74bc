"""Complex element updates in a loop that read the element they write
(`c[i] = c[i] * b[i]`, issue 17): the two parts are written by two
definitions, so the second part's value reads the first part as it was
before the loop nest (each element is written by its own iteration, after
its reads), as Python reads it. Compared with plain Python on copies
(results and arguments; + - exact, * / within NumPy's own rounding)."""
import numpy as np
import pytest

import pyhalide as ph


@ph.pipeline
def scale(c, b):
    for i in range(c.shape[0]):
        c[i] = c[i] * b[i]
    return c


@ph.pipeline
def scale_where(c, b):
    for i in range(c.shape[0]):
        if b[i].real > 0:
            c[i] = c[i] * b[i]
    return c


@ph.pipeline
def scale_sum(c, b):
    s = 0j
    for i in range(c.shape[0]):
        c[i] = c[i] * b[i]
        s += c[i]
    return s


@ph.pipeline
def divide_rows(c, b):
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            c[i, j] = c[i, j] / b[j] - c[i, j].imag
    return c


@ph.pipeline
def two_updates(c, b):
    d = c.copy()
    for i in range(d.shape[0]):
        t = d[i]
        d[i] = d[i] * b[i]
        d[i] = d[i] + t.conjugate()
    return d


@ph.pipeline
def augmented(c, b):
    for i in range(c.shape[0]):
        c[i] *= b[i]
    return c


@ph.pipeline
def reads_other_element(c, b):
    out = np.zeros_like(c)
    for i in range(c.shape[0]):
        c[i] = c[i] * b[i]
        out[i] = c[i] + c[0]
    return out


def _close(x, y):
    return np.allclose(x, y, rtol=4e-16, atol=0.0)


A = np.linspace(-1.5, 2.0, 9)


@pytest.mark.parametrize("fn", [scale, scale_where, scale_sum, augmented, two_updates])
def test_complex_update_in_loop(fn):
    c = A + 1j * A[::-1] ** 2
    b = 2.0 * A - 0.5j
    c1, c2 = c.copy(), c.copy()
    want = fn.py_func(c1, b)
    got = fn(c2, b)
    assert _close(got, want) and _close(c2, c1)
    if fn is scale:
        assert got is c2


def test_complex_update_2d():
    c = np.outer(A, A[:5]) + 1j * np.arange(45.0).reshape(9, 5)
    b = np.linspace(1.0, 2.0, 5) - 0.25j
    c1, c2 = c.copy(), c.copy()
    assert _close(divide_rows(c2, b), divide_rows.py_func(c1, b)) and _close(c1, c2)


def test_complex_read_of_another_element_refused():
    c = A + 1j
    with pytest.raises(ph.CompileError, match="c.real' is read here but written"):
        reads_other_element(c.copy(), c)
