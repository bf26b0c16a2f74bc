"""Float sums over the results of NumPy functions add in the memory order
NumPy lays those results out in (session 19: they added in C order, last
bits from NumPy, for Fortran-ordered and transposed inputs):
  - np.diff (a ufunc of two views), np.roll (np.empty_like), np.sort (a copy
    with order='K'), np.polyval (zeros_like(x), then y * x + p), np.average
    with weights (np.multiply(a, w)), np.nanvar / np.nanstd (a copy of a):
    their input's order;
  - np.concatenate and np.stack: their inputs' common order (the strides
    sorted as the iterator sorts them);
  - views of a new array (np.flip, expand_dims, squeeze, basic indexing of
    `a * 2`): that array's strides;
  - views' axes merge into one pairwise run where NumPy's reduction iterator
    coalesces them (`a[1:].sum()` of a C-ordered a, `a[::-1, ::-1].sum()`).
Every result is compared bit for bit with NumPy (frontend_check.check)."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check


@ph.pipeline
def shape_functions(a):
    return (np.diff(a, axis=1).sum(axis=1), np.diff(a, axis=0).sum(),
            np.concatenate([a, a], axis=1).sum(axis=1), np.concatenate([a, a * 2]).sum(),
            np.stack([a, a]).sum(axis=2), np.stack([a, a], axis=1).sum(axis=(1, 2)),
            np.roll(a, 1, axis=1).sum(axis=1), np.roll(a, -2, axis=0).sum())


@ph.pipeline
def views_of_new_arrays(a):
    return (np.flip(a * 2, axis=1).sum(axis=1), np.flip(a * 2).sum(),
            np.expand_dims(a * 2, 0).sum(axis=2), np.expand_dims(a * 2, 1).sum(),
            np.squeeze((a * 2)[None]).sum(axis=1), (a * 2)[:, ::-1].sum(axis=1),
            (a * 2)[1:].sum(), (a * 2).T[:, 1:].sum(axis=0))


@ph.pipeline
def views_of_arguments(a):
    return a[1:].sum(), a[:, 1:].sum(), a[::-1, ::-1].sum(), a[::-1].sum(), \
        a[2:5, ::-1].sum(axis=0)


@ph.pipeline
def statistics(a, w, p):
    return (np.sort(a, axis=0).sum(axis=1), np.sort(a, axis=1).sum(),
            np.polyval(p, a).sum(axis=1), np.average(a, axis=1, weights=w),
            np.nanvar(a, axis=1), np.nanstd(a), np.nanvar(a, axis=0))


def _data(shape, dtype=np.float64, seed=19):
    rng = np.random.default_rng(seed)
    # magnitudes over six decades: another order changes the last bits
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 3, shape)).astype(dtype)


def _layouts(f):
    yield "F", np.asfortranarray(f)
    yield "T", np.ascontiguousarray(f.T).T
    yield "C", np.ascontiguousarray(f)


def _args(a):
    w = _data(a.shape[1], seed=3)
    return a, np.abs(w) + 0.5, np.array([0.5, -2.0, 3.0], a.dtype)


@pytest.mark.parametrize("kernel", [shape_functions, views_of_new_arrays, views_of_arguments])
def test_shape_functions_sum_in_numpys_order(kernel):
    check(kernel, np.asfortranarray(_data((12, 37))))      # (the other layouts: slow)


def test_statistics_sum_in_numpys_order():
    f = _data((12, 37))
    f[3, 5] = f[7, 20] = np.nan
    a = np.asfortranarray(f)
    check(statistics, *_args(a))


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(12, 37), (40, 301), (3, 200)])
def test_all_layouts(dtype, shape):
    f = _data(shape, dtype)
    for _, a in _layouts(f):
        check(shape_functions, a)
        check(views_of_new_arrays, a)
        check(views_of_arguments, a)
        g = a.copy(order="K")
        g[1, 2] = np.nan
        check(statistics, *_args(g))


def test_concatenated_order_is_numpys():
    """concatenated_order gives the order of NumPy's np.concatenate / np.stack
    result (its strides sorted), also where the iterator's sort differs (the
    size-1 axis np.stack adds)."""
    from frontend_ast.ufunc_order import concatenated_order
    from frontend_ast.values import const_val

    class Operand:      # what the order reads of an ArrayExpr: a layout and a shape
        def __init__(self, x):
            self.shape = [const_val(n) for n in x.shape]
            self.ndim, self.view = x.ndim, None
            self.order = tuple(int(k) for k in np.argsort([-abs(s) for s in x.strides],
                                                          kind="stable"))

    def numpys(r):
        return tuple(int(k) for k in np.argsort([-abs(s) for s in r.strides], kind="stable"))
    c = np.zeros((3, 4, 5))
    f = np.asfortranarray(c)
    t = np.zeros((5, 3, 4)).transpose(1, 2, 0)
    for x, y in [(c, c), (f, f), (f, c), (t, t), (t, f)]:
        for ax in range(3):
            got = concatenated_order([Operand(x), Operand(y)], 3) or (0, 1, 2)
            assert got == numpys(np.concatenate([x, y], axis=ax)), (ax, got)
        for ax in range(4):
            ex = [np.expand_dims(v, ax) for v in (x, y)]
            got = concatenated_order([Operand(v) for v in ex], 4) or (0, 1, 2, 3)
            assert got == numpys(np.stack([x, y], axis=ax)), (ax, got)


@ph.pipeline
def three_d(a):
    return (np.concatenate([a, a], axis=2).sum(axis=(0, 2)),
            np.stack([a, a], axis=3).sum(axis=(1, 3)), np.diff(a, axis=0).sum(),
            np.sort(a, axis=1).sum(axis=2), np.transpose(a * 2, (2, 0, 1)).sum(axis=1),
            (a * 2)[:, 1:, ::-1].sum(), np.roll(a, 2, axis=2).sum(axis=(0, 1)))


@pytest.mark.slow
def test_three_d_layouts():
    f = _data((4, 9, 37))
    for a in (np.asfortranarray(f), np.ascontiguousarray(f.transpose(1, 2, 0)).transpose(2, 0, 1),
              f):
        check(three_d, a)
