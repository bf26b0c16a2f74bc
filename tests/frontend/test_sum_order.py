"""NumPy's float summation order (frontend_ast/sum_order.float_sum): the
sums equal np.sum bit for bit for float32 and float64, 1-D to 3-D, every
axis and axis tuple, C, F, permuted, sliced and reversed inputs, and with a
cast (dtype=) the iterator's 8192-element chunks. float_sum is driven through
a test-only array method (h3's np.sum is wired to it after the merge)."""
import ast
import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast import array_calls
from pyhalide.frontend_ast.sum_order import float_sum
from pyhalide.frontend_ast.types import np_ty


@array_calls.method("_np_sum_order")
def _np_sum_order(b, obj, name, node):
    """a._np_sum_order(axis[, dtype]) -> float_sum of a (axis a literal)."""
    ac = b.array_code
    operand = ac.as_array(obj, node)
    axis = ast.literal_eval(node.args[0])
    nd = operand.ndim
    if axis is None:
        axes = tuple(range(nd))
    elif isinstance(axis, int):
        axes = (axis % nd,)
    else:
        axes = tuple(sorted(x % nd for x in axis))
    dtype = np.dtype(node.args[1].value) if len(node.args) > 1 else operand.ty.dtype
    out = float_sum(ac, operand, axes, np_ty(dtype), node)
    return out.elem([]) if out.ndim == 0 else out


def data(shape, dt, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    return (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)).astype(dt).reshape(shape)


def assert_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(np.ascontiguousarray(got).view(np.uint8),
                          np.ascontiguousarray(want).view(np.uint8)), (got, want)


@ph.pipeline
def sum_all(a):
    return a._np_sum_order(None)


@ph.pipeline
def sum_all64(a):
    return a._np_sum_order(None, "float64")


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_1d_small_sizes(dt):
    for n in list(range(0, 300)) + [1000]:
        a = data((n,), dt, n)
        assert_bits(sum_all(a), np.sum(a))



@ph.pipeline
def sum_all32(a):
    return a._np_sum_order(None, "float32")


@ph.pipeline
def sum0(a):
    return a._np_sum_order(0)


@ph.pipeline
def sum1(a):
    return a._np_sum_order(1)


@ph.pipeline
def sum2(a):
    return a._np_sum_order(2)


@ph.pipeline
def sum01(a):
    return a._np_sum_order((0, 1))


@ph.pipeline
def sum02(a):
    return a._np_sum_order((0, 2))


@ph.pipeline
def sum12(a):
    return a._np_sum_order((1, 2))


@ph.pipeline
def sum1_64(a):
    return a._np_sum_order(1, "float64")


SUMS = {None: sum_all, 0: sum0, 1: sum1, 2: sum2, (0, 1): sum01, (0, 2): sum02, (1, 2): sum12}


def layouts(a):
    """a in C order, F order, a slice of a larger array (every axis strided)
    and reversed along its last axis."""
    big = data(tuple(2 * s + 1 for s in a.shape), a.dtype, 7)
    return {"C": a, "F": np.asfortranarray(a),
            "sliced": big[tuple(slice(1, 1 + 2 * s, 2) for s in a.shape)],
            "reversed": a[..., ::-1]}


def check_sum(a, axis):
    assert_bits(SUMS[axis](a), np.sum(a, axis=axis))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_1d_large_and_strided(dt):
    for n in (100001, 2**17 + 3):
        a = data((n,), dt, n)
        for v in (a, a[::3], a[::-1]):
            assert_bits(sum_all(v), np.sum(v))


# each layout compiles the three sums again (~1 s CPU a layout): the default
# run takes float32 F and reversed arrays (test_buffered_strided_inputs reads
# strided views); C, sliced and float64 are in the slow run
@pytest.mark.parametrize("dt, kinds", [(np.float32, ("F", "reversed"))] + [
    pytest.param(dt, kinds, marks=pytest.mark.slow)
    for dt, kinds in [(np.float32, ("C", "sliced")), (np.float64, ("C", "F", "sliced", "reversed"))]])
def test_2d_every_axis_and_layout(dt, kinds):
    for shape in [(7, 130), (130, 7)]:
        for name, v in layouts(data(shape, dt, sum(shape))).items():
            if name not in kinds:
                continue
            for axis in (None, 0, 1):
                check_sum(v, axis)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_2d_row_lengths(dt):
    """The pairwise sum of each row (axis 1, C order) for row lengths across
    the block size and the split rule, and the sequential sum down columns."""
    for n in list(range(0, 140)) + [255, 256, 257, 1000, 1031]:
        a = data((3, n), dt, n)
        check_sum(a, 1)
        check_sum(np.asfortranarray(a), 1)
        check_sum(np.ascontiguousarray(a.T), 0)
        check_sum(a, None)


@pytest.mark.slow
def test_3d_axis_sets():
    """float64 (float32 takes the same Funcs): every axis set in C order,
    the merged runs of F order, slices for single axes and a pair."""
    for shape in [(5, 9, 140), (33, 17, 9)]:
        a = data(shape, np.float64, sum(shape))
        for axis in SUMS:
            check_sum(a, axis)
        for axis in (None, 0, (1, 2)):
            check_sum(np.asfortranarray(a), axis)
        for axis in (None, 0, 2, (0, 2), (1, 2)):
            check_sum(layouts(a)["sliced"], axis)
        check_sum(layouts(a)["reversed"], (1, 2))


