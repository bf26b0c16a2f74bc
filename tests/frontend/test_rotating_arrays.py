"""Loops that pass arrays from name to name (ping-pong buffers, issue 17):
`In, Out = Out, In` after writing into Out (Pythran's lapl2d), `u, v = v, u`
with local arrays, three-name rotations. After the loop a name holds the
array Python's name holds (an argument the caller sees written, the
argument itself where Python returns it), by the trip count's parity.
Each case runs the plain function and the compiled one on copies of the
same arguments (check_inplace) and compares results and arguments."""
import numpy as np
import pytest

import pyhalide as ph

from .test_inplace_args import check_inplace


@ph.pipeline
def lapl2d(In, Out, niter):
    """Pythran's lapl2d: writes into Out, then swaps the names."""
    siz = In.shape[0]
    h2 = (1. / siz) ** 2
    for it in range(0, niter):
        Out[1:siz - 1, 1:siz - 1] = h2 * (
            In[0:siz - 2, 1:siz - 1] + In[1:siz - 1, 0:siz - 2] -
            4.0 * In[1:siz - 1, 1:siz - 1] +
            In[2:siz, 1:siz - 1] + In[1:siz - 1, 2:siz])
        In, Out = Out, In


@ph.pipeline
def smooth_args(In, Out, T):
    for t in range(T):
        Out[1:-1] = 0.5 * (In[:-2] + In[2:])
        In, Out = Out, In
    return In


@ph.pipeline
def smooth_both(In, Out, T):
    for t in range(T):
        Out[1:-1] = 0.25 * In[:-2] + 0.75 * In[2:]
        In, Out = Out, In
    return Out, In


@ph.pipeline
def smooth_n(In, Out, n, T):
    for t in range(T):
        Out[1:n - 1] = 0.5 * (In[:n - 2] + In[2:n])
        In, Out = Out, In
    return In


@ph.pipeline
def smooth_local(a, T):
    u = a.copy()
    v = np.zeros_like(a)
    for t in range(T):
        v[1:-1] = 0.5 * (u[:-2] + u[2:])
        u, v = v, u
    return u


@ph.pipeline
def kept_alias(a, T):
    """`keep` names u's first array, which the loop writes on odd
    iterations (through v): read after the loop it has those writes."""
    u = a.copy()
    keep = u
    v = np.zeros_like(a)
    for t in range(T):
        v[1:-1] = 0.5 * (u[:-2] + u[2:])
        u, v = v, u
    return keep + 0


@ph.pipeline
def three_way(a, b, c, T):
    for t in range(T):
        c[:] = a + 2.0 * b
        a, b, c = b, c, a
    return b


@ph.pipeline
def three_way_local(x, T):
    a = x.copy()
    b = x * 2.0
    c = np.zeros_like(x)
    for t in range(T):
        c[1:] = a[:-1] - b[1:]
        a, b, c = b, c, a
    return a + 10.0 * b + 100.0 * c


@ph.pipeline
def written_after(In, Out, T):
    for t in range(T):
        Out[1:-1] = 0.5 * (In[:-2] + In[2:])
        In, Out = Out, In
    In[0] = 7.0
    return In


A = np.linspace(0.0, 1.0, 9) ** 2


@pytest.mark.parametrize("T", [0, 1, 2, 3, 5, -1])
def test_argument_swap(T):
    check_inplace(smooth_args, A.copy(), A * 2 + 1, T)
    check_inplace(smooth_both, A.copy(), A * 3 - 1, T)


@pytest.mark.parametrize("T", [0, 1, 4, 7])
def test_lapl2d(T):
    x = np.arange(25.0).reshape(5, 5) ** 1.5
    check_inplace(lapl2d, x, x.T.copy() + 1.0, T)


def test_lapl2d_aliased_arguments_refused():
    """Pythran's own runas passes x and x.T (one buffer): a written argument
    that shares memory with another is NumPy-visible aliasing the compiled
    reads would not see, a ValueError before anything runs."""
    x = np.arange(16.0).reshape(4, 4)
    with pytest.raises(ValueError):
        lapl2d(x, x.T, 3)


