"""Returned new arrays have NumPy's memory layout (the strides NumPy gives, so
the same flags and memory bytes), and float sums of arrays whose NumPy order
is not C are NumPy's bits: element-wise results, reductions (keepdims or
not), copies with order='K'/'A'/'F', *_like arrays, scans, written local
arrays, transposes and slices of local arrays (views sharing the returned
array's memory), on C, Fortran, transposed, stepped and reversed arguments.
Plain Python is the oracle for every call, the general path and the
compiled entry alike."""
import numpy as np
import pytest

import pyhalide as ph


def _elementwise(a):
    return a * 2.0


def _unary(a):
    return np.sqrt(np.abs(a))


def _broadcast_row(a):
    return a - a[0]


def _two_layouts(a):
    return a + a.T.T


def _sum_keepdims0(a):
    return a.sum(axis=0, keepdims=True)


def _sum_keepdims_last(a):
    return a.sum(axis=-1, keepdims=True)


def _max_keepdims(a):
    return a.max(axis=0, keepdims=True) + 1.0


def _mean_axis1(a):
    return a.mean(axis=1)


def _argmax_keepdims(a):
    return np.argmax(a, axis=0, keepdims=True)


def _written_local(a):
    z = a + 1.0
    z[0, 0] = 5.0
    return z


def _local_transposed(a):
    z = a * 2.0
    return z.T


def _local_slice(a):
    z = a * 2.0
    return z[1:, ::2]


def _local_and_view(a):
    z = a * 3.0
    return z, z.T, z[::2]


def _same_twice(a):
    z = a + 1.0
    z[0, 0] = 2.0
    return z, z


def _np_copy(a):
    return np.copy(a)


def _copy_k(a):
    return a.copy(order="K")


def _copy_a(a):
    return a.copy(order="A")


def _copy_f(a):
    return a.copy(order="F")


def _array_cast(a):
    return np.array(a, dtype=np.float32)


def _zeros_like(a):
    z = np.zeros_like(a)
    z += a
    return z


def _cumsum0(a):
    return np.cumsum(a, axis=0)


def _transposed_arg_plus(a):
    return a.T + 1.0


def _stepped(a):
    return a[::2] * 3.0


LAYOUT_CASES = [_elementwise, _unary, _broadcast_row, _two_layouts, _sum_keepdims0,
                _sum_keepdims_last, _max_keepdims, _mean_axis1, _argmax_keepdims,
                _written_local, _local_transposed, _local_slice, _local_and_view, _same_twice,
                _np_copy, _copy_k, _copy_a, _copy_f, _array_cast, _zeros_like, _cumsum0,
                _transposed_arg_plus, _stepped]


def _arguments(shape=(4, 6)):
    n = int(np.prod(shape))
    base = np.arange(1.0, n + 1.0).reshape(shape) * 0.37
    big = np.arange(1.0, 4 * n + 1.0).reshape(shape[0] * 2, shape[1] * 2) * 0.37
    return {"C": base, "F": np.asfortranarray(base), "T": base.T.copy().T,
            "step": big[::2, ::2], "F_step": np.asfortranarray(big)[::2, 1::2],
            "rev": base[::-1], "F_rev": np.asfortranarray(base)[:, ::-1],
            "col": np.asfortranarray(base[:, :1]), "empty": np.asfortranarray(base[:0])}


def _leaves(r):
    return list(r) if isinstance(r, tuple) else [r]


def _same(e, g, a_py, a_ph):
    assert type(g) is type(e)
    if not isinstance(e, np.ndarray):
        assert e == g
        return
    assert g.dtype == e.dtype and g.shape == e.shape
    np.testing.assert_array_equal(g, e)
    assert g.strides == e.strides, (g.strides, e.strides)
    assert g.flags.c_contiguous == e.flags.c_contiguous
    assert g.flags.f_contiguous == e.flags.f_contiguous
    assert g.tobytes(order="A") == e.tobytes(order="A")
    assert np.shares_memory(g, a_ph) == np.shares_memory(e, a_py)


