"""Deterministic random inputs for fingerprints and the random associativity
filter.

The inputs are `n` triples (a, b, c) of tuples plus a constant k per triple.
The fingerprint points (where every enumerated expression is evaluated) start
with the points (x=a, y=b, k) and (x=b, y=c, k), so `f(a, b)` and `f(b, c)` of
any candidate operator are read off its fingerprint; more points follow. Values
mix small numbers, the type's extremes and uniform draws, and are often equal to
each other so that `<` and `<=` (and other tie-sensitive forms) differ.
Floats are drawn as small integers (see npeval: floats are evaluated exactly).
"""
from __future__ import annotations

import itertools
import zlib
from dataclasses import dataclass

import numpy as np

from pyhalide import ir

from .grammar import leaf_names

N_TRIPLES = 64
N_EXTRA = 64
N_STRONG = 4096           # triples of the second, stronger filter stage
FLOAT_RANGE = 12          # float samples are integers in [-FLOAT_RANGE, FLOAT_RANGE]


def storage_dtype(t: ir.Type) -> np.dtype:
    """The dtype that holds fingerprint values of type `t` (exact int64 for floats)."""
    return np.dtype(np.int64) if t.is_float() else t.to_numpy()


def _draw(rng, t: ir.Type, n: int) -> np.ndarray:
    if t.is_bool():
        return rng.integers(0, 2, n).astype(bool)
    if t.is_float():
        small = rng.integers(-3, 4, n)
        wide = rng.integers(-FLOAT_RANGE, FLOAT_RANGE + 1, n)
        return np.where(rng.random(n) < 0.5, small, wide).astype(np.int64)
    lo, hi = t.min_value(), t.max_value()
    specials = np.array([v for v in (lo, lo + 1, hi - 1, hi, 0, 1, -1, 2) if lo <= v <= hi],
                        dtype=object)
    small = rng.integers(max(lo, -3), min(hi, 6) + 1, n).astype(object)
    uniform = np.array([int(v) for v in rng.integers(0, 1 << t.bits, n, dtype=np.uint64)],
                       dtype=object)
    uniform = np.array([t.wrap(v) for v in uniform], dtype=object)
    pick = rng.random(n)
    out = np.where(pick < 0.35, small,
                   np.where(pick < 0.55, specials[rng.integers(0, len(specials), n)], uniform))
    return out.astype(t.to_numpy())


def _tie(rng, dst: np.ndarray, src: np.ndarray, p: float) -> np.ndarray:
    """Copy `src` into `dst` at a random fraction `p` of positions."""
    return np.where(rng.random(len(dst)) < p, src, dst)


@dataclass
class Samples:
    t: ir.Type
    size: int
    seed: int
    a: list            # per tuple element, arrays of N_TRIPLES
    b: list
    c: list
    k: np.ndarray
    points: dict       # leaf name -> array of fingerprint inputs

    @property
    def n_triples(self) -> int:
        return len(self.k)

    @property
    def n_points(self) -> int:
        return len(self.points["k0"])


def type_seed(t: ir.Type, size: int, seed: int, n_triples: int) -> int:
    """A stable per-input-set seed (independent of Python's hash salt)."""
    return zlib.crc32(f"{t}/{size}/{seed}/{n_triples}".encode())


def make_samples(t: ir.Type, size: int, seed: int = 0, n_triples: int = N_TRIPLES) -> Samples:
    """The inputs for type `t` and tuple size `size`; `n_triples` (default
    N_TRIPLES, the fingerprint set) may be raised for a stronger filter."""
    rng = np.random.default_rng(type_seed(t, size, seed, n_triples))
    n = n_triples
    a = [_draw(rng, t, n) for _ in range(size)]
    b = [_tie(rng, _draw(rng, t, n), a[i], 0.25) for i in range(size)]
    c = [_tie(rng, _draw(rng, t, n), b[i], 0.2) for i in range(size)]
    k = _tie(rng, _draw(rng, t, n), a[0], 0.1)
    names = leaf_names(size)
    cols = {name: [] for name in names}
    for i in range(size):
        cols[f"x{i}"] += [a[i], b[i]]
        cols[f"y{i}"] += [b[i], c[i]]
    cols["k0"] += [k, k]
    extra = {name: _draw(rng, t, N_EXTRA) for name in names}
    for i in range(size):
        extra[f"y{i}"] = _tie(rng, extra[f"y{i}"], extra[f"x{i}"], 0.3)
    extra["k0"] = _tie(rng, extra["k0"], extra["y0"], 0.2)
    for name in names:
        cols[name].append(extra[name])
    if t.is_bool():
        # every combination of the leaves, so that bool fingerprints are complete
        combos = np.array(list(itertools.product([False, True], repeat=len(names))), bool)
        for j, name in enumerate(names):
            cols[name].append(combos[:, j])
    dt = storage_dtype(t)
    points = {name: np.concatenate(cols[name]).astype(dt) for name in names}
    return Samples(t, size, seed, a, b, c, k, points)
