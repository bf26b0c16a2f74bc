"""npbench kernels with moving slices (session 29, h7; issue 17):
covariance (`data -= mean` on the argument, bounds `i:M` with M a scalar
argument and the loop's stop), symm (a column target `C[:i, j] += ...`, a
row update reading a fresh 1-D array whole) and durbin (np.flip of moving
slices, a target read reversed). Plain Python is the oracle: arrays written
in place, exception types; dot products are summed in element order (the
frontend's order for np.dot of two vectors), so floats are compared bit for
bit with scalar loops in that order and with NumPy within a tolerance."""
import numpy as np
import pytest

import pyhalide as ph


def covariance(M, float_n, data):
    mean = np.mean(data, axis=0)
    data -= mean
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return cov


def covariance_loops(M, float_n, data):
    mean = np.mean(data, axis=0)
    data -= mean
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        for j in range(i, M):
            s = 0.0
            for k in range(data.shape[0]):
                s += data[k, i] * data[k, j]
            cov[i, j] = cov[j, i] = s / (float_n - 1.0)
    return cov


def symm(alpha, beta, C, A, B):
    temp2 = np.empty((C.shape[1], ), dtype=C.dtype)
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = B[:i, j] @ A[i, :i]
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2
    return C


def symm_loops(alpha, beta, C, A, B):
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            t = 0.0
            for k in range(i):
                C[k, j] += alpha * B[i, j] * A[i, k]
                t += B[k, j] * A[i, k]
            C[i, j] += alpha * B[i, j] * A[i, i] + alpha * t
    return C


def durbin(r):
    # (npbench's form: beta is a Python float in the first iteration and a
    # np.float64 in the later ones)
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


def durbin_f64(r, b0):
    # (beta starts as b0 and is returned: its type after the loop)
    y = np.empty_like(r)
    alpha = -r[0]
    beta = b0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y, beta


def durbin_rev(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = np.float64(1.0)
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(r[:k][::-1], y[:k])) / beta
        y[:k] += alpha * y[:k][::-1]
        y[k] = alpha
    return y