def test_rotation_shapes_differ_at_call_time():
    """Python runs this loop with a 9- and a 12-element array taking turns
    under In; the compiled loop's state has one shape: a located refusal."""
    check_inplace(smooth_n, A.copy(), A * 2.0, 9, 3)
    smooth_n.py_func(A.copy(), np.zeros(12), 9, 3)
    with pytest.raises(NotImplementedError, match="sizes differ"):
        smooth_n(A.copy(), np.zeros(12), 9, 3)


@pytest.mark.parametrize("T", [0, 1, 2, 3])
def test_local_swap(T):
    check_inplace(smooth_local, A, T)
    check_inplace(kept_alias, A, T)


@pytest.mark.parametrize("T", [0, 1, 2, 3, 4, 6])
def test_three_way(T):
    check_inplace(three_way, A.copy(), A + 1, A - 2, T)
    check_inplace(three_way_local, A, T)


def test_write_after_rotation_refused():
    with pytest.raises(ph.CompileError, match="depends on the number of iterations"):
        written_after(A.copy(), A.copy(), 3)


# a helper that updates arrays in place and returns them, called in a time loop --------------
def _bounce(H, U):
    H[:, 0] = H[:, 1]
    U[:, 0] = -U[:, 1]
    H[-1, :] = H[-2, :]
    Hx = (H[1:, 1:-1] + H[:-1, 1:-1]) / 2 - 0.01 * (U[1:, 1:-1] - U[:-1, 1:-1])
    H[1:-1, 1:-1] -= 0.02 * (Hx[1:, :] - Hx[:-1, :])
    U[1:-1, 1:-1] -= 0.02 * (Hx[1:, :] ** 2 - Hx[:-1, :] ** 2)
    return (H, U)


@ph.pipeline
def simulate(H, timesteps):
    """shallow_water's shape (Pythran's case): `(H, U) = step(H, U)` binds
    the names to the arrays the helper wrote and returns."""
    U = np.zeros_like(H)
    for i in range(timesteps):
        (H, U) = _bounce(H, U)
    return H


@ph.pipeline
def simulate_statement(H, timesteps):
    U = np.ones_like(H)
    for i in range(timesteps):
        _bounce(H, U)
    return H + U


# the default run: the returned form with 3 steps; the slow run both forms
# with 0 and 3 steps (each function compiles for seconds)
@pytest.mark.parametrize("T, forms", [
    pytest.param(0, (simulate, simulate_statement), marks=pytest.mark.slow),
    pytest.param(3, (simulate, simulate_statement), marks=pytest.mark.slow),
    (3, (simulate,))], ids=["0-both", "3-both", "3-returned"])
def test_helper_step_in_time_loop(T, forms):
    m = np.ones((7, 6))
    m[2, 3] = 6.0
    for fn in forms:
        check_inplace(fn, m, T)


@ph.pipeline
def swap_with_view(a, T):
    """u starts as a view of the argument: the writes into it reach the
    argument's elements it views, and returning u returns its contents."""
    u = a[1:]
    v = np.zeros(a.shape[0] - 1)
    for t in range(T):
        v[1:] = u[:-1] * 0.5 + 1.0
        u, v = v, u
    return u


@pytest.mark.parametrize("T", [0, 1, 2, 3])
def test_swap_with_view(T):
    check_inplace(swap_with_view, A, T)


@ph.pipeline
def kept_alias_with_scalar(a, T):
    """Phase mode (a scalar carried too): `keep` sees the writes made into
    u's first array through v (it returned a's values, a wrong result,
    before this session)."""
    u = a.copy()
    keep = u
    v = np.zeros_like(a)
    s = 0.0
    for t in range(T):
        v[1:-1] = 0.5 * (u[:-2] + u[2:]) + s
        s = s + 1.0
        u, v = v, u
    return keep + 0


@ph.pipeline
def jacobi_residual(u, new, T):
    """Ping-pong arguments with a residual (a reduction: phase mode)."""
    res = np.float64(0.0)
    for t in range(T):
        new[1:-1] = 0.5 * (u[:-2] + u[2:])
        res = np.abs(new - u).max()
        u, new = new, u
    return res, u


@pytest.mark.parametrize("T", [0, 1, 2, 3])
def test_phase_mode_rotation(T):
    check_inplace(kept_alias_with_scalar, A, T)
    check_inplace(jacobi_residual, A.copy(), A * 0.5, T)
