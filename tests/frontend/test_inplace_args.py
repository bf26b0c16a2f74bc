"""Writes into argument arrays (issue 17 item 4): the caller sees them after
the call, as in plain Python; read-only arguments and arguments sharing
memory with a written one are refused at call time, before anything is
written. Every case runs the plain function and the compiled one on copies
of the same arguments and compares the results and the arguments after."""
import numpy as np
import pytest

import pyhalide as ph

from .frontend_check import describe, same


def fresh(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def check_inplace(p, *args):
    """p(*args) equals p.py_func(*args) on copies: the same result (the
    very argument object where Python returns an argument) and the same
    argument arrays after the call. Returns the compiled result."""
    plain_args, comp_args = fresh(args), fresh(args)
    exp = p.py_func(*plain_args)
    got = p(*comp_args)
    for k, (a, b) in enumerate(zip(comp_args, plain_args)):
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), \
                f"{p.__name__}: argument {k} after the call {describe(a)} != plain {describe(b)}"
    _same_result(p, got, exp, comp_args, plain_args)
    return got


def _same_result(p, got, exp, comp_args, plain_args):
    if isinstance(exp, tuple):
        assert isinstance(got, tuple) and len(got) == len(exp)
        for g, e in zip(got, exp):
            _same_result(p, g, e, comp_args, plain_args)
        return
    returned = [k for k, a in enumerate(plain_args) if a is exp]
    if returned:
        assert got is comp_args[returned[0]], f"{p.__name__} must return the argument itself"
        return
    assert not any(got is a for a in comp_args), f"{p.__name__} returned an argument"
    assert same(got, exp), f"{p.__name__}: compiled {describe(got)} != plain {describe(exp)}"


# element writes in loops ------------------------------------------------------------------
@ph.pipeline
def running_sum(a):
    n = a.shape[0]
    for i in range(1, n):
        a[i] = a[i - 1] + a[i]       # reads the element it updated one iteration before
    return a


@ph.pipeline
def gauss_seidel_2d(a, sweeps):
    for s in range(sweeps):
        for i in range(1, a.shape[0] - 1):
            for j in range(1, a.shape[1] - 1):
                a[i, j] = (a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]) * 0.25


@ph.pipeline
def scale_in_loop(a, b, k):
    for i in range(a.shape[0]):
        a[i] += k * b[i]
    return a.sum()


@ph.pipeline
def conditional_write(a, k):
    if k > 0:
        a[0] = k
    return a[0] + a[1]


@ph.pipeline
def two_written(a, b):
    for i in range(a.shape[0]):
        a[i] = a[i] + b[i]
    for i in range(b.shape[0]):
        b[i] = a[i] - b[i]


@ph.pipeline
def reads_after_write(a):
    a[0] = 100
    s = a.sum()
    a[1] = s
    return a[0] + a[1], a


@ph.pipeline
def clip_and_count(a, lo):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] < lo:
                a[i, j] = lo
    return (a == lo).sum()


@ph.pipeline
def column_prefix(a):
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] += a[i - 1, j]


def test_element_writes_in_loops():
    check_inplace(running_sum, np.arange(9.0))
    check_inplace(running_sum, np.ones(1))
    rng = np.random.default_rng(1)
    for sweeps in (0, 1, 3):
        check_inplace(gauss_seidel_2d, rng.standard_normal((6, 7)), sweeps)
    check_inplace(scale_in_loop, np.arange(5.0), np.linspace(0, 1, 5), 3)
    check_inplace(scale_in_loop, np.arange(5), np.arange(5), 2)
    for k in (-1, 0, 4):
        check_inplace(conditional_write, np.arange(3.0), k)
    check_inplace(two_written, np.arange(4.0), -np.arange(4.0))
    check_inplace(reads_after_write, np.arange(5))
    check_inplace(clip_and_count, rng.standard_normal((4, 5)), 0.0)
    check_inplace(clip_and_count, np.arange(-6, 6, dtype=np.int16).reshape(3, 4), -2)
    check_inplace(column_prefix, np.arange(12).reshape(3, 4))
    check_inplace(column_prefix, np.ones((1, 3), np.float32))


@pytest.mark.slow
def test_element_writes_in_loops_of_other_dtypes():
    for dt in (np.float32, np.int32, np.int8):
        check_inplace(running_sum, np.arange(9).astype(dt))


def test_returned_argument_is_the_callers_object():
    a = np.arange(5.0)
    r = running_sum(a)
    assert r is a and a.tolist() == [0.0, 1.0, 3.0, 6.0, 10.0]
    b = np.arange(5.0)
    assert running_sum(b) is b         # the call fast path copies back too
    assert b.tolist() == [0.0, 1.0, 3.0, 6.0, 10.0]
    got = reads_after_write(np.arange(3))
    assert isinstance(got, tuple) and got[1].tolist() == [100, 103, 2]


# whole-array, slice, mask and view stores ------------------------------------------------
@ph.pipeline
def diffusion_step(u, temp_u, mu):
    temp_u[1:-1, 1:-1] = u[1:-1, 1:-1] + mu * (
        u[2:, 1:-1] - 2 * u[1:-1, 1:-1] + u[0:-2, 1:-1] +
        u[1:-1, 2:] - 2 * u[1:-1, 1:-1] + u[1:-1, 0:-2])
    u[:, :] = temp_u[:, :]
    temp_u[:, :] = 0.0


