"""Loops that carry arrays (session 29, h3), compared with plain Python,
including the inputs where Python raises:

- a checked scalar operand of array code (`a * b[int(x[i])]`) raises
  Python's IndexError where `a` is empty (it returned [] before): in the
  recurrence (a hidden per-iteration Func), in phase mode (a phase of its
  own) and where the operand reads the carried arrays (phase mode);
  frontend_ast/carried_operands.py;
- a float sum over one axis of a 2-D operand in phase mode, the other axis
  inner in memory (`x + y.sum(axis=0)`), equals NumPy bit for bit (row by
  row; a pairwise sum where the kept axis has one element);
  frontend_ast/carried_row_sums.py;
- a carried array whose size after the body may differ from its start
  size (two arguments' sizes) is checked only where the loop runs
  (frontend_ast/carried_phases.py: _copy_back)."""
import numpy as np
import pytest

from pyhalide import pipeline
from pyhalide.errors import CompileError
from tests.frontend.test_false_errors23 import _same


def recurrence(x, a, b):
    y = np.zeros(a.shape[0])
    for i in range(len(x)):
        y = y + a * b[int(x[i])]
    return y


def where_clip_descending(x, a, b, k):
    y = np.zeros(a.shape[0])
    for i in range(len(x) - 1, -1, -2):
        y = y + np.clip(a, b[k + i], 9.0) + np.where(a > 0, b[k - i], 0.0)
    return y


def augmented_under_if(x, a, b, k):
    y = np.zeros(a.shape[0])
    if x[0] > 5.0:
        for i in range(len(x)):
            y += a * (b[k + i] if x[i] > 0 else 1.0)
    return y


def phases(x, a, b):
    y = np.ones(a.shape[0])
    z = np.zeros(3)
    for i in range(len(x)):
        z[0] = z[0] + 1.0
        y = y + a * b[int(z[0])] + z.sum()
    return y, z


def reads_carried(x, a, b):
    z = np.zeros(2)
    y = np.zeros(a.shape[0])
    for i in range(len(x)):
        y = y + a * b[int(z[0])]
        z = z + 1.0
    return y, z


def axis_sums(x, y, n):
    for i in range(n):
        x = x * 0.5 + y.sum(axis=0) - y.T.sum(axis=1) * 0.25
        x = x - x.max()
    return x


_E, _B = np.ones(0), np.ones(2)


def test_checked_operand_in_the_recurrence():
    f = pipeline(recurrence)
    for x in (np.array([5.0, 0.0]), np.array([0.0, 1.0]), np.zeros(0)):
        for a in (_E, np.ones(3)):
            _same(f, recurrence, x, a, _B)


def test_checked_operands_of_clip_and_where_descending():
    f = pipeline(where_clip_descending)
    for n in (1, 2, 3):
        for k in (0, 1, 2):
            for a in (_E, np.array([1.0, -1.0])):
                _same(f, where_clip_descending, np.zeros(n), a, _B, k)


def test_lazy_operand_of_an_augmented_assignment_under_if():
    f = pipeline(augmented_under_if)
    for x in (np.full(3, 9.0), np.array([9.0, -1.0, 0.0]), np.array([1.0, 1.0])):
        for k in (-1, 0, 1, 5):
            _same(f, augmented_under_if, x, _E, _B, k)
    _same(f, augmented_under_if, np.full(2, 9.0), np.ones(3), _B, 0)


def test_checked_operand_in_phase_mode():
    f = pipeline(phases)
    for n in (0, 1, 2):
        for a in (_E, np.ones(2)):
            _same_tuple(f, phases, np.zeros(n), a, _B)


def test_checked_operand_reading_the_carried_arrays():
    f = pipeline(reads_carried)
    for n in (0, 1, 2, 3):
        for a in (_E, np.ones(2)):
            _same_tuple(f, reads_carried, np.zeros(n), a, _B)


def test_axis_sums_in_phase_mode_equal_numpy():
    """(other shapes, float32, views: test_axis_sums_in_phase_mode_sweep)"""
    f = pipeline(axis_sums)
    rng = np.random.default_rng(29)
    for R, C in ((300, 17),):
        y = rng.standard_normal((R, C)) * 10 ** rng.uniform(-6, 6, (R, C))
        _same(f, axis_sums, rng.standard_normal(C), y, 2)


@pytest.mark.slow
def test_axis_sums_in_phase_mode_sweep():
    f = pipeline(axis_sums)
    rng = np.random.default_rng(29)
    for R, C in ((300, 17), (130, 1), (7, 1), (1, 5), (0, 3), (4, 0), (2, 2), (1, 1)):
        for dt in (np.float64, np.float32):
            y = (rng.standard_normal((R, C)) * 10 ** rng.uniform(-6, 6, (R, C))).astype(dt)
            if y.size:
                y.flat[0] = -0.0
            x = rng.standard_normal(C).astype(dt)
            _same(f, axis_sums, x, y, 2)
    # a strided view along either axis: still row by row
    y = rng.standard_normal((60, 12))
    _same(f, axis_sums, np.ones(6), y[::-2, ::2], 3)
    # the reduced axis inner in memory (NumPy: pairwise per column): refused
    with pytest.raises(CompileError, match="float sum"):
        f(np.ones(3), np.asfortranarray(rng.standard_normal((40, 3))), 2)


def _same_tuple(kernel, fn, *args):
    from tests.frontend.test_false_errors23 import _outcome
    want = _outcome(fn, *args)
    got = _outcome(kernel, *args)
    if isinstance(want, type):
        assert got is want
        return
    assert not isinstance(got, type), got
    assert len(got) == len(want)
    for p, q in zip(got, want):
        np.testing.assert_array_equal(p, q)


def ragged(x, a, c):
    z = np.zeros(2)
    y = np.zeros(a.shape[0])
    for i in range(len(x)):
        y = y + a * c
        z = z + 1.0
    return y, z


def test_recurrence_with_an_empty_member_beside_a_larger_one():
    """An empty carried member reads nothing (CarriedLoop.step_value: it
    read its operand's element 0, IndexError where Python returns)."""
    f = pipeline(ragged)
    for n in (0, 2):
        for a in (_E, np.arange(3.0)):
            _same_tuple(f, ragged, np.zeros(n), a, 2.0)


def carried_size_of_a_call(x, y):
    s = np.zeros(y.shape[1])
    for i in range(x.shape[0]):
        s = x[i] + y.sum(axis=0) + s
    return s


def test_carried_size_check_only_where_the_loop_runs():
    """The call-time check that a carried array keeps its size is made only
    where the loop has an iteration (add_loop_gated): with none, Python
    returns the start array (a NotImplementedError before)."""
    f = pipeline(carried_size_of_a_call)
    y = np.arange(20.0).reshape(5, 4)
    for shape in ((0, 3), (2, 4), (2, 3), (1, 1)):
        x = np.arange(np.prod(shape), dtype=float).reshape(shape) * 0.7
        _same(f, carried_size_of_a_call, x, y)
