"""Element-wise kernels: arithmetic, casts, bit operations, ufuncs."""
import numpy as np

from .corpus import Kernel

RNG = np.random.default_rng


def saxpy(a, x, y):
    return a * x + y


def fahrenheit(c):
    return c * 9 / 5 + 32


def horner(x, c0, c1, c2, c3):
    return ((c3 * x + c2) * x + c1) * x + c0


def gray_planes(r, g, b):
    return 0.299 * r + 0.587 * g + 0.114 * b


def alpha_blend(fg, bg, alpha):
    return (alpha * fg + (255 - alpha) * bg) // 255


def pack_nibbles(hi, lo):
    return (hi << 4) | (lo & 15)


def xorshift(x):
    h = x ^ (x << 13)
    h = h ^ (h >> 7)
    h = h ^ (h << 17)
    return h


def clip_affine(a, b, x, y, z):
    return np.clip(a, 2, 10) * x + b * y + z


def normalize_uint8(img):
    return img.astype(np.float32) / 255.0 - 0.5


def leaky_relu(x):
    return np.where(x > 0, x, 0.01 * x)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x ** 3)))


def gamma_correct(img, gamma):
    return (img / 255.0) ** gamma


def black_scholes(price, strike, t, rate, vol):
    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 + k * (
            -1.821255978 + k * 1.330274429))))
        w = 1.0 - 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
        return np.where(d < 0, 1.0 - w, w)

    sqt = np.sqrt(t)
    d1 = (np.log(price / strike) + (rate + 0.5 * vol * vol) * t) / (vol * sqt)
    d2 = d1 - vol * sqt
    disc = strike * np.exp(-rate * t)
    call = price * cnd(d1) - disc * cnd(d2)
    put = disc * cnd(-d2) - price * cnd(-d1)
    return call, put


def haversine(lat1, lon1, lat2, lon2):
    dlat = np.radians(lat2 - lat1)
    dlon = np.radians(lon2 - lon1)
    a = np.sin(dlat / 2) ** 2 + np.cos(np.radians(lat1)) * np.cos(np.radians(lat2)) * \
        np.sin(dlon / 2) ** 2
    return 6371.0 * 2 * np.arcsin(np.sqrt(a))


def polar(x, y):
    r = np.hypot(x, y)
    theta = np.arctan2(y, x)
    return r, theta


def safe_ratio(num, den):
    return np.where(den != 0, num / den, 0.0)


def _saxpy():
    r = RNG(1)
    return [(np.float32(2.5), r.standard_normal(33).astype(np.float32),
             r.standard_normal(33).astype(np.float32)),
            (3, r.standard_normal((4, 5)), r.standard_normal(5))]


def _fahrenheit():
    return [(np.arange(-40, 40, 7, dtype=np.int16),), (np.linspace(-5, 5, 11).astype(np.float32),)]


def _horner():
    x = RNG(2).standard_normal(20)
    return [(x, 1.0, -2.0, 0.5, 3.0), (x.astype(np.float32), 1, 2, 3, 4),
            (np.arange(10, dtype=np.int32), 1, 2, 3, 4)]


def _gray():
    r = RNG(3)
    return [tuple(r.integers(0, 256, (6, 7), dtype=np.uint8) for _ in range(3))]


def _blend():
    r = RNG(4)
    return [(r.integers(0, 256, (5, 8)).astype(np.uint16), r.integers(0, 256, (5, 8)).astype(np.uint16),
             r.integers(0, 256, (5, 1)).astype(np.uint16)),
            (r.integers(0, 256, 9).astype(np.int32), r.integers(0, 256, 9).astype(np.int32), 100)]


def _nibbles():
    r = RNG(5)
    return [(r.integers(0, 16, 12, dtype=np.uint8), r.integers(0, 256, 12, dtype=np.uint8))]


def _xorshift():
    r = RNG(6)
    return [(r.integers(1, 2**32, 16, dtype=np.uint64).astype(np.uint32),),
            (r.integers(1, 2**62, 16, dtype=np.uint64),)]


def _clip_affine():
    r = RNG(7)
    return [(r.integers(0, 12, (4, 6)), r.integers(0, 12, (4, 6)), 4, 3, 2),
            (r.integers(0, 12, 7).astype(np.int32), r.integers(0, 12, 7).astype(np.int32), 4, 3, 2)]


def _uint8():
    return [(RNG(8).integers(0, 256, (5, 6), dtype=np.uint8),)]


def _signed():
    x = RNG(9).standard_normal(25) * 4
    return [(x,), (x.astype(np.float32),)]


def _gamma():
    return [(RNG(10).integers(0, 256, (4, 4), dtype=np.uint8), 2.2)]


def _black_scholes():
    r = RNG(11)
    n = 16
    return [(r.uniform(10, 50, n), r.uniform(10, 50, n), r.uniform(0.1, 2, n), 0.05, 0.3)]


def _haversine():
    r = RNG(12)
    return [tuple(r.uniform(-80, 80, 10) for _ in range(4))]


def _polar():
    r = RNG(13)
    return [(r.standard_normal(12), r.standard_normal(12)),
            (r.standard_normal(5).astype(np.float32), r.standard_normal(5).astype(np.float32))]


def _ratio():
    r = RNG(14)
    return [(r.standard_normal(10), r.integers(-2, 3, 10).astype(np.float64))]


KERNELS = [
    Kernel(saxpy, _saxpy, "scalar * array + array, broadcasting a row"),
    Kernel(fahrenheit, _fahrenheit, "int16 array / Python int is float64; weak scalars"),
    Kernel(horner, _horner, "Horner polynomial with Python scalar coefficients"),
    Kernel(gray_planes, _gray, "uint8 planes times Python floats (float64 result)"),
    Kernel(alpha_blend, _blend, "uint16/int32 arithmetic and //, a (5,1) alpha broadcast"),
    Kernel(pack_nibbles, _nibbles, "uint8 << | &"),
    Kernel(xorshift, _xorshift, "uint32/uint64 xorshift hash: ^ << >> on arrays"),
    Kernel(clip_affine, _clip_affine, "np.clip, int64 arithmetic (npbench 'compute')"),
    Kernel(normalize_uint8, _uint8, ".astype(np.float32), float32 / Python float"),
    Kernel(leaky_relu, _signed, "np.where with a comparison"),
    Kernel(sigmoid, _signed, "np.exp, unary minus", ulps=8),
    Kernel(gelu_tanh, _signed, "np.tanh, ** 3", ulps=8),
    Kernel(gamma_correct, _gamma, "uint8 / float, ** with a float exponent", ulps=8),
    Kernel(black_scholes, _black_scholes, "np.log/exp/sqrt/abs/where, a local helper function",
           ulps=64),
    Kernel(haversine, _haversine, "np.radians, np.sin/cos, np.arcsin", ulps=64),
    Kernel(polar, _polar, "np.hypot, np.arctan2, tuple of arrays", ulps=4),
    Kernel(safe_ratio, _ratio, "np.where guarding a division (inf/nan where not chosen)"),
]
