"""Phase mode (carried_phases.py, issue 17): float sums of more than one
pairwise block in NumPy's order (carried_sums.phase_sum: the split tree of
NumPy's recursive halves laid on 2**depth slots), bit for bit as Python."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError
from tests.frontend.test_carried_loops24 import lms, lms_rows


def lms_complex(x, d, w, mu: float, e):
    k = w.shape[0]
    for i in range(e.shape[0]):
        X = x[i:i + k]
        e[i] = d[i] - np.sum(w * np.conj(X))
        w += mu * np.conj(e[i]) * X
    return e, w


def _run(fn, *args):
    args = [a.copy(order="K") if isinstance(a, np.ndarray) else a for a in args]
    return fn(*args)


def _same(fn, compiled, *args):
    for g, w in zip(_run(compiled, *args), _run(fn, *args)):
        np.testing.assert_array_equal(g, w)


@pytest.fixture(scope="module")
def lms_c():
    return ph.pipeline(lms)


def test_lms_split_trees(lms_c):
    """One kernel, runs whose split trees differ: 129 and 130 (two leaves,
    the rest in the right one), 255 (the right half splits again: depth 2),
    256 (depth 1), 1000 and 2049 (8 and 16 leaves, a rest of 1); and the
    one-block sizes around them (7: no chunk, 128: one full block); then
    255 and 7 again (the sums' plans are kept for the last size only:
    carried_sums._LastPlan)."""
    for k in (7, 128, 129, 130, 255, 256, 1000, 2049, 255, 7):
        rng = np.random.default_rng(k)
        n = 5
        x, d = rng.standard_normal(n + k), rng.standard_normal(n)
        _same(lms, lms_c, x, d, rng.standard_normal(k) * 0.1, 0.01, np.zeros(n))


def test_lms_signed_zeros(lms_c):
    """A window of zeros of both signs (sums of -0.0 and +0.0 across
    leaves and levels): the sum's zero is Python's (e = -0.0 - sum shows
    its sign)."""
    k, n = 300, 4
    x = np.where(np.arange(n + k) % 3 == 0, -0.0, 0.0)
    _same(lms, lms_c, x, np.full(n, -0.0), np.full(k, -0.0), 0.5, np.zeros(n))
    e, _ = _run(lms_c, x, np.full(n, -0.0), np.full(k, -0.0), 0.5, np.zeros(n))
    assert np.signbit(e).all()          # -0.0 - (+0.0): the sum is +0.0 as NumPy's


def test_lms_rows_two_blocks():
    """A Fortran-ordered (3, k) window of 3 * 70 elements, summed in its
    memory order."""
    rng = np.random.default_rng(7)
    n, k = 5, 70
    x = np.asfortranarray(rng.standard_normal((3, n + k)))
    w = np.asfortranarray(rng.standard_normal((3, k)) * 0.1)
    _same(lms_rows, ph.pipeline(lms_rows), x, rng.standard_normal(n), w, 0.01, np.zeros(n))


@pytest.mark.slow       # ~12 s of compile: the slow run (CI) checks it
def test_lms_complex_past_a_block():
    """A complex sum of 70 elements (a part's block is 64: 4 accumulators
    per part, NumPy's complex pairwise_sum)."""
    rng = np.random.default_rng(3)
    n, k = 5, 70
    x = rng.standard_normal(n + k) + 1j * rng.standard_normal(n + k)
    w = (rng.standard_normal(k) + 1j * rng.standard_normal(k)) * 0.1
    d = rng.standard_normal(n) + 1j * rng.standard_normal(n)
    _same(lms_complex, ph.pipeline(lms_complex), x, d, w, 0.01,
          np.zeros(n, dtype=np.complex128))


def lms_cast(x, d, w, mu: float, e):
    k = w.shape[0]
    for i in range(e.shape[0]):
        X = x[i:i + k]
        e[i] = d[i] - np.sum(w * X, dtype=np.float64)
        w += np.float32(mu) * X
    return e, w


def test_cast_sum_in_one_buffer_piece():
    """A float32 window summed in float64: NumPy casts it in buffer pieces
    of 8192 elements, each a pairwise sum, added in turn. Up to one piece:
    bit for bit as Python; past it NotImplementedError at call time (a
    whole-run pairwise sum would differ in the last bits), never a value
    in another order."""
    c = ph.pipeline(lms_cast)
    for k in (300, 8193):
        rng = np.random.default_rng(k)
        n = 3
        x = (rng.standard_normal(n + k) * 10.0 ** rng.integers(-8, 8, n + k)).astype(np.float32)
        args = (x, rng.standard_normal(n), (rng.standard_normal(k) * 0.1).astype(np.float32),
                0.01, np.zeros(n))
        if k > 8192:
            with pytest.raises(NotImplementedError, match="pieces of 8192"):
                _run(c, *args)
        else:
            _same(lms_cast, c, *args)


def add_sum(x, y, n):
    for k in range(n):
        x = x + y.sum()
    return x


def add_mean(x, y, n):
    for k in range(n):
        x = x + y.mean()
    return x


def add_axis_sum(x, y, n):
    for k in range(n):
        x = x + y.sum(axis=0)
    return x


def test_sum_reads_only_the_operand():
    """The sum's phases read the operand only inside it (carried_sums.
    phase_sum's x_at: a lazy branch bounds inference narrows): a sum of
    fewer than 8 elements (a leaf's lanes past its length) or of a rest
    past the last whole chunk raised IndexError ("y is read over [0, 7]")
    for every size; bit for bit as Python, x of another length than y."""
    c = ph.pipeline(add_sum)
    for sx, sy in ((3, 4), (4, 4), (5, 2), (3, 0), (3, 1), (3, 3), (3, 7), (3, 8), (3, 9),
                   (3, 129), (2, 300)):
        rng = np.random.default_rng(sy)
        y = rng.standard_normal(sy) * 10.0 ** rng.integers(-8, 8, sy)
        _same(lambda *a: (add_sum(*a),), lambda *a: (c(*a),), np.arange(float(sx)), y, 2)
    # 2-D, contiguous: one run of memory
    y = np.random.default_rng(0).standard_normal((3, 5))
    _same(lambda *a: (add_sum(*a),), lambda *a: (c(*a),), np.arange(4.0), y, 3)


def test_mean_and_axis_sum_in_phase_mode():
    c = ph.pipeline(add_mean)
    for sy in (1, 3, 4, 7, 8, 9, 129, 300):
        y = np.random.default_rng(sy).standard_normal(sy)
        _same(lambda *a: (add_mean(*a),), lambda *a: (c(*a),), np.arange(3.0), y, 2)
    # a sum over axis 0 of a C array: row by row as NumPy (session 29,
    # carried_row_sums.py); of an F array (NumPy: pairwise per column): a
    # located error (not a wrong value)
    f = ph.pipeline(add_axis_sum)
    y = np.random.default_rng(5).standard_normal((40, 5)) * 1e3
    _same(lambda *a: (add_axis_sum(*a),), lambda *a: (f(*a),), np.zeros(5), y, 2)
    with pytest.raises(FrontendError, match="over all axes"):
        f(np.zeros(5), np.asfortranarray(y), 2)
