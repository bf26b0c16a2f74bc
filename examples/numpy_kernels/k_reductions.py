"""Reductions, normalization, scans and histograms."""
import numpy as np

from .corpus import Kernel

RNG = np.random.default_rng


def row_normalize(x):
    return x / x.sum(axis=1, keepdims=True)


def standardize(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def accuracy(logits, labels):
    return np.mean(np.argmax(logits, axis=1) == labels)


def sample_variance(x):
    return np.var(x, ddof=1), np.std(x, ddof=1)


def moving_average(x, w):
    c = np.cumsum(x)
    return (c[w:] - c[:-w]) / w


def histogram_add_at(x, nbins):
    idx = np.clip((x * nbins).astype(np.int64), 0, nbins - 1)
    h = np.zeros(nbins, dtype=np.int64)
    np.add.at(h, idx, 1)
    return h


def weighted_mean(x, w):
    return np.average(x, weights=w)


def sanity_flags(x):
    return np.all(x >= 0), np.any(x > 10)


def minmax_scale(x):
    lo = x.min()
    hi = x.max()
    return (x - lo) / (hi - lo)


def image_sum(img):
    return img.sum(), img.sum(axis=0), img.max(axis=1)


def column_argmin(x):
    return np.argmin(x, axis=0)


def rms(x):
    return np.sqrt(np.mean(x * x))


def covariance(data):
    n = data.shape[0]
    mean = data.mean(axis=0)
    d = data - mean
    return d.T @ d / (n - 1)


def _positive_2d():
    r = RNG(40)
    return [(r.uniform(0.1, 2, (5, 7)),), (r.integers(1, 9, (4, 3)).astype(np.int32),)]


def _normal_2d():
    r = RNG(41)
    return [(r.standard_normal((6, 5)),), (r.standard_normal((9, 4)).astype(np.float32),)]


def _normal_1d():
    r = RNG(42)
    return [(r.standard_normal(300),), (r.standard_normal(40).astype(np.float32),),
            (r.integers(-9, 9, 20),)]


def _accuracy():
    r = RNG(43)
    return [(r.standard_normal((12, 4)), r.integers(0, 4, 12))]


def _moving():
    r = RNG(44)
    return [(r.standard_normal(30), 4), (r.integers(0, 100, 20).astype(np.int32), 3)]


def _hist():
    r = RNG(45)
    return [(r.uniform(0, 1, 200), 16), (r.uniform(0, 1, 50).astype(np.float32), 5)]


def _weighted():
    r = RNG(46)
    return [(r.standard_normal(20), r.uniform(0, 1, 20))]


def _flags():
    return [(np.arange(-2, 20, dtype=np.int16),), (np.arange(0.0, 5.0, 0.5),)]


def _image():
    return [(RNG(47).integers(0, 256, (6, 9), dtype=np.uint8),)]


def _covariance():
    return [(RNG(48).standard_normal((10, 4)),)]


KERNELS = [
    Kernel(row_normalize, _positive_2d, "x.sum(axis=1, keepdims=True), broadcasting division"),
    Kernel(standardize, _normal_2d, "mean/std over axis 0 (NumPy's summation order)"),
    Kernel(softmax, _normal_2d, "max/sum with axis=-1, keepdims; np.exp", ulps=16),
    Kernel(logsumexp, _normal_1d, "np.max, np.sum of np.exp, np.log", ulps=16),
    Kernel(accuracy, _accuracy, "np.argmax(axis=1) == labels, np.mean of bool"),
    Kernel(sample_variance, _normal_1d, "np.var/np.std with ddof=1"),
    Kernel(moving_average, _moving, "np.cumsum, then slices c[w:] - c[:-w]"),
    Kernel(histogram_add_at, _hist, "astype(int64), np.clip, np.zeros, np.add.at"),
    Kernel(weighted_mean, _weighted, "np.average with weights"),
    Kernel(sanity_flags, _flags, "np.all / np.any of comparisons"),
    Kernel(minmax_scale, _normal_2d, "x.min(), x.max(), scalar broadcasting"),
    Kernel(image_sum, _image, "uint8 .sum() is uint64; sum(axis=0), max(axis=1)"),
    Kernel(column_argmin, _normal_2d, "np.argmin(axis=0)"),
    Kernel(rms, _normal_1d, "np.sqrt(np.mean(x * x))"),
    Kernel(covariance, _covariance, "mean(axis=0), .T, @, / (n - 1)", ulps=32),
]
