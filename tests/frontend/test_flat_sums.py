"""Float sums of contiguous arguments read by flat position (flat_reads.py,
ir/flat_index.py): whole-array and trailing-axes sums whose rows are one
dense block of memory, bit for bit with NumPy (its pairwise order over the
flattened block), for every last-axis length 1..17, 3-D, Fortran order,
non-contiguous views (which are not read flat), operands of several
arguments, casts (mean of ints: NumPy's buffered pieces); the flat path is
taken where it applies and not elsewhere. Then the same for whole-array
min/max/argmin/argmax (reduce_blocks). Slow-marked: float32, argument
views, casts (the default run keeps a view inside the function and the
layouts)."""
from __future__ import annotations

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.ir.flat_index import is_flat_index
from pyhalide.reference.funcs import _read_by_address
from tests.frontend.test_reduction_speed_paths import data, same_bits


def _reads_flat(p) -> bool:
    """Whether a Func of p reads an argument by flat position."""
    found = []

    class _Find(ir.Visitor):
        def visit_Call(self, c):
            if is_flat_index(c):
                found.append(c)
            self.visit_children(c)

    for name in p.funcs:
        for d in p.funcs[name].function().definitions():
            for e in list(d.values) + list(d.args):
                _Find().visit(e)
    return bool(found)


def watched(fn):
    """fn as a pipeline whose schedule hook records whether it reads flat."""
    seen = {}

    def sched(p):
        seen["flat"] = _reads_flat(p)
    return ph.pipeline(fn, schedule=sched), seen


def everything(a):
    return a.sum()


def trailing(a):
    return a.sum(axis=(1, 2))


def product_sum(a, b):
    return (a * b).sum()


def mean_of(a):
    return a.mean()


def both(a):
    return a.sum() + np.sum(a[1:]) + np.sum(a[:5])


def head_columns(a):
    return a[:, :7].sum()


@pytest.mark.parametrize("dt", [np.float64, pytest.param(np.float32, marks=pytest.mark.slow)])
def test_last_axis_1_to_17(dt):
    f, seen = watched(everything)
    for w in range(1, 18):
        for rows in (3, 40, 301):
            a = data((rows, w), dt, rows * w)
            assert same_bits(f(a), np.sum(a)), (rows, w)
            assert seen["flat"] == (w > 1), w       # one big axis: a plain row
            a = np.asfortranarray(a)
            assert same_bits(f(a), np.sum(a)), ("F", rows, w)


@pytest.mark.parametrize("fortran", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_3d_and_trailing_axes(fortran):
    """(F arrays compile `everything` again: the slow run's case)"""
    f, seen = watched(everything)
    g, seen_g = watched(trailing)
    for shape in [(2, 3, 5), (7, 9, 13), (4, 33, 17), (3, 1, 11), (50, 20, 101)]:
        a = data(shape, np.float64, sum(shape))
        assert same_bits(f(a), np.sum(a)), shape
        if fortran:
            assert same_bits(f(np.asfortranarray(a)), np.sum(np.asfortranarray(a))), shape
        seen_g.clear()
        assert same_bits(g(a), np.sum(a, axis=(1, 2))), shape
        # (compiled again for an axis of size 1 only)
        assert seen_g.get("flat", True) == (shape[1] != 1), shape
        assert seen["flat"], shape


@pytest.mark.slow
def test_views_are_not_read_flat():
    """Strided and partial views sum in NumPy's order without flat reads
    (their rows are not one block); a transpose is its array's order."""
    f, seen = watched(everything)
    a = data((9, 14), np.float64, 1)
    for v in (a[:, ::2], a[:, 1:], a[1:-1, 2:-3], a[::-1], a[:, :7]):
        seen.clear()
        assert same_bits(f(v), np.sum(v))
        assert not seen.get("flat"), v.strides
    assert same_bits(f(a.T), np.sum(a.T))       # a Fortran-ordered argument: flat
    b = data((6, 5, 7), np.float64, 2)
    for v in (b[:, 1:], b[..., :6], b.transpose(1, 0, 2)):
        assert same_bits(f(v), np.sum(v))


def test_several_arguments_and_layouts():
    p, seen = watched(product_sum)
    a, b = data((37, 11), np.float64, 3), data((37, 11), np.float64, 4)
    assert same_bits(p(a, b), np.sum(a * b)) and seen["flat"]
    # a C and a Fortran argument: NumPy's result is in one order, the other is not a block
    bf = np.asfortranarray(b)
    assert same_bits(p(a, bf), np.sum(a * bf))
    # broadcasting a row is not a block of the row's memory
    row = data((11,), np.float64, 5)
    assert same_bits(p(a, row), np.sum(a * row))


@pytest.mark.slow
def test_mean_of_ints():
    """A cast operand (NumPy's buffered pieces of 8192)."""
    m, seen = watched(mean_of)
    for shape in [(300, 37), (40, 13, 29)]:
        a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) * 7919 % 1000003
        assert same_bits(m(a), np.mean(a)) and seen["flat"], shape