@ph.pipeline
def smooth_inner(a):
    a[1:-1] = (a[2:] + a[:-2]) / 2      # the right side reads a before the store
    return a


@ph.pipeline
def zero_masked(a):
    a[a > 0.5] = 0
    return a.sum()


@ph.pipeline
def augmented(a, b):
    a += b
    a *= 2
    return a


@ph.pipeline
def through_view(a):
    v = a[1:]
    v[0] = 7
    w = a.T
    w[-1] = 5
    return a[1] + a[-1]


@ph.pipeline
def through_2d_views(a):
    a[:, 0] = -1
    row = a[1]
    row += 10
    t = a.T
    t[0, 1] = 3
    return a


def test_diffusion_steps_with_the_loop_outside():
    lx = ly = 16
    u = np.zeros((lx, ly))
    u[lx // 2, ly // 2] = 1000.0
    t = np.zeros((lx, ly))
    pu, pt = u.copy(), t.copy()
    for _ in range(5):
        assert diffusion_step(u, t, 0.1) is None
        diffusion_step.py_func(pu, pt, 0.1)
    assert np.array_equal(u, pu) and np.array_equal(t, pt) and u.max() < 1000.0
    check_inplace(diffusion_step, np.random.default_rng(2).random((5, 9)), np.ones((5, 9)), 0.2)


def test_slice_mask_augmented_and_view_stores():
    check_inplace(smooth_inner, np.arange(7.0) ** 2)
    check_inplace(zero_masked, np.linspace(0.0, 1.0, 9))
    check_inplace(zero_masked, np.linspace(0.0, 1.0, 12).reshape(3, 4))
    check_inplace(augmented, np.arange(5.0), np.ones(5))
    check_inplace(augmented, np.arange(6).reshape(2, 3), np.arange(3))       # broadcast
    check_inplace(augmented, np.arange(4, dtype=np.int8) * 40, np.full(4, 3, np.int8))
    check_inplace(through_view, np.arange(5.0))
    check_inplace(through_view, np.arange(5))
    check_inplace(through_2d_views, np.arange(12.0).reshape(3, 4))


def test_augmented_store_that_numpy_refuses_is_refused():
    with pytest.raises(TypeError):
        augmented.py_func(np.arange(3), np.ones(3))
    with pytest.raises(TypeError):
        augmented(np.arange(3), np.ones(3))


# layouts of the caller's array -------------------------------------------------------------
def test_written_arguments_of_any_layout():
    base = np.arange(20.0)
    check_inplace(running_sum, base[::2])
    check_inplace(running_sum, base[::-3])
    b1, b2 = base.copy(), base.copy()
    running_sum(b1[3:15:4])
    running_sum.py_func(b2[3:15:4])
    assert np.array_equal(b1, b2)         # the caller's base array, between the strides
    f = np.asfortranarray(np.arange(24.0).reshape(4, 6))
    check_inplace(through_2d_views, f)
    check_inplace(gauss_seidel_2d, np.asfortranarray(np.random.default_rng(3).random((5, 5))), 2)
    check_inplace(through_2d_views, np.arange(24.0).reshape(6, 4).T)


def test_unwritten_arguments_are_left_alone():
    a, b = np.arange(4.0), np.linspace(0, 1, 4)
    b0 = b.copy()
    scale_in_loop(a, b, 2)
    assert np.array_equal(b, b0)


# refused at call time ---------------------------------------------------------------------------
def test_read_only_argument_is_value_error_before_any_write():
    a = np.arange(5.0)
    a.flags.writeable = False
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        running_sum.py_func(a)
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        running_sum(a)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    u, t = np.zeros((4, 4)), np.ones((4, 4))
    t.flags.writeable = False
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        diffusion_step(u, t, 0.1)
    assert not u.any() and t.all()         # nothing written into the writable one either
    # an unwritten read-only argument is fine
    ro = np.linspace(0, 1, 5)
    ro.flags.writeable = False
    check_inplace(scale_in_loop, np.arange(5.0), ro, 3)


def test_argument_sharing_memory_with_a_written_one_is_refused():
    a = np.arange(5.0)
    with pytest.raises(ValueError, match="shares memory with argument 'b'"):
        scale_in_loop(a, a, 2)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    x = np.arange(8.0)
    with pytest.raises(ValueError, match="shares memory"):
        scale_in_loop(x[1:6], x[:5], 2)
    with pytest.raises(ValueError, match="shares memory"):
        two_written(x[:4], x[2:6])
    # views of one array that do not overlap are exact
    check_inplace(scale_in_loop, np.arange(8.0)[::2], np.arange(8.0)[1::2], 2)
    y, z = np.arange(8.0), np.arange(8.0)
    scale_in_loop(y[::2], y[1::2], 2)
    scale_in_loop.py_func(z[::2], z[1::2], 2)
    assert np.array_equal(y, z)


def test_written_argument_with_a_zero_stride_is_refused():
    a = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(4,), strides=(0,))
    with pytest.raises(ValueError, match="stride of 0"):
        running_sum(a)
    one = np.lib.stride_tricks.as_strided(np.ones(1), shape=(1,), strides=(0,))
    check_inplace(running_sum, one)             # one element: nothing shared
