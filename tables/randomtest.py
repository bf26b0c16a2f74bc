"""The random associativity filter: f(f(a,b),c) == f(a,f(b,c)) on the sample
triples, evaluated with NumPy (integers wrap; floats are exact, see npeval)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from pyhalide import ir

from .npeval import evaluate_tuple
from .samples import N_STRONG, Samples, make_samples


def _exact(arrays: list, types) -> list:
    """Float samples as Python ints (object arrays), so nothing can overflow."""
    return [a.astype(object) if t.is_float() else a for a, t in zip(arrays, types)]


def _env(xs, ys, k) -> dict:
    env = {"k0": k}
    for i, (x, y) in enumerate(zip(xs, ys)):
        env[f"x{i}"], env[f"y{i}"] = x, y
    return env


def random_associative(ops, types, samples: Samples) -> bool:
    """Whether `ops` (over x0.., y0.., k0) is associative on every sample triple."""
    a, b, c = (_exact(v, types) for v in (samples.a, samples.b, samples.c))
    k = _exact([samples.k], types[:1])[0]

    def f(xs, ys):
        return evaluate_tuple(ops, _env(xs, ys, k))

    lhs = f(f(a, b), c)
    rhs = f(a, f(b, c))
    return all(np.array_equal(u, v) for u, v in zip(lhs, rhs))


@lru_cache(maxsize=None)
def _strong_samples(t: ir.Type, size: int, seed: int) -> Samples:
    return make_samples(t, size, seed, N_STRONG)


def passes_filter(ops, types, samples: Samples) -> bool:
    """The random filter: the fingerprint triples first, then N_STRONG more."""
    return (random_associative(ops, types, samples)
            and random_associative(ops, types,
                                   _strong_samples(samples.t, samples.size, samples.seed)))
