"""The vector states of a whole-array float min/max/argmin (reduce_blocks:
one vector of lanes per block, its update inside a loop of one iteration
after vectorization) live in registers: promote_accumulators gives them a
scratch copy outside the chunk loop (a one-iteration loop's Var is its min).
Values against NumPy bit for bit, NaN and ±0 ties included."""
from __future__ import annotations

import re

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite4_kernels as K


def test_lanes_states_promoted():
    p = ph.pipeline(K.amax)
    a = np.random.default_rng(0).standard_normal((64, 100))
    assert p(a) == a.max()
    text = p.lower("final")
    # (the Funcs' names take a $n suffix when other pipelines of the process made them)
    for state in (0, 1):
        assert re.search(rf"max_lanes(\$\d+)?\.{state}\.acc", text), text


@pytest.mark.parametrize("fn", [K.amax, K.argmin])
@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (40, 33), (129, 64), (7, 300)])
def test_special_values_bit_for_bit(fn, shape):
    p = ph.pipeline(fn)
    rng = np.random.default_rng(sum(shape))
    for trial in range(6):
        a = rng.standard_normal(shape)
        n = a.size
        if trial >= 1:                     # signed zeros, tied at the extreme
            a = np.where(rng.random(shape) < 0.5, 0.0, -0.0) * (trial != 5) + \
                (np.where(rng.random(shape) < 0.5, -1.0, 1.0) if trial == 5 else 0.0)
        if trial >= 2:                     # NaNs with distinct payloads
            flat = a.reshape(-1)
            for k in rng.choice(n, size=min(3, n), replace=False):
                flat[k] = np.frombuffer(np.uint64(0x7FF8000000000000 + int(k) + 1).tobytes(),
                                        np.float64)[0]
        if trial == 3:
            a = np.where(np.isnan(a), a, -np.inf)
        got, want = p(a), fn(a)
        if fn is K.argmin:
            assert int(got) == int(want), (shape, trial)
        else:
            # the serial loop's value: the first NaN, else the last element
            # equal to the greatest (its zero sign included)
            flat = a.reshape(-1)
            nans = np.flatnonzero(np.isnan(flat))
            if nans.size:
                ref = flat[nans[0]]
            else:
                ref = flat[np.flatnonzero(flat == flat.max())[-1]]
            assert np.float64(got).tobytes() == np.float64(ref).tobytes(), (shape, trial)


@ph.pipeline
def _argmax_and_min(a):
    return np.argmax(a), np.min(a)


_ARGMIN, _AMAX = ph.pipeline(K.argmin), ph.pipeline(K.amax)


@pytest.mark.parametrize("shape", [(3, 5), (1, 40), (2, 16), (17, 33), (300,), (8, 2, 9)])
def test_infinite_extremes_and_lane_positions(shape):
    """name_lanes keeps a chunk's position (the lane added when the lanes
    are merged): lanes that never take an element (no whole chunk in their
    block) hold the identity, an infinity, which ties with infinite
    elements; argmin/argmax still give the first position, min/max the
    serial loop's element."""
    rng = np.random.default_rng(len(shape) * 100 + shape[-1])
    n = int(np.prod(shape))
    cases = [np.full(n, np.inf), np.full(n, -np.inf), rng.choice([np.inf, -np.inf, 0.0, -0.0], n),
             np.where(rng.random(n) < 0.9, np.inf, rng.standard_normal(n))]
    for flat in cases:
        a = flat.reshape(shape)
        assert int(_ARGMIN(a)) == int(np.argmin(a))
        arg, low = _argmax_and_min(a)
        assert int(arg) == int(np.argmax(a))
        for got, fn in ((_AMAX(a), np.max), (low, np.min)):
            f = a.reshape(-1)
            ref = f[np.flatnonzero(f == fn(f))[-1]]
            assert np.float64(got).tobytes() == np.float64(ref).tobytes(), (shape, fn)
