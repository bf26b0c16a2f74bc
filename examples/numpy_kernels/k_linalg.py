"""Matrix products, distances and a k-means assignment step."""
import numpy as np

from .corpus import Kernel

RNG = np.random.default_rng


def gemm(alpha, beta, a, b, c):
    return alpha * a @ b + beta * c


def atax(a, x):
    return a.T @ (a @ x)


def pairwise_dist(x, y):
    d = x[:, None, :] - y[None, :, :]
    return np.sqrt((d ** 2).sum(axis=-1))


def kmeans_assign(points, centers):
    d2 = ((points[:, np.newaxis, :] - centers[np.newaxis, :, :]) ** 2).sum(axis=2)
    return np.argmin(d2, axis=1)


def cosine_similarity(a, b):
    return np.dot(a, b) / (np.sqrt(np.dot(a, a)) * np.sqrt(np.dot(b, b)))


def nbody_accel(x, y, mass, soft):
    dx = x[np.newaxis, :] - x[:, np.newaxis]
    dy = y[np.newaxis, :] - y[:, np.newaxis]
    inv_r3 = (dx ** 2 + dy ** 2 + soft ** 2) ** -1.5
    return (dx * inv_r3) @ mass, (dy * inv_r3) @ mass


def outer_broadcast(u, v):
    return u[:, None] * v[None, :]


def np_outer(u, v):
    return np.outer(u, v)


def gemver_update(a, u1, v1, u2, v2):
    return a + np.outer(u1, v1) + np.outer(u2, v2)


def _gemm():
    r = RNG(60)
    return [(1.5, 1.2, r.standard_normal((4, 5)), r.standard_normal((5, 3)),
             r.standard_normal((4, 3))),
            (2, 3, r.integers(-5, 5, (3, 3)), r.integers(-5, 5, (3, 3)), r.integers(-5, 5, (3, 3)))]


def _atax():
    r = RNG(61)
    return [(r.standard_normal((6, 4)), r.standard_normal(4))]


def _dist():
    r = RNG(62)
    return [(r.standard_normal((5, 3)), r.standard_normal((4, 3))),
            (r.standard_normal((3, 2)).astype(np.float32), r.standard_normal((6, 2)).astype(np.float32))]


def _cos():
    r = RNG(63)
    return [(r.standard_normal(16), r.standard_normal(16))]


def _nbody():
    r = RNG(64)
    n = 8
    return [(r.standard_normal(n), r.standard_normal(n), r.uniform(1, 2, n), 0.1)]


def _outer():
    r = RNG(65)
    return [(r.standard_normal(4), r.standard_normal(5)),
            (np.arange(3, dtype=np.int8), np.arange(4, dtype=np.int8) * 40)]


def _gemver():
    r = RNG(66)
    return [(r.standard_normal((4, 4)),) + tuple(r.standard_normal(4) for _ in range(4))]


KERNELS = [
    Kernel(gemm, _gemm, "scalar * A @ B + beta * C (2-D matmul)", ulps=32),
    Kernel(atax, _atax, "A.T @ (A @ x): transpose, matrix-vector products", ulps=32),
    Kernel(pairwise_dist, _dist, "x[:, None, :] - y[None], 3-D broadcast, sum(axis=-1), sqrt"),
    Kernel(kmeans_assign, _dist, "k-means assignment: np.newaxis, ** 2, sum(axis=2), argmin"),
    Kernel(cosine_similarity, _cos, "np.dot of 1-D arrays, np.sqrt", ulps=32),
    Kernel(nbody_accel, _nbody, "N-body: np.newaxis broadcasting, ** -1.5, (N,N) @ (N,)",
           ulps=64),
    Kernel(outer_broadcast, _outer, "outer product by broadcasting u[:, None] * v[None, :]"),
    Kernel(np_outer, _outer, "np.outer (not in the issue's list)"),
    Kernel(gemver_update, _gemver, "A + np.outer(u1, v1) + np.outer(u2, v2)"),
]
