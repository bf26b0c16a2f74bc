"""NumPy's memory order chosen when the function runs: a name bound to new
arrays of two orders by an `if` (on a call-time value or on the data), a
loop-carried array whose body gives it another order than its initial
value's (NumPy's order after the loop: the initial one for 0 iterations, the
body's after). Float sums of such an array (sum, mean, var, std, nansum, of
expressions of it) follow the order of the call, and returned arrays have
its strides. Also: np.nansum/np.nanmean of arrays whose order is not C (were
summed in C order: wrong last bits), the layouts of nan-reductions, np.pad
and np.gradient. Plain Python is the oracle for every call."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.errors import CompileError

from .test_result_layout import _leaves, _same


def _data(shape=(23, 41), seed=19):
    """Values with a wide range of magnitudes: every order of additions
    gives other bits."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 8, shape)


def check(fn, arg, p, *extra):
    """fn and p on copies of arg (its layout kept): the same values, bits,
    strides, identities of the results, and the same argument after."""
    a_py, a_ph = arg.copy(order="K"), arg.copy(order="K")
    expected = _leaves(fn(a_py, *extra))
    got = _leaves(p(a_ph, *extra))
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        _same(e, g, a_py, a_ph)
    for i in range(len(expected)):
        for j in range(i + 1, len(expected)):
            assert (expected[i] is expected[j]) == (got[i] is got[j])
            if isinstance(expected[i], np.ndarray) and isinstance(expected[j], np.ndarray):
                assert np.shares_memory(got[i], got[j]) == \
                    np.shares_memory(expected[i], expected[j])
    np.testing.assert_array_equal(a_ph, a_py)


def _over_trip_counts(fn, ks, **kw):
    """fn compiled once (kw: pipeline options), checked on a Fortran-ordered
    argument for each k in ks."""
    p = ph.pipeline(fn, **kw)
    a = np.asfortranarray(_data())
    for k in ks:
        check(fn, a, p, k)


# an `if` binding new arrays of two orders --------------------------------------------------
def _if_orders(a, k):
    z = a.copy(order="C")
    if k > 1:
        z = a * 3.0
    return z.sum(axis=1), z.sum(), (z + 1.0).sum(axis=0), z.mean(axis=1), z.std(axis=0), \
        z.sum(axis=0, keepdims=True), z, z.T, z[::2], z


def _both_branches(a, k):
    if k > 5:
        z = a.copy(order="C")
    elif k > 1:
        z = a * 2.0
    else:
        z = a.T.T.copy(order="C") + 1.0
    return (z * 2.0).sum(axis=1), z.var(), np.nansum(z, axis=1), z


def _on_the_data(a, k):
    if a[0, 0] > 0:
        z = a * 3.0
    else:
        z = a.copy(order="C")
    return z.sum(axis=1), z, z.T


def _if_sum(a, k):
    z = a.copy(order="C")
    if k > 1:
        z = a * 3.0
    return z.sum(axis=1), z, z.T


def test_if_binding_arrays_of_two_orders_cheap():
    _over_trip_counts(_if_sum, (0, 3))


@pytest.mark.slow
@pytest.mark.parametrize("fn", [_if_orders, _both_branches], ids=lambda f: f.__name__)
def test_if_binding_arrays_of_two_orders(fn):
    _over_trip_counts(fn, (0, 3, 7))


@pytest.mark.slow
def test_if_on_the_data_choosing_the_order():
    p = ph.pipeline(_on_the_data)
    a = np.asfortranarray(_data())
    for sign in (1.0, -1.0):
        check(_on_the_data, a * sign, p, 0)


# a loop-carried array changing its order ---------------------------------------------------
def _carried(a, k):
    z = a.copy(order="C") * 1.0
    for i in range(k):
        z = a * 0.5 + i
    return z.sum(axis=1), z.mean(axis=0), z.var(axis=1), np.nansum(z, axis=1), \
        (z * 2.0).sum(), z.sum(axis=1, keepdims=True), z, z.T


