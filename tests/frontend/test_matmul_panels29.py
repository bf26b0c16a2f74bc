"""The default 2-D float product reads b as packed panels of one register
tile's columns (frontend_ast/array_dot._panels): dense loads of the
panels, the serial sum over k bit for bit (ragged sizes, an expression
operand), NumPy's result within the documented bound."""
import re

import numpy as np

import pyhalide as ph


def _serial(a, b):
    out = np.zeros((a.shape[0], b.shape[1]))
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
