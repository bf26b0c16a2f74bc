"""Float max/argmax/argmin loops and inputs with NaN values and signed zeros,
shared by the rfactor, Dask and parallel-scan tests of the NaN rule
(pyhalide/rfactor_nan.py, tables/float_domain.py)."""
import numpy as np


def sel_max(a):
    m = -np.inf
    for i in range(a.shape[0]):
        if a[i] > m:
            m = a[i]
    return m


def builtin_max(a):
    m = -np.inf
    for i in range(len(a)):
        m = max(m, a[i])
    return m


def argmax_first(a):
    m = -np.inf
    k = -1
    for i in range(a.shape[0]):
        if a[i] > m:
            m = a[i]
            k = i
    return k, m


def argmin_last(a):
    m = np.inf
    k = -1
    for i in range(a.shape[0]):
        if a[i] <= m:
            m = a[i]
            k = i
    return k, m


def argmin_from_first(a):
    m = a[0]
    k = 0
    for i in range(1, a.shape[0]):
        if a[i] < m:
            m = a[i]
            k = i
    return k, m


def not_ge_min(a):
    m = np.inf
    for i in range(a.shape[0]):
        if not (a[i] >= m):
            m = a[i]
    return m


def nan_inputs(n):
    rng = np.random.default_rng(11)
    out = []
    for case in range(7):
        a = rng.standard_normal(n)
        if case == 0:
            a[rng.integers(0, n, 5)] = np.nan
        elif case == 1:
            a[:] = np.nan
            a[5] = 1.0
        elif case == 2:
            a[:] = np.nan
            a[n - 3], a[n // 3] = 1.0, -2.0
        elif case == 3:
            a[0] = np.nan
        elif case == 4:
            a[n // 2:] = np.nan
        elif case == 5:
            a[:] = 0.0
            a[::7] = -0.0
        elif case == 6:
            a[:] = -0.0
            a[n - 2] = 0.0
        out.append(a)
    return out


def same_float(want, got):
    if isinstance(want, tuple):
        return all(same_float(w, g) for w, g in zip(want, got))
    w, g = np.float64(want), np.float64(got)
    if np.isnan(w):
        return bool(np.isnan(g))
    return w == g and np.signbit(w) == np.signbit(g)
