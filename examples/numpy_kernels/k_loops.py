"""Array code mixed with loops: time stepping, scans and scalar loops."""
import numpy as np

from .corpus import Kernel

RNG = np.random.default_rng


def euler_oscillator(x, v, k, dt, steps):
    for _ in range(steps):
        x = x + dt * v
        v = v - dt * k * x
    return x, v


def heat_time_loop(u, r, steps):
    u = u.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[:-2] - 2 * u[1:-1] + u[2:])
    return u


def power_iteration(a, iters):
    v = np.ones(a.shape[0])
    for _ in range(iters):
        w = a @ v
        v = w / np.sqrt(w @ w)
    return v


def centered_energy(a):
    d = a - a.mean()
    s = 0.0
    for i in range(len(d)):
        s += d[i] * d[i]
    return s


def scaled_prefix(a, k):
    t = a * k + 1
    out = np.empty_like(t)
    acc = t[0] * 0
    for i in range(len(t)):
        acc += t[i]
        out[i] = acc
    return out


def threshold_count(img, lo, hi):
    m = (img >= lo) & (img < hi)
    c = 0
    for y in range(m.shape[0]):
        for x in range(m.shape[1]):
            if m[y, x]:
                c += 1
    return c


def gain_or_offset(x, use_gain, g):
    if use_gain:
        y = x * g
    else:
        y = x + g
    return y


def _osc():
    r = RNG(90)
    return [(r.standard_normal(6), r.standard_normal(6), 2.0, 0.01, 5)]


def _heat():
    return [(RNG(91).standard_normal(12), 0.2, 4)]


def _power():
    a = RNG(92).standard_normal((5, 5))
    return [(a + a.T, 6)]


def _energy():
    r = RNG(93)
    return [(r.standard_normal(25),), (r.standard_normal(9).astype(np.float32),)]


def _prefix():
    r = RNG(94)
    return [(r.integers(0, 50, 10).astype(np.int32), 3), (r.standard_normal(8), 0.5),
            (r.integers(0, 200, 12).astype(np.uint8), 2)]


def _gain():
    x = RNG(96).standard_normal(7)
    return [(x, True, 2.0), (x, False, 2.0), (x.astype(np.float32), True, 3)]


def _count():
    return [(RNG(95).integers(0, 256, (6, 7), dtype=np.uint8), 50, 200)]


KERNELS = [
    Kernel(euler_oscillator, _osc, "whole-array updates inside a time loop"),
    Kernel(heat_time_loop, _heat, "slice update inside a time loop"),
    Kernel(power_iteration, _power, "np.ones, @ and np.sqrt inside a loop", ulps=64),
    Kernel(centered_energy, _energy, "a - a.mean(), then a scalar loop over the result"),
    Kernel(scaled_prefix, _prefix, "array expression, np.empty_like, then a scan loop"),
    Kernel(threshold_count, _count, "mask (&, >=, <) then a counting loop nest"),
    Kernel(gain_or_offset, _gain, "an array value assigned in both branches of an if"),
]
