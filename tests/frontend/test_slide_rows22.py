"""The default schedule computes an array read at several rows of one
consumer row by row inside that consumer's row loop, in a window of rows
(frontend_ast/slide_rows.py): Harris's row sums allocate 4 rows each instead
of whole arrays, with results bit-identical to NumPy at every shape (empty,
one row, fewer rows than the stencil, odd sizes, a strided view)."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.bench.suite4_kernels import harris
from pyhalide.lowering.monotonic import offset_span


@pytest.fixture(scope="module")
def compiled():
    p = ph.pipeline(harris)
    p.compile(np.zeros((40, 33)))
    return p


def test_row_sums_are_stored_in_windows_of_four_rows(compiled):
    text = compiled.lower("final")
    for name in ("txx", "tyy", "txy"):
        assert f"allocate {name}[float64 * {name}.b0.extent * 4]" in text, name


@pytest.mark.parametrize("shape", [(40, 33), (0, 0), (1, 7), (3, 3), (5, 4), (6, 2),
                                   (7, 9), (64, 17)])
def test_bit_identical_to_numpy(compiled, shape):
    img = np.random.default_rng(sum(shape)).standard_normal(shape) * 1e3
    got, want = compiled(img), harris(img)
    assert got.shape == want.shape
    assert np.array_equal(got, want)


def test_strided_view(compiled):
    base = np.random.default_rng(3).random((50, 60))
    img = base[::2, 5:-3]
    assert np.array_equal(compiled(img), harris(img))


def test_offset_span_of_clamped_slice_starts():
    y, e = ir.Variable(ir.Int(32), "y"), ir.Variable(ir.Int(32), "E", "param")
    c = lambda k: ir.Const(ir.Int(32), k)      # noqa: E731
    off = lambda k: ir.Min(ir.Max(ir.Sub(e, c(1)), c(0)), c(k))    # in [0, k]  # noqa: E731
    hi = ir.Max(ir.Max(y, ir.Add(off(1), y)), ir.Add(off(2), y))
    lo = ir.Min(ir.Min(y, ir.Add(off(1), y)), ir.Add(off(2), y))
    assert offset_span(lo, hi, "y") == 3
    assert offset_span(lo, ir.Add(hi, e), "y") is None         # unbounded
    assert offset_span(lo, ir.Max(hi, e), "y") is None         # a max with a free name


def chain(a):
    t = np.sqrt(np.abs(a[:, 1:] - a[:, :-1])) + a[:, 1:] * 0.1
    u = np.sqrt(t[1:] * t[:-1] + 1.0) * np.sqrt(t[:-1] * 0.01 + 3.0)
    return u[2:] - u[:-2] * u[1:-1]


def test_a_chain_of_row_windows():
    # t is computed per row of u, u per row of the result (two sliding levels)
    p = ph.pipeline(chain)
    rng = np.random.default_rng(2)
    for shape in [(30, 11), (5, 2), (3, 7), (0, 3), (6, 1)]:
        a = rng.standard_normal(shape)
        got, want = p(a), chain(a)
        assert got.shape == want.shape and np.array_equal(got, want), shape
    assert "* 4]" in p.lower("final")