@pytest.mark.slow
def test_3d_every_axis_set_and_layout():
    """The layouts that merge axes (C, F, permuted) for every axis set,
    slices and reversed for the sets whose innermost reduced run is one axis."""
    for shape in [(5, 9, 140), (33, 17, 9)]:
        a = data(shape, np.float64, sum(shape))
        lay = {"C": a, "F": np.asfortranarray(a),
               "permuted": a.transpose(1, 0, 2).copy().transpose(1, 0, 2)}
        for name, v in lay.items():
            for axis in SUMS:
                check_sum(v, axis)
        for name, v in layouts(a).items():
            for axis in SUMS:
                check_sum(v, axis)


@pytest.mark.parametrize("fortran", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_cast_sums_in_chunks_of_the_buffer(fortran):
    """With dtype=float64 on float32 the iterator casts through its buffer:
    runs of at most 8192 elements, each summed pairwise, added in turn. (F
    arrays compile the row sum again: the slow run's case.)"""
    for n in (8191, 8192, 8193, 100001, 2**17 + 3):
        a = data((n,), np.float32, n)
        assert_bits(sum_all64(a), np.sum(a, dtype=np.float64))
    for shape in [(3, 20000), (5, 9000), (40, 301)]:
        a = data(shape, np.float32, 1)
        assert_bits(sum1_64(a), np.sum(a, axis=1, dtype=np.float64))
        if fortran:
            f = np.asfortranarray(a)
            assert_bits(sum1_64(f), np.sum(f, axis=1, dtype=np.float64))
        assert_bits(sum_all64(a), np.sum(a, dtype=np.float64))


def test_other_casts():
    """dtype=float32 on float64 (rounded in the buffer, summed in float32) and
    integers summed as float64 (the sum inside np.mean of ints)."""
    for n in (100, 8193, 100001):
        a = data((n,), np.float64, n)
        assert_bits(sum_all32(a), np.sum(a, dtype=np.float32))
        rng = np.random.default_rng(n)
        b = rng.integers(-2**55, 2**55, n)          # int64: rounded as float64
        assert_bits(sum_all64(b), np.sum(b, dtype=np.float64))


@pytest.mark.parametrize("cast", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_buffered_strided_inputs(cast):
    """Reduced axes that do not merge in memory are copied through the
    iterator's buffer: pieces of up to 8192 elements, a whole number of
    rows (100x200: 8000; 300x301: 8127; rows over 8192: pieces of a row).
    (The float32 sums in float64 of reversed rows compile kernels of their
    own: the slow run's case.)"""
    for shape in [(100, 200), (300, 301), (20, 20000), (3, 5000)]:
        if not cast:
            big = data((shape[0] * 2 + 1, shape[1] * 2 + 1), np.float64, 3)
            for v in (big[1::2, 1::2][:shape[0], :shape[1]], big[:shape[0], :shape[1]]):
                check_sum(v, None)
                check_sum(v.T, None)
            continue
        a = data(shape, np.float32, 4)[:, ::-1]
        assert_bits(sum_all64(a), np.sum(a, dtype=np.float64))
        assert_bits(sum1_64(a), np.sum(a, axis=1, dtype=np.float64))


def test_signed_zeros_and_specials():
    """The result starts at +0.0 (a sum of -0.0 is +0.0, as NumPy's); inf
    and nan propagate."""
    for n in (1, 7, 8, 9, 200):
        z = np.full(n, -0.0)
        assert_bits(sum_all(z), np.sum(z))
        assert_bits(sum1(z.reshape(1, n)), np.sum(z.reshape(1, n), axis=1))
        assert_bits(sum0(z.reshape(n, 1)), np.sum(z.reshape(n, 1), axis=0))
    a = data((300,), np.float64, 3)
    a[17] = np.inf
    assert_bits(sum_all(a), np.sum(a))
    a[200] = -np.inf
    assert np.isnan(sum_all(a)) and np.isnan(np.sum(a))


@ph.pipeline
def rows_twice(a):
    return a._np_sum_order(1) + a._np_sum_order(1)


def test_reduction_is_an_update_over_an_rdom():
    """The 8 accumulators of each block are one update over an RDom of the
    block's chunks of 8 (what schedules act on; its loads dense in j; the
    rows past the last, which the default schedule's groups of rows hold,
    read the last row: no predicate, whose guard would copy the loops); the
    run sums are added by an update."""
    from pyhalide.frontend_ast.deftext import defs_text
    a = data((4, 300), np.float32)
    assert_bits(rows_twice(a), np.sum(a, axis=1) + np.sum(a, axis=1))
    text = defs_text(next(iter(rows_twice._specs._d.values())))
    text = re.sub(r"\$\d+", "", text)     # Func names made unique
    assert "sum_lanes(j, i0, s, c) = (sum_lanes(j, i0, s, c) + select((sum_chunk$x < " in text
    assert "* 8) + j), max(min(i0, (a.extent.1 - 1)), 0)), -0.0f))" in text
    assert "over sum_chunk$x in [0, 0 + __pyhalide_sum" in text
    assert "where" not in text.split("Func sum_tree")[0].split("Func sum_lanes")[1]
    assert "sum(i0) = (sum(i0) + sum_tree(0, sum_r$x, i0))" in text