def check(fn, arg, p):
    for _ in range(3):          # the general path, then the compiled entry
        a_py, a_ph = arg.copy(order="K"), arg.copy(order="K")
        try:
            expected = _leaves(fn(a_py))
        except Exception as e:
            with pytest.raises(type(e)):
                p(a_ph)
            continue
        got = _leaves(p(a_ph))
        assert len(expected) == len(got)
        for e, g in zip(expected, got):
            _same(e, g, a_py, a_ph)
        for i in range(len(expected)):
            for j in range(i + 1, len(expected)):
                ei, ej, gi, gj = expected[i], expected[j], got[i], got[j]
                assert (ei is ej) == (gi is gj)
                if isinstance(ei, np.ndarray) and isinstance(ej, np.ndarray):
                    assert np.shares_memory(gi, gj) == np.shares_memory(ei, ej)
        np.testing.assert_array_equal(a_ph, a_py)


@pytest.mark.parametrize("fn", LAYOUT_CASES, ids=lambda f: f.__name__)
def test_returned_layout_is_numpys(fn):
    p = ph.pipeline(fn)
    check(fn, _arguments()["F"], p)


@pytest.mark.parametrize("fn", [_elementwise, _local_and_view], ids=lambda f: f.__name__)
def test_returned_layout_every_argument_layout(fn):
    p = ph.pipeline(fn)
    for name, arg in _arguments().items():
        check(fn, arg, p)


@pytest.mark.slow
@pytest.mark.parametrize("fn", LAYOUT_CASES, ids=lambda f: f.__name__)
def test_returned_layout_every_case_and_layout(fn):
    p = ph.pipeline(fn)
    for name, arg in _arguments().items():
        check(fn, arg, p)


@pytest.mark.parametrize("fn", [_sum_keepdims0, _local_and_view], ids=lambda f: f.__name__)
def test_returned_layout_auto_schedule(fn):
    p = ph.pipeline(fn, schedule="auto")
    for name in ("F", "F_step"):
        check(fn, _arguments()[name], p)


def _three_d_sum(a):
    return a.sum(axis=1, keepdims=True), a.sum(axis=1), a * 1.5


@pytest.mark.parametrize("perm", [(2, 1, 0), (1, 0, 2)])
def test_three_d_layouts(perm):
    p = ph.pipeline(_three_d_sum)
    base = np.arange(1.0, 61.0).reshape(3, 4, 5) * 0.1
    check(_three_d_sum, base.transpose(perm).copy().transpose(np.argsort(perm)), p)


def test_writes_into_a_returned_view_reach_the_returned_array():
    p = ph.pipeline(_local_and_view)
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    z, zt, zs = p(a)
    zt[1, 0] = -1.0
    zs[0, 0] = -2.0
    assert z[0, 1] == -1.0 and z[0, 0] == -2.0


def test_read_only_argument():
    p = ph.pipeline(_local_and_view)
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    a.setflags(write=False)
    for _ in range(2):
        check(_local_and_view, a, p)


# float sums in NumPy's memory order: values with a wide range of magnitudes
# make every order of additions give other bits -------------------------------------------
def _sum_of_written_local(a):
    z = a * 2.0
    z[0, 0] = 5.0
    return z.sum(), z.sum(axis=0), (z + 1.0).sum(axis=1)


def _sum_of_slices(a):
    return a[1:].sum(), (a[1:] * 2.0).sum(axis=0), a[:, 1:].sum(axis=1), a[::-1].sum(axis=0)


def _sum_of_copies(a):
    return np.copy(a).sum(axis=1), np.array(a).sum(), np.cumsum(a, axis=0).sum(axis=0)


def _sum_of_likes(a):
    z = np.zeros_like(a)
    z += a
    w = np.full_like(a, 2.0)
    w *= a
    return z.sum(axis=0), w.sum(axis=1), np.ones_like(a).sum()


def _sum_of_reduction(a):
    return a.sum(axis=1).sum(), (a.max(axis=2) * 1.5).sum(axis=0)


SUM_CASES = [_sum_of_written_local, _sum_of_slices, _sum_of_copies, _sum_of_likes]


def _check_sums(fn, layouts):
    rng = np.random.default_rng(17)
    p = ph.pipeline(fn)
    for _ in range(2):
        base = rng.standard_normal((23, 41)) * 10.0 ** rng.integers(-8, 8, (23, 41))
        views = (np.asfortranarray(base), np.asfortranarray(base)[1:, ::2])
        for a in (views[k] for k in layouts):
            for e, g in zip(fn(a.copy(order="K")), p(a.copy(order="K"))):
                np.testing.assert_array_equal(g, e)


