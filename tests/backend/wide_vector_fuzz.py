"""A seeded generator of element-wise Funcs of mixed types for the wide-vector
tests (test_avx512_codegen.py): each program is vectorized at 1, 2 or 4
AVX-512 vectors of its element type (or an odd lane count), over a width that
leaves a tail, and must equal the unscheduled pipeline and the reference
evaluator bit for bit (any NaN equals any NaN: IEEE leaves the sign of a NaN
result open).

    program(seed) -> Program(name, make, lanes, sizes)

The expressions mix every integer width and both float widths: conditions
compared in one type select values of another (on AVX-512 a condition is a
mask register whose lane count, not width, must match), conditions of two
types are combined with & and |, values are cast between all types (float to
integer only from a NaN-free value clamped into range: the other casts are
undefined), and integers are divided, shifted, wrapped and saturated. Inputs
hold each type's extremes, zeros, and for floats NaN, inf and -0.0. Float
min/max/clamp see no NaN and no -0.0: what they return for those is not
specified (API.md)."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

import numpy as np

import pyhalide as ph

DTYPES = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float32, np.float64)
NATIVE_BYTES = 64          # one AVX-512 vector
COMPARISONS = ("<", "<=", "==", "!=", ">", ">=")


def ph_type(dt):
    d = np.dtype(dt)
    return {"i": ph.Int, "u": ph.UInt, "f": ph.Float}[d.kind](d.itemsize * 8)


def is_float(dt) -> bool:
    return np.dtype(dt).kind == "f"


def input_data(rng, dt, shape) -> np.ndarray:
    """Random values with about 30% special ones: the type's extremes and 0;
    for floats NaN, +inf and -0.0."""
    special = rng.random(shape)
    if is_float(dt):
        a = (rng.standard_normal(shape) * 100).astype(dt)
        a[special < 0.05] = np.nan
        a[(special >= 0.05) & (special < 0.08)] = np.inf
        a[(special >= 0.08) & (special < 0.1)] = -0.0
        return a
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    a[special < 0.1] = info.min
    a[(special >= 0.1) & (special < 0.2)] = info.max
    a[(special >= 0.2) & (special < 0.3)] = 0
    return a


class _Gen:
    """Random expressions over the input Buffers `srcs` ([(Buffer, dtype)])."""

    def __init__(self, r: random.Random, srcs, x, y):
        self.r, self.srcs, self.x, self.y = r, srcs, x, y

    def const(self, dt, value):
        return ph.cast(ph_type(dt), value)

    def leaf(self, dt):
        r = self.r
        k = r.random()
        if k < 0.6:
            buf, bt = r.choice([s for s in self.srcs if s[1] == dt] or self.srcs)
            e = buf[self.x + r.randint(0, 2), self.y]
            return e if bt == dt else ph.cast(ph_type(dt), e)
        if k < 0.8:
            e = ph.cast(ph_type(dt), self.x)
            return e * 0.5 if is_float(dt) else e
        if is_float(dt):
            return self.const(dt, r.choice([0.0, -0.0, 1.5, -2.0, 1e30]))
        v = r.choice([0, 1, 2, 3, 7, -1, 127, 255, 1000])
        return self.const(dt, int(np.array(v).astype(dt)))

    def ordered(self, dt, depth):
        """An expression for float min/max/clamp: no NaN, no -0.0."""
        e = self.expr(dt, depth)
        if not is_float(dt):
            return e
        return ph.select(ph.is_nan(e), self.const(dt, 1.0), e) + self.const(dt, 0.0)

    def condition(self, depth):
        r = self.r
        t = r.choice(DTYPES)
        a, b = self.expr(t, depth), self.expr(t, depth)
        op = r.choice(COMPARISONS)
        c = {"<": a < b, "<=": a <= b, "==": a == b, "!=": a != b, ">": a > b, ">=": a >= b}[op]
        if r.random() < 0.3:               # combined with a condition of another type
            t2 = r.choice(DTYPES)
            d = self.leaf(t2) < self.leaf(t2)
            c = c & d if r.random() < 0.5 else c | ph.logical_not(d)
        return c

    def cast_from_other(self, dt, depth):
        src = self.r.choice(DTYPES)
        e = self.expr(src, depth)
        if is_float(dt) or not is_float(src):
            return ph.cast(ph_type(dt), e)
        # float -> integer is defined only in range: clamp a NaN-free value
        info = np.iinfo(dt)
        lo, hi = max(info.min, -2**52), min(info.max, 2**52)
        top = np.array(hi, dtype=src)
        if int(top) > hi:                  # rounded up past the range (float32)
            top = np.nextafter(top, np.array(0, dtype=src))
        e = ph.select(ph.is_nan(e), self.const(src, 0), e)
        return ph.cast(ph_type(dt), ph.clamp(e, float(lo), float(top)))

    def expr(self, dt, depth):
        r = self.r
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(dt)
        sub = depth - 1
        k = r.random()
        if k < 0.12:
            return self.expr(dt, sub) + self.expr(dt, sub)
        if k < 0.2:
            return self.expr(dt, sub) - self.expr(dt, sub)
        if k < 0.28:
            return self.expr(dt, sub) * self.expr(dt, sub)
        if k < 0.36:
            fn = ph.min if r.random() < 0.5 else ph.max
            return fn(self.ordered(dt, sub), self.ordered(dt, sub))
        if k < 0.5:
            return ph.select(self.condition(depth - 2), self.expr(dt, sub), self.expr(dt, sub))
        if k < 0.58:
            return self.cast_from_other(dt, sub)
        if k < 0.66:
            if is_float(dt):
                return self.expr(dt, sub) / self.expr(dt, sub)
            d = r.choice([1, 2, 3, 5, 7, 16, 255] + ([-3] if np.dtype(dt).kind == "i" else []))
            d = self.const(dt, int(np.array(d).astype(dt)))
            return self.expr(dt, sub) / d if r.random() < 0.5 else self.expr(dt, sub) % d
        if k < 0.74 and not is_float(dt):
            s = r.randint(0, np.dtype(dt).itemsize * 8 - 1)
            e = self.expr(dt, sub)
            return e << s if r.random() < 0.5 else e >> s
        if k < 0.8 and not is_float(dt):
            a, b = self.expr(dt, sub), self.expr(dt, sub)
            return r.choice([lambda: a & b, lambda: a | b, lambda: a ^ b])()
        if k < 0.86:
            if is_float(dt):
                e = self.expr(dt, sub)
                return ph.sqrt(e) if r.random() < 0.5 else ph.floor(e)
            fn = ph.saturating_add if r.random() < 0.5 else ph.saturating_sub
            return fn(self.expr(dt, sub), self.expr(dt, sub))
        if k < 0.92:
            return ph.cast(ph_type(dt), ph.abs(self.expr(dt, sub)))
        lo, hi = (-1.5, 2.5) if is_float(dt) else (3, 100)
        return ph.clamp(self.ordered(dt, sub), self.const(dt, lo), self.const(dt, hi))


@dataclass
class Program:
    name: str
    make: Callable          # () -> a fresh Func (the same program every call)
    lanes: int
    sizes: list             # [width, height]
    dtype: type


def program(seed: int) -> Program:
    """The seed's program: output type, lane count, width and expression."""
    r = random.Random(seed)
    rng = np.random.default_rng(seed)
    dt = r.choice(DTYPES)
    lanes = NATIVE_BYTES // np.dtype(dt).itemsize * r.choice([1, 1, 2, 4])
    if r.random() < 0.2:
        lanes = r.choice([2, 4, 8, 16, 32, 64, 128])
    width = lanes * r.choice([1, 2, 3]) + r.choice([0, 1, 5])
    height = 2
    x, y = ph.Var("x"), ph.Var("y")
    srcs = [(ph.Buffer(input_data(rng, t, (height, width + 2)), f"w{seed}_in{i}"), t)
            for i, t in enumerate(r.sample(DTYPES, 3) + [dt])]
    depth = r.randint(2, 4)
    state = r.getstate()
    name = f"wide{seed}"

    def make():
        r.setstate(state)
        f = ph.Func(name)
        f[x, y] = _Gen(r, srcs, x, y).expr(dt, depth)
        return f
    return Program(name, make, lanes, [width, height], dt)
