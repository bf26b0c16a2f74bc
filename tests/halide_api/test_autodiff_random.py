"""hl.propagate_adjoints on random two-stage programs (arithmetic, math
functions, select/min/max/clamp, reads at offsets, a strided read, and one
of: no update, an accumulating update over an RDom, a scaling update, a
histogram-like update): the derivatives equal Halide 21's, and, in float64
for programs without kinks (min, max, select, clamp), the finite
differences of the same program under pyhalide."""
from __future__ import annotations

import random

import numpy as np
import pytest

import pyhalide as ph

hl = pytest.importorskip("halide")

N = 8
OPS = ["+", "-", "*", "/", "min", "max", "sel", "exp", "sin", "sqrt", "log", "pow", "tanh",
       "clamp"]
KINKS = ("min", "max", "sel", "clamp")


def tree(rng, depth: int, leaves: list):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(leaves)
    op = rng.choice(OPS)
    kids = 1 if op in ("exp", "sin", "sqrt", "log", "tanh", "clamp") else 3 if op == "sel" else 2
    return (op,) + tuple(tree(rng, depth - 1, leaves) for _ in range(kids))


def build(m, t, env: dict, c):
    """The Expr of tree t; leaves from env, constants made by c."""
    if isinstance(t, str):
        return env[t]() * c(1.0)
    op, args = t[0], [build(m, a, env, c) for a in t[1:]]
    a = args[0]
    unary = {"exp": lambda: m.exp(a * c(0.3)), "sin": lambda: m.sin(a),
             "sqrt": lambda: m.sqrt(a * a + c(0.5)), "log": lambda: m.log(a * a + c(1.0)),
             "tanh": lambda: m.tanh(a), "clamp": lambda: m.clamp(a, c(-0.7), c(0.8))}
    if op in unary:
        return unary[op]()
    b = args[1]
    binary = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
              "/": lambda: a / (b * b + c(1.0)), "min": lambda: m.min(a, b),
              "max": lambda: m.max(a, b), "pow": lambda: m.pow(a * a + c(0.5), b * c(0.5)),
              "sel": lambda: m.select(a > b, b, args[2])}
    return binary[op]()


def program(m, seed: int, data: dict, bits: int):
    """(derivatives by label, the loss Func, its Buffers, description)."""
    rng = random.Random(seed)

    def c(v):
        return m.f32(v) if bits == 32 else m.f64(v)
    x = m.Var("x")
    bufs = {}
    for name in ("b", "w"):
        bufs[name] = m.Buffer(m.Float(bits), [N])
        for i in range(N):
            bufs[name][i] = float(data[name][i])
    cb = m.BoundaryConditions.constant_exterior(bufs["b"], 0.0)
    t1 = tree(rng, 3, ["b0", "bm", "bp", "w0"])
    f = m.Func("f")
    f[x] = build(m, t1, {"b0": lambda: cb[x], "bm": lambda: cb[x - 1], "bp": lambda: cb[x + 1],
                         "w0": lambda: bufs["w"][m.clamp(x, 0, N - 1)]}, c)
    update = rng.choice([0, 0, 1, 2, 3])
    r0 = m.RDom([(1, 3)])
    if update == 1:
        f[x] = f[x] + cb[x + r0.x] * c(0.5)
    elif update == 2:
        f[x] = f[x] * c(1.5) + cb[x]
    elif update == 3:
        f[m.clamp(m.i32(cb[r0.x] * c(4.0)) + 4, 0, N - 1)] += bufs["w"][r0.x] * cb[r0.x]
    t2 = tree(rng, 3, ["f0", "fp", "f2", "b0"])
    g = m.Func("g")
    g[x] = build(m, t2, {"f0": lambda: f[x], "fp": lambda: f[x + 1], "f2": lambda: f[2 * x],
                         "b0": lambda: cb[x]}, c)
    r = m.RDom([(0, N // 2)])
    loss = m.Func("loss")
    loss[()] = c(0)
    loss[()] += g[r.x] * g[r.x] + f[r.x + 1]
    d = m.propagate_adjoints(loss)
    out = {}
    for label, key, n in (("b", bufs["b"], N), ("w", bufs["w"], N), ("f", f, N + 2)):
        try:
            adjoint = d[key]
            adjoint.dimensions()
        except Exception:             # not read by the loss (Halide: an undefined Func)
            continue
        buf = adjoint.realize([n])
        out[label] = np.array([float(buf[i]) for i in range(n)])
    return out, loss, bufs, repr((t1, update, t2))


def finite_differences(loss, buf, h: float = 1e-6) -> np.ndarray:
    out = []
    for i in range(N):
        v = float(buf[i])
        buf[i] = v + h
        hi = float(loss.realize()[()])
        buf[i] = v - h
        lo = float(loss.realize()[()])
        buf[i] = v
        out.append((hi - lo) / (2 * h))
    return np.array(out)


@pytest.mark.parametrize("seed", [0] + [pytest.param(s, marks=pytest.mark.slow)
                                         for s in (21, 28, 38)])
def test_random_program(seed):
    rs = np.random.default_rng(seed)
    data = {"b": rs.random(N) * 2 - 1, "w": rs.random(N) * 2 - 1}
    got, _, _, desc = program(ph, seed, data, 32)
    want, _, _, _ = program(hl, seed, data, 32)
    assert got.keys() == want.keys(), desc
    for label in got:
        np.testing.assert_allclose(got[label], want[label], rtol=1e-4, atol=1e-4,
                                   err_msg=f"{label} {desc}")
    if any(k in desc for k in KINKS):
        return
    got64, loss, bufs, _ = program(ph, seed, data, 64)
    for label in ("b", "w"):
        if label in got64:
            np.testing.assert_allclose(got64[label], finite_differences(loss, bufs[label]),
                                       rtol=1e-5, atol=1e-6, err_msg=f"{label} {desc}")
