"""Suite 4's kernels as loops, for Numba: `@njit(parallel=True)` with the
outer loop a `prange`, and the same loops under `@njit` (serial). Each
computes what the NumPy function of suite4_kernels.py computes, in the same
operation order per element (reductions: in the order of the loops)."""
from __future__ import annotations

import math

import numpy as np

from .protocol import Unavailable

_CACHE: dict = {}


def numba_kernels(parallel: bool) -> dict:
    """name -> the jitted loop version (compiled on first use)."""
    try:
        import numba
    except ImportError as e:
        raise Unavailable("Numba not installed") from e
    if parallel in _CACHE:
        return _CACHE[parallel]
    rng = numba.prange if parallel else range
    jit = numba.njit(parallel=True, cache=False) if parallel else numba.njit(cache=False)

    def chain_ops(a, b):
        out = np.empty_like(a)
        for i in rng(a.shape[0]):
            for j in range(a.shape[1]):
                x, y = a[i, j], b[i, j]
                c = x * 1.5 - y
                d = c * c + x * y
                out[i, j] = (d - 0.5) * d + y
        return out

    def chain(a, b):
        out = np.empty_like(a)
        for i in rng(a.shape[0]):
            for j in range(a.shape[1]):
                x, y = a[i, j], b[i, j]
                d = x * 1.5 - y
                m = math.sqrt(d * d + 1.0)
                c = min(max(m, 1.25), 2.0)
                out[i, j] = c if x > y else abs(d)
        return out

    def chain_transc(a, b):
        out = np.empty_like(a)
        for i in rng(a.shape[0]):
            for j in range(a.shape[1]):
                x, y = a[i, j], b[i, j]
                out[i, j] = math.tanh(y - 0.5) * math.exp(-x * x) + math.log(1.0 + y * y)
        return out

    def laplace(u):
        h, w = u.shape[0] - 2, u.shape[1] - 2
        out = np.empty((h, w), u.dtype)
        for i in rng(h):
            for j in range(w):
                out[i, j] = u[i + 1, j + 1] * -4.0 + u[i, j + 1] + u[i + 2, j + 1] + \
                    u[i + 1, j] + u[i + 1, j + 2]
        return out

    def harris(img):
        h, w = img.shape[0] - 2, img.shape[1] - 2       # ix, iy
        ix = np.empty((h, w), img.dtype)
        iy = np.empty((h, w), img.dtype)
        for i in rng(h):
            for j in range(w):
                ix[i, j] = (img[i + 1, j + 2] - img[i + 1, j]) * 0.5
                iy[i, j] = (img[i + 2, j + 1] - img[i, j + 1]) * 0.5
        out = np.empty((h - 2, w - 2), img.dtype)
        for i in rng(h - 2):
            for j in range(w - 2):
                sxx = 0.0
                syy = 0.0
                sxy = 0.0
                for di in range(3):
                    txx = 0.0
                    tyy = 0.0
                    txy = 0.0
                    for dj in range(3):
                        gx, gy = ix[i + di, j + dj], iy[i + di, j + dj]
                        txx += gx * gx
                        tyy += gy * gy
                        txy += gx * gy
                    sxx += txx
                    syy += tyy
                    sxy += txy
                det = sxx * syy - sxy * sxy
                tr = sxx + syy
                out[i, j] = det - 0.04 * tr * tr
        return out

    def gray_scott(u, v):
        h, w = u.shape[0] - 2, u.shape[1] - 2
        un = np.empty((h, w), u.dtype)
        vn = np.empty((h, w), u.dtype)
        for i in rng(h):
            for j in range(w):
                uc, vc = u[i + 1, j + 1], v[i + 1, j + 1]
                lu = u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2] - 4.0 * uc
                lv = v[i, j + 1] + v[i + 2, j + 1] + v[i + 1, j] + v[i + 1, j + 2] - 4.0 * vc
                uvv = uc * vc * vc
                un[i, j] = uc + (0.16 * lu - uvv + 0.035 * (1.0 - uc))
                vn[i, j] = vc + (0.08 * lv + uvv - (0.035 + 0.065) * vc)
        return un, vn

    def sum_axis0(a):
        n, m = a.shape
        out = np.zeros(m, a.dtype)
        nb = (m + 255) // 256
        for jb in rng(nb):
            hi = min(m, jb * 256 + 256)
            for i in range(n):
                for j in range(jb * 256, hi):
                    out[j] += a[i, j]
        return out

    def sum_axis1(a):
        out = np.empty(a.shape[0], a.dtype)
        for i in rng(a.shape[0]):
            s = 0.0
            for j in range(a.shape[1]):
                s += a[i, j]
            out[i] = s
        return out

    def amax(a):
        rows = np.empty(a.shape[0], a.dtype)
        for i in rng(a.shape[0]):
            m = a[i, 0]
            for j in range(1, a.shape[1]):
                m = max(m, a[i, j])
            rows[i] = m
        return rows.max()

    def argmin(a):
        n, m = a.shape
        best = np.empty(n, a.dtype)
        where = np.empty(n, np.int64)
        for i in rng(n):
            b, k = a[i, 0], 0
            for j in range(1, m):
                if a[i, j] < b:
                    b, k = a[i, j], j
            best[i] = b
            where[i] = k
        r = 0
        for i in range(1, n):
            if best[i] < best[r]:
                r = i
        return r * m + where[r]

    def matmul(a, b):
        n, k = a.shape
        m = b.shape[1]
        out = np.zeros((n, m), a.dtype)
        for i in rng(n):
            for r in range(k):
                air = a[i, r]
                for j in range(m):
                    out[i, j] += air * b[r, j]
        return out

    fns = (chain_ops, chain, chain_transc, laplace, harris, gray_scott, sum_axis0, sum_axis1,
           amax, argmin, matmul)
    _CACHE[parallel] = {f.__name__: jit(f) for f in fns}
    return _CACHE[parallel]