def durbin_loops(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = np.float64(1.0)
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        s = 0.0
        for j in range(k):
            s += r[k - 1 - j] * y[j]
        alpha = -(r[k] + s) / beta
        z = y[:k].copy()
        for j in range(k):
            y[j] = z[j] + alpha * z[k - 1 - j]
        y[k] = alpha
    return y


def mirror(y, x):
    for k in range(y.shape[0]):
        y[:k] = np.flip(y[:k])
        x[k:] = 2.0 * np.flip(y[k:]) - x[k:]
    return y, x


def flipdot(r, y):
    s = np.zeros_like(r)
    for k in range(r.shape[0]):
        s[k] = np.dot(np.flip(r[:k]), y[k:2 * k]) + r[k]
    return s


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def test_covariance():
    p = ph.pipeline(covariance)
    rng = np.random.default_rng(29)
    for n, m, M in [(9, 6, 6), (5, 7, 7), (4, 4, 3), (3, 5, 0), (2, 3, 3)]:
        d = rng.random((n, m))
        d1, d2, d3 = d.copy(), d.copy(), d.copy()
        got = p(M, float(n), d1)
        assert _same(got, covariance_loops(M, float(n), d2))
        assert _same(d1, d2)
        assert np.allclose(got, covariance(M, float(n), d3), rtol=1e-13, atol=1e-15)
    # more columns asked than data has: NumPy's ValueError (broadcast)
    with pytest.raises(ValueError):
        covariance(5, 6.0, rng.random((6, 3)))
    with pytest.raises(ValueError):
        p(5, 6.0, rng.random((6, 3)))


def _symm_cases(shapes):
    p = ph.pipeline(symm)
    rng = np.random.default_rng(7)
    for m, n in shapes:
        args = (1.5, 1.2, rng.random((m, n)), rng.random((m, m)), rng.random((m, n)))
        got = p(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        want = symm_loops(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert _same(got, want)
        ref = symm(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        assert np.allclose(got, ref, rtol=1e-13, atol=1e-15)


def test_symm():
    _symm_cases([(5, 6), (4, 3)])


@pytest.mark.slow
def test_symm_edges():
    # (sizes 1 and 0 are specializations of their own)
    _symm_cases([(1, 2), (0, 3), (2, 1)])


def test_durbin():
    p = ph.pipeline(durbin)
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 10):
        r = rng.random(n) * 0.3
        assert _same(p(r.copy()), durbin_loops(r.copy()))
        assert np.allclose(p(r.copy()), durbin(r.copy()), rtol=1e-12, atol=1e-14)
    with pytest.raises(IndexError):
        durbin(np.zeros(0))
    with pytest.raises(IndexError):
        p(np.zeros(0))


@pytest.mark.slow
def test_durbin_beta_types():
    # beta returned: a Python float where the loop does not run, a np.float64
    # after it (the npbench form); a np.float64 start keeps its type
    rng = np.random.default_rng(4)
    for b0 in (1.0, np.float64(1.0), 2.0):
        p = ph.pipeline(durbin_f64)
        for n in (1, 2, 7):
            r = rng.random(n) * 0.3
            (y1, b1), (y2, b2) = p(r.copy(), b0), durbin_f64(r.copy(), b0)
            assert _same(y1, y2) and type(b1) is type(b2) and b1 == b2
            if isinstance(b0, np.float64):
                assert _same(y1, durbin_loops(r.copy()))


@pytest.mark.slow
def test_mirror():
    p = ph.pipeline(mirror)
    rng = np.random.default_rng(5)
    for n in (0, 1, 4, 7):
        y, x = rng.random(n), rng.random(n)
        got = p(y.copy(), x.copy())
        want = mirror(y.copy(), x.copy())
        assert all(_same(a, b) for a, b in zip(got, want))
    # lengths that do not broadcast: ValueError, the writes before it kept
    y, x = rng.random(5), rng.random(4)
    y1, x1, y2, x2 = y.copy(), x.copy(), y.copy(), x.copy()
    with pytest.raises(ValueError):
        mirror(y1, x1)
    with pytest.raises(ValueError):
        p(y2, x2)
    assert _same(y1, y2) and _same(x1, x2)


@pytest.mark.slow
def test_durbin_rev_and_flipdot():
    rng = np.random.default_rng(11)
    p = ph.pipeline(durbin_rev)
    for n in (1, 3, 9):
        r = rng.random(n) * 0.3
        assert _same(p(r.copy()), durbin_loops(r.copy()))
    p = ph.pipeline(flipdot)
    for n, m in [(9, 20), (5, 3), (0, 0)]:
        r, y = rng.random(n), rng.random(m)
        try:
            want, err = flipdot(r, y), None
        except ValueError as e:
            want, err = None, e
        if err is not None:
            with pytest.raises(ValueError):
                p(r, y)
            continue
        got = p(r, y)
        s = np.zeros_like(r)
        for k in range(n):
            acc = 0.0
            for j in range(k):
                acc += r[k - 1 - j] * y[k + j]
            s[k] = acc + r[k]
        assert _same(got, s)
        assert np.allclose(got, want, rtol=1e-13, atol=1e-15)


def covariance_copy(M, float_n, data):
    d = data - np.mean(data, axis=0)
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i, i:M] = d[:, i] @ d[:, i:M] / (float_n - 1.0)
    return cov


@pytest.mark.slow
def test_covariance_centered_copy():
    # `d = data - mean`: an operator's result is a new array (stable)
    p = ph.pipeline(covariance_copy)
    rng = np.random.default_rng(1)
    for n, m, M in [(9, 6, 6), (4, 5, 2)]:
        data = rng.random((n, m))
        want = np.triu(covariance_loops(M, float(n), data.copy()))
        got = p(M, float(n), data.copy())
        assert _same(got, want)
        assert np.allclose(got, covariance_copy(M, float(n), data), rtol=1e-13, atol=1e-15)


def reversed_target(x, y):
    for i in range(x.shape[0]):
        x[i:][::-1] = y[i:] * 2.0 + x[i:][::-1]
    return x


def test_reversed_target_refused():
    # a reversed target is not rewritten: the located refusal (no crash)
    with pytest.raises(ph.CompileError, match="slice bounds must be known"):
        ph.pipeline(reversed_target)(np.ones(3), np.ones(3))


def empty_target(x, y):
    for i in range(x.shape[0]):
        x[i + 1:i + 1] = np.flip(y[i - 1:-i])
    return x


def test_empty_moving_target():
    # the update's bounds stay inside x (was a false IndexError: "input
    # buffer x is read over [0, 10]", also without np.flip)
    p = ph.pipeline(empty_target)
    x, y = np.random.default_rng(2).random(6), np.ones(1)
    assert _same(p(x.copy(), y), empty_target(x.copy(), y))
    # a nonempty operand: NumPy's ValueError at i = 1, x unchanged
    x1, x2, y = x.copy(), x.copy(), np.ones(6)
    with pytest.raises(ValueError):
        empty_target(x1, y)
    with pytest.raises(ValueError):
        p(x2, y)
    assert _same(x1, x2)


def cov_row(M, float_n, data):
    data -= 1.0
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return cov


def test_point_local_dot_keeps_rvar_innermost():
    # the dot of one cov element is computed per element (one point of its
    # loop variables): its reduction loop stays innermost after `data -=`
    # (the stride-1 reorder made a trip-1 loop innermost: 3x slower)
    p = ph.pipeline(cov_row)
    data = np.random.default_rng(7).random((6, 4))
    want = np.zeros((4, 4))
    d = data - 1.0
    for i in range(4):
        for j in range(i, 4):
            s = 0.0
            for k in range(6):
                s += d[k, i] * d[k, j]
            want[i, j] = s / 5.0
    assert _same(p(4, 6.0, data.copy()), want)
    loops = [line.split("(")[1].split(",")[0] for line in p.lower("loops").splitlines()
             if line.strip().startswith("for (acc")]
    loops = [v for v in loops if ".s1." in v]       # the update's loops, outermost first
    assert loops and ".s1.r_" in loops[-1], loops
