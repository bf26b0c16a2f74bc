"""The default 2-D float product reads b as packed panels of one register
tile's columns (frontend_ast/array_dot._panels): dense loads of the
panels, the serial sum over k bit for bit (ragged sizes, an expression
operand), NumPy's result within the documented bound."""
import re

import numpy as np
import pytest

import pyhalide as ph


def _serial(a, b):
    out = np.zeros((a.shape[0], b.shape[1]), np.result_type(a, b))
    for t in range(a.shape[1]):
        out = out + a[:, t:t + 1] * b[t]
    return out


def _bits(x):
    return np.ascontiguousarray(x).tobytes()


@ph.pipeline
def _mm(a, b):
    c = a @ b
    return c


@ph.pipeline
def _dot_scaled(a, b):
    return np.dot(a, b * 2.0)


def test_panels_dense_and_exact():
    """The panels are computed in the product's k blocks and read with
    dense ramps; ragged shapes (no tile, panel or block divides them) give
    the serial sum's bits, within 2·n·eps·(|a| @ |b|) of NumPy's (strided
    views: tests/lowering/test_trim_loop_guard28.py)."""
    rng = np.random.default_rng(29)
    for m, n, k in [(19, 141, 263), (6, 8, 8), (3, 1, 1)]:
        a, b = rng.standard_normal((m, n)), rng.standard_normal((n, k))
        got = _mm(a, b)
        assert _bits(got) == _bits(_serial(a, b)), (m, n, k)
        bound = 2 * n * np.finfo(np.float64).eps * (np.abs(a) @ np.abs(b))
        assert np.all(np.abs(got - a @ b) <= bound), (m, n, k)
    text = _mm.lower("final")
    assert "produce matmul_panels" in text and re.search(r"matmul_panels\S*\[ramp\(", text)


def test_panels_of_an_expression():
    """np.dot(a, b * 2.0): the panels hold the scaled elements."""
    rng = np.random.default_rng(30)
    a, b = rng.standard_normal((11, 70)), rng.standard_normal((70, 21))
    assert _bits(_dot_scaled(a, b)) == _bits(_serial(a, b * 2.0))


@ph.pipeline
def _mm_add(a, b, c):
    return a @ b + c


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["C", "views", "F"])
@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (6, 128, 8), (7, 129, 257), (13, 300, 270),
                                     (64, 256, 512), (65, 257, 513)])
def test_panels_sweep(m, n, k, layout, dtype):
    """Shapes at and around the tile, panel and block sizes, contiguous,
    strided and Fortran-ordered operands, float64 and float32, `a @ b`
    and `a @ b + c`: the serial sum's bits."""
    rng = np.random.default_rng(m * 7 + n * 5 + k)
    a = rng.standard_normal((2 * m, 2 * n)).astype(dtype)
    b = rng.standard_normal((2 * n, 2 * k)).astype(dtype)
    a, b = (a[::2, 1::2], b[1::2, ::2]) if layout == "views" else (a[:m, :n], b[:n, :k])
    if layout == "F":
        a, b = np.asfortranarray(a), np.asfortranarray(b)
    else:
        a, b = (a, b) if layout == "views" else (a.copy(), b.copy())
    assert _bits(_mm(a, b)) == _bits(_serial(a, b))
    c = rng.standard_normal((m, k)).astype(dtype)
    assert _bits(_mm_add(a, b, c)) == _bits(_serial(a, b) + c)
