"""Multi-word sums: an integer operator whose elements are the words of one
wide integer, added with carries.

    WideSum.of(ops, types, deadline) -> WideSum | None

A carry chain over k words (`w0 + a`, `w1 + b + (w0 + a < w0)`, ...) is the
sum of two (bits of all words)-bit integers, each the concatenation of its
words. Z3 finds its associativity hard (three nested applications of the
chain: a 3-word uint32 chain took ~4.5 s), but one application is an easy
bit-vector equivalence: `concat(op(x, y)) == concat(x) + concat(y)` modulo
2^bits. When that holds, the operator is the image of wide addition under
the bijection `concat`, so it is associative and commutative, and its
identity is the all-zero tuple on both sides: exactly, for every value, no
reassociation involved (the words are bit-vectors, as the tables' integer
theory).

Which element is which word is found on sample values (every order of the
elements, lowest word first; sums checked with Python integers), then
proven by one Z3 query.
"""
from __future__ import annotations

import itertools
import random

import z3

from pyhalide import ir

from .npeval import evaluate_tuple

MAX_WORDS = 4
MAX_BITS = 256
SAMPLES = 24


class WideSum:
    """A proven multi-word sum: `order[j]` is the element holding word j."""

    def __init__(self, order):
        self.order = tuple(order)

    @staticmethod
    def of(ops, types, solver):
        """The WideSum of `ops` (over x<i>/y<i>) or None; `solver()` gives
        a Z3 solver with the caller's limits (None when out of time)."""
        types = tuple(types)
        k = len(types)
        if not 2 <= k <= MAX_WORDS or not all(t.is_integer() for t in types) \
                or sum(t.bits for t in types) > MAX_BITS:
            return None
        names = {f"{p}{i}" for p in "xy" for i in range(k)}
        if any(set(ir.free_vars(o)) - names for o in ops):
            return None
        points = _points(types)
        for order in itertools.permutations(range(k)):
            if _fits(ops, types, order, points):
                s = solver()
                if s is None:
                    return None
                return WideSum(order) if _proven(ops, types, order, s) else None
        return None


def _wide(values, types, order) -> int:
    out, shift = 0, 0
    for i in order:
        out |= (int(values[i]) & ((1 << types[i].bits) - 1)) << shift
        shift += types[i].bits
    return out


def _points(types):
    rng = random.Random(20)
    out = []
    for n in range(SAMPLES):
        row = []
        for t in types:
            top = (1 << t.bits) - 1
            v = rng.choice((top, top - rng.randrange(4), rng.randrange(4))) if n % 2 else \
                rng.randrange(top + 1)
            row.append(t.wrap(v) if t.is_int() else v)
        out.append(row)
    return out


def _fits(ops, types, order, points) -> bool:
    import numpy as np
    xs, ys = points[: SAMPLES // 2], points[SAMPLES // 2:]
    env = {}
    for i, t in enumerate(types):
        env[f"x{i}"] = np.array([p[i] for p in xs], dtype=t.to_numpy())
        env[f"y{i}"] = np.array([p[i] for p in ys], dtype=t.to_numpy())
    try:
        outs = evaluate_tuple(ops, env)
    except (TypeError, ValueError, KeyError):
        return False
    bits = sum(t.bits for t in types)
    mask = (1 << bits) - 1
    for j in range(len(xs)):
        got = _wide([o[j] for o in outs], types, order)
        if got != (_wide(xs[j], types, order) + _wide(ys[j], types, order)) & mask:
            return False
    return True


def _proven(ops, types, order, s) -> bool:
    from .grammar import REAL
    from .z3model import Model
    model = Model(REAL)
    xs = [model.var(t, f"x{i}") for i, t in enumerate(types)]
    ys = [model.var(t, f"y{i}") for i, t in enumerate(types)]
    env = {**{f"x{i}": v for i, v in enumerate(xs)}, **{f"y{i}": v for i, v in enumerate(ys)}}
    outs = [model.term(o, env) for o in ops]

    def wide(vs):
        return z3.Concat(*[vs[i] for i in reversed(order)])

    s.add(wide(outs) != wide(xs) + wide(ys))
    return s.check() == z3.unsat