def test_slices_inside_the_function():
    """Whole rows (a block: flat, from the view's first row), a view with
    an offset and one of part of each row (neither flat)."""
    f, seen = watched(both)
    a = data((30, 13), np.float64, 6)
    assert same_bits(f(a), np.sum(a) + np.sum(a[1:]) + np.sum(a[:5])) and seen["flat"]
    h, seen = watched(head_columns)
    assert same_bits(h(a), np.sum(a[:, :7])) and not seen["flat"]


def test_special_values():
    f, _ = watched(everything)
    rng = np.random.default_rng(8)
    vals = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1e300, 1e300])
    for w in (3, 9, 15):
        a = rng.choice(vals, size=(20, w))
        want = np.sum(a)
        got = f(a)
        assert same_bits(got, want) or (np.isnan(got) and np.isnan(want)), a
    assert same_bits(f(np.full((4, 3), -0.0)), np.sum(np.full((4, 3), -0.0)))


def test_reference_reads_by_address():
    """The reference evaluator's flat read: the element at the address, in
    C and Fortran order; outside the array is an IndexError."""
    a = np.arange(12.0).reshape(3, 4)
    assert _read_by_address("a", a, [np.array([5]), np.array([0])])[0] == 5.0
    f = np.asfortranarray(a)
    assert _read_by_address("a", f, [np.array([0]), np.array([4])])[0] == f.ravel("F")[4]
    with pytest.raises(IndexError):
        _read_by_address("a", a, [np.array([12]), np.array([0])])


# min / max / argmin / argmax of every axis (reduce_blocks): C-contiguous arguments in flat lanes
def whole_max(a):
    return a.max()


def whole_argmin(a):
    return np.argmin(a)


def minmax_of_expression(a, b):
    return np.min(a - b), np.argmax(a * b)


@pytest.mark.parametrize("fortran", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_extremes_read_flat_every_width(fortran):
    """Last axes 1..17 (the lanes once ran over the last axis only), ties,
    signed zeros and NaN (the first NaN, the later tie for max, the first
    position for argmin), C flat and Fortran not (its own kernel: the slow
    run's case)."""
    mx, seen_mx = watched(whole_max)
    am, seen_am = watched(whole_argmin)
    if fortran:
        a = data((9, 5, 3), np.float64, 12)
        f = np.asfortranarray(a)
        assert am(f) == np.argmin(f) and not seen_am["flat"]
        return
    rng = np.random.default_rng(11)
    vals = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0])
    for w in range(1, 18):
        for rows in (3, 37):
            a = rng.choice(vals, size=(rows, w))
            assert same_bits(mx(a), np.max(a)) and am(a) == np.argmin(a), (rows, w)
            a[rows // 2, w // 2] = np.nan
            a[rows - 1, w - 1] = np.nan
            assert np.isnan(mx(a)) and am(a) == np.argmin(a), (rows, w)
    assert seen_mx["flat"] and seen_am["flat"]
    a = data((9, 5, 3), np.float64, 12)
    assert same_bits(mx(a), np.max(a)) and am(a) == np.argmin(a)


def test_extremes_of_expressions_and_views():
    p, seen = watched(minmax_of_expression)
    a, b = data((23, 6), np.float32, 13), data((23, 6), np.float32, 14)
    got = p(a, b)
    assert same_bits(got[0], np.min(a - b)) and got[1] == np.argmax(a * b) and seen["flat"]
    m, seen = watched(whole_max)
    big = data((12, 10), np.float64, 15)
    for v in (big[:, :7], big[1:, ::3], big[::-1]):
        seen.clear()
        assert same_bits(m(v), np.max(v)) and not seen.get("flat")