def _carried_back_and_forth(a, k):
    z = a * 1.0
    for i in range(k):
        z = a.copy(order="C") + z * 0.0 + i
    return z.sum(axis=1), z


def _carried_small(a, k):
    z = a.copy(order="C") * 1.0
    for i in range(k):
        z = a * 0.5 + i
    return z.mean(axis=0), z.T


def test_a_carried_array_changing_its_order_cheap():
    _over_trip_counts(_carried_small, (0, 2))


@pytest.mark.slow
def test_a_carried_array_changing_its_order():
    _over_trip_counts(_carried, (0, 1, 3))


@pytest.mark.slow
def test_a_carried_array_changing_its_order_auto_schedule():
    _over_trip_counts(_carried, (0, 2), schedule="auto")


@pytest.mark.slow
def test_a_carried_array_becoming_c_ordered():
    _over_trip_counts(_carried_back_and_forth, (0, 2))


# a reshape's view or copy would depend on the run: refused, located --------------------
def _reshape_of_chosen(a, k):
    z = a.copy(order="C")
    if k > 1:
        z = a * 3.0
    return z.reshape(-1)


def test_reshape_of_an_array_whose_order_is_chosen_is_refused():
    p = ph.pipeline(_reshape_of_chosen)
    with pytest.raises(CompileError, match="reshape of 'z' .*may be a view or a copy") as e:
        p(np.asfortranarray(_data((3, 4))), 3)
    assert "test_result_layout18.py:" in str(e.value)


# nan-reductions --------------------------------------------------------------------------
def _nan_reductions(a):
    return np.nansum(a, axis=1), np.nanmean(a, axis=0), np.nansum(a), \
        np.nansum(a, axis=0, keepdims=True), np.nanmax(a, axis=1, keepdims=True), \
        np.nanmin(a, axis=0), np.nanargmin(a, axis=0, keepdims=True)


@pytest.mark.slow
def test_nan_reductions_in_numpys_order_and_layout():
    p = ph.pipeline(_nan_reductions)
    base = _data()
    base[3, 5] = base[7, 0] = np.nan
    f = np.asfortranarray(base)
    for a in (base, f, f[1:, ::2], f[::-1], base.T):
        check(lambda x: _nan_reductions(x), a, p)


def _nansum_rows(a):
    return np.nansum(a, axis=1), np.nanmax(a, axis=0, keepdims=True)


def test_nansum_in_numpys_order_cheap():
    p = ph.pipeline(_nansum_rows)
    base = _data()
    base[3, 5] = np.nan
    check(lambda x: _nansum_rows(x), np.asfortranarray(base), p)


# np.pad and np.gradient results in NumPy's layout ---------------------------------------------
def _pad_and_gradient(a):
    g0, g1 = np.gradient(a)
    return np.pad(a, 1), np.pad(a * 2.0, ((0, 1), (2, 0)), mode="edge"), g0, g1, \
        np.gradient(a, axis=1), np.pad(a, 2).sum(axis=1)


@pytest.mark.slow
def test_pad_and_gradient_layouts():
    p = ph.pipeline(_pad_and_gradient)
    base = _data((5, 7))
    f = np.asfortranarray(base)
    for a in (base, f, f[1:, ::2], base.T):
        check(lambda x: _pad_and_gradient(x), a, p)


def _pad_gradient_small(a):
    return np.pad(a, 1), np.gradient(a, axis=0)


def test_pad_and_gradient_layouts_cheap():
    p = ph.pipeline(_pad_gradient_small)
    check(lambda x: _pad_gradient_small(x), np.asfortranarray(_data((5, 7))), p)


# complex arrays: sums in NumPy's memory order (exact additions: the same bits), results
# in NumPy's layout ---------------------------------------------------------------------------
def _complex_sums(a):
    z = a + 1j
    w = a + 2j
    w[0, 0] = 5.0
    return z.sum(axis=1), z.sum(), w.sum(axis=0), z, w


def test_complex_sums_and_layouts():
    p = ph.pipeline(_complex_sums)
    check(lambda x: _complex_sums(x), np.asfortranarray(_data()), p)
