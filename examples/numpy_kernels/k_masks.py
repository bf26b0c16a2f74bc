"""Boolean masks, gathers and in-place updates."""
import numpy as np

from .corpus import Kernel

RNG = np.random.default_rng


def clamp_negative(a):
    b = a.copy()
    b[b < 0] = 0
    return b


def threshold(img, t):
    out = np.zeros_like(img)
    out[img > t] = 255
    return out


def replace_nan_inplace(x):
    x[np.isnan(x)] = 0.0
    return x


def positive_sum(x):
    return x[x > 0].sum()


def lut_gather(img, lut):
    return lut[img]


def masked_copy(a, b):
    out = a.copy()
    m = b > a
    out[m] = b[m]
    return out


def mandelbrot_where(cr, ci, maxit):
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    count = np.zeros(cr.shape, dtype=np.int32)
    for _ in range(maxit):
        inside = zr * zr + zi * zi <= 4.0
        zr, zi = (np.where(inside, zr * zr - zi * zi + cr, zr),
                  np.where(inside, 2.0 * zr * zi + ci, zi))
        count = count + inside
    return count


def _signed():
    r = RNG(80)
    return [(r.standard_normal((4, 5)),), (r.integers(-9, 9, 10).astype(np.int16),)]


def _threshold():
    return [(RNG(81).integers(0, 256, (5, 5), dtype=np.uint8), 128)]


def _nan():
    x = RNG(82).standard_normal(10)
    x[[1, 4, 7]] = np.nan
    return [(x,)]


def _lut():
    r = RNG(83)
    return [(r.integers(0, 16, (4, 6)), r.standard_normal(16)),
            (r.integers(0, 256, (3, 3), dtype=np.uint8), np.arange(256, dtype=np.uint8)[::-1].copy())]


def _pair():
    r = RNG(84)
    return [(r.standard_normal(12), r.standard_normal(12))]


def _mandel():
    re = np.linspace(-2.0, 0.5, 9)
    im = np.linspace(-1.2, 1.2, 7)
    return [(re[None, :] + 0 * im[:, None], im[:, None] + 0 * re[None, :], 20)]


KERNELS = [
    Kernel(clamp_negative, _signed, "copy, b[b < 0] = 0 (mask assignment)"),
    Kernel(threshold, _threshold, "np.zeros_like, out[img > t] = 255"),
    Kernel(replace_nan_inplace, _nan, "x[np.isnan(x)] = 0.0 writing into the argument"),
    Kernel(positive_sum, _signed, "x[x > 0].sum(): boolean-mask read (data-dependent size)"),
    Kernel(lut_gather, _lut, "lut[img]: integer-array gather"),
    Kernel(masked_copy, _pair, "m = b > a; out[m] = b[m]"),
    Kernel(mandelbrot_where, _mandel, "escape-time iteration with np.where on real and imaginary parts in a loop"),
]
