"""Creation and assembly: grids, aranges, tiles, concatenations."""
import numpy as np

from .corpus import Kernel

RNG = np.random.default_rng


def wave_grid(n, m):
    x = np.linspace(0.0, 1.0, m)
    y = np.linspace(-1.0, 1.0, n)
    return np.sin(3.0 * x[None, :]) * np.cos(2.0 * y[:, None])


def sampled_cosine(n, dt, w):
    t = np.arange(n) * dt
    return np.cos(w * t)


def ramp_image(h, w):
    yy = np.arange(h).reshape(h, 1)
    xx = np.arange(w).reshape(1, w)
    return (xx + 2 * yy) % 7


def mirror_pad(a):
    return np.concatenate((a[::-1], a, a[::-1]))


def tile_rows(row, k):
    return np.tile(row, (k, 1))


def coords(h, w):
    ys = np.arange(h, dtype=np.float32)[:, None] * np.ones((1, w), dtype=np.float32)
    xs = np.ones((h, 1), dtype=np.float32) * np.arange(w, dtype=np.float32)[None, :]
    return np.stack([ys, xs], axis=-1)


def meshgrid_radius(n):
    x = np.linspace(-1, 1, n)
    xx, yy = np.meshgrid(x, x)
    return np.sqrt(xx ** 2 + yy ** 2)


def literal_weights(a):
    w = np.array([0.25, 0.5, 0.25])
    return w[0] * a[:-2] + w[1] * a[1:-1] + w[2] * a[2:]


def fill_border(a, v):
    out = np.full(a.shape, v, dtype=a.dtype)
    out[1:-1, 1:-1] = a[1:-1, 1:-1]
    return out


def _grid():
    return [(5, 7), (1, 3)]


def _cos():
    return [(12, 0.1, 2.0)]


def _ramp():
    return [(4, 6)]


def _pad():
    r = RNG(70)
    return [(r.standard_normal(5),), (np.arange(4, dtype=np.uint8),)]


def _tile():
    return [(np.arange(5, dtype=np.int16), 3), (RNG(71).standard_normal(4), 2)]


def _coords():
    return [(3, 4)]


def _mesh():
    return [(6,)]


def _weights():
    return [(RNG(72).standard_normal(10),)]


def _border():
    r = RNG(73)
    return [(r.standard_normal((5, 6)), -1.0), (r.integers(0, 9, (4, 4)).astype(np.uint8), 255)]


KERNELS = [
    Kernel(wave_grid, _grid, "np.linspace, x[None, :] * y[:, None], sin/cos", ulps=8),
    Kernel(sampled_cosine, _cos, "np.arange(n) * dt, np.cos", ulps=8),
    Kernel(ramp_image, _ramp, "np.arange(...).reshape, broadcasting, %"),
    Kernel(mirror_pad, _pad, "np.concatenate of reversed slices"),
    Kernel(tile_rows, _tile, "np.tile(row, (k, 1))"),
    Kernel(coords, _coords, "arange/ones with dtype, np.stack(axis=-1)"),
    Kernel(meshgrid_radius, _mesh, "np.meshgrid (not in the issue's list)"),
    Kernel(literal_weights, _weights, "np.array of a literal list, indexing it, slices"),
    Kernel(fill_border, _border, "np.full(a.shape, v, dtype=a.dtype), slice assignment"),
]