# the default run: each case on a Fortran-ordered array or, by turns, a stepped view of
# one (each layout compiles the pipeline again); -m slow: every case on both
@pytest.mark.parametrize("i", range(len(SUM_CASES)), ids=[f.__name__ for f in SUM_CASES])
def test_sums_in_numpys_memory_order(i):
    _check_sums(SUM_CASES[i], [i % 2])


@pytest.mark.slow
@pytest.mark.parametrize("fn", SUM_CASES, ids=lambda f: f.__name__)
def test_sums_in_numpys_memory_order_both_layouts(fn):
    _check_sums(fn, [0, 1])


@pytest.mark.parametrize("transposed", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_sum_of_a_reduction_of_a_fortran_array(transposed):
    """(a transposed C array compiles its own kernel: the slow run's case)"""
    rng = np.random.default_rng(18)
    p = ph.pipeline(_sum_of_reduction)
    for _ in range(2):
        base = rng.standard_normal((5, 23, 41)) * 10.0 ** rng.integers(-8, 8, (5, 23, 41))
        for a in ((base.transpose(1, 0, 2),) if transposed else (np.asfortranarray(base),)):
            for e, g in zip(_sum_of_reduction(a), p(a)):
                np.testing.assert_array_equal(g, e)


# views of reshapes of arguments are NumPy's views (or copies, where NumPy's
# reshape copies) ---------------------------------------------------------------------------
def _flat_slice(a, k):
    return a.reshape(-1)[k:k + 3]


def _rows_of_reshape(a, k):
    return a.reshape(3, 4)[k:]


def _ravel_step(a, k):
    return a.ravel()[::2]


def _reshape_transposed(a, k):
    return a.reshape(2, 6).T


def _reshape_pick(a, k):
    return a.reshape(2, 2, 3)[:, k % 2]


def _reshape_and_view(a, k):
    b = a.reshape(4, 3)
    return b[1:, :2], b, b[k, ::-1]


@pytest.mark.parametrize("fn", [_flat_slice, _rows_of_reshape, _ravel_step, _reshape_transposed,
                                _reshape_pick, _reshape_and_view], ids=lambda f: f.__name__)
def test_views_of_reshapes_of_arguments(fn):
    p = ph.pipeline(fn)
    base = np.arange(12.0).reshape(3, 4)
    for arg in (base, np.asfortranarray(base), np.arange(24.0).reshape(3, 8)[:, ::2]):
        for k in (1, -1):
            check(lambda a: fn(a, k), arg, lambda a: p(a, k))
    a_py, a_ph = base.copy(), base.copy()
    for r in (_leaves(fn(a_py, 1)), _leaves(p(a_ph, 1))):
        for x in r:
            x[...] = -3.0          # writes through the views reach the argument
    np.testing.assert_array_equal(a_ph, a_py)


def _views_of_new_arrays(a):
    return (a * 2.0)[::2], (a + 1.0).T, a.sum(axis=0)[1:], (a * 3.0)[:, None, 1:]


def test_views_of_new_arrays():
    p = ph.pipeline(_views_of_new_arrays)
    for name in ("C", "F"):
        check(_views_of_new_arrays, _arguments()[name], p)


# an array rebound under a condition known at call time or in a loop keeps NumPy's memory
# order, also where that order is chosen when the function runs ---------------------------
def _carried_sum(a, k):
    z = a * 1.0
    for i in range(k):
        z = z * 0.5 + a
    return z.sum(axis=1)


def _rebound_sum(a, k):
    z = a * 1.0
    if k > 1:
        z = a * 3.0
    return z.sum(axis=1)


def _sums_of_rebound_arrays_in_numpys_order(fn):
    rng = np.random.default_rng(19)
    base = rng.standard_normal((23, 41)) * 10.0 ** rng.integers(-8, 8, (23, 41))
    a = np.asfortranarray(base)
    p = ph.pipeline(fn)
    for k in (0, 3):
        np.testing.assert_array_equal(p(a, k), fn(a, k))


def test_sums_of_an_array_rebound_under_a_condition():
    _sums_of_rebound_arrays_in_numpys_order(_rebound_sum)


def test_sums_of_a_loop_carried_array():
    _sums_of_rebound_arrays_in_numpys_order(_carried_sum)


def _carried_changing_order(a, k):
    z = a.copy(order="C") * 1.0
    for i in range(k):
        z = a * 0.5 + i
    return z.sum(axis=1)


def test_a_carried_array_changing_its_memory_order():
    _sums_of_rebound_arrays_in_numpys_order(_carried_changing_order)
