"""Helpers for the back-end tests: build small Stmts by hand and run them;
the saxpy kernel of the cache tests; a realize with every in-memory cache
emptied; the bytes malloc has handed out."""
from __future__ import annotations

import ctypes

import numpy as np

from pyhalide import ir
from pyhalide import realize as realize_mod
from pyhalide.lowering import jit
from pyhalide.lowering.jit import JitOptions, compile_pipeline
from pyhalide.lowering.runtime import BufferArg

I32 = ir.Int(32)
F32 = ir.Float(32)


def var(name, t=I32, kind=""):
    return ir.Variable(t, name, kind)


def c(t, v):
    """A constant of type t (a Broadcast when t is a vector type)."""
    return ir.const(t, v)


def i32(v):
    return ir.Const(I32, v)


def geom(buf, what, d=0):
    return ir.Variable(I32, f"{buf}.{what}.{d}", "param")


def compile_kernel(stmt, bufs, params=(), name="k", **options):
    """bufs: [(name, ndarray, is_output)]; params: [(name, ir.Type, value)]."""
    bargs = [BufferArg(n, ir.Type.from_numpy(a.dtype), a.ndim, out) for n, a, out in bufs]
    return compile_pipeline(stmt, name, bargs, [ir.ScalarParam(n, t) for n, t, _ in params],
                            options=JitOptions(**options) if options else None)


def run(stmt, bufs, params=(), name="k", **options):
    k = compile_kernel(stmt, bufs, params, name, **options)
    k([a for _, a, _ in bufs], [v for _, _, v in params])
    return k


def elementwise(outputs, inputs, lanes=1, name="k"):
    """Compute every output o[x] = fn(inputs...) over one dimension.

    outputs: {name: (fn, dtype)} where fn receives the input Exprs (Loads at
    x, of `lanes` lanes); inputs: {name: 1-D array}, all of one length n
    (a multiple of lanes). Returns {name: result array}."""
    n = len(next(iter(inputs.values())))
    assert n % lanes == 0
    x = var("x")
    if lanes == 1:
        idx = x
    else:
        idx = ir.Ramp(ir.Mul(x, i32(lanes)), i32(1), lanes)
    loads = [ir.Load(ir.Type.from_numpy(a.dtype).with_lanes(lanes), nm, idx)
             for nm, a in inputs.items()]
    results = {nm: np.zeros(n, dtype) for nm, (fn, dtype) in outputs.items()}
    stores = [ir.Store(nm, fn(*loads), idx) for nm, (fn, _) in outputs.items()]
    body = ir.For("x", i32(0), i32(n // lanes), "serial", ir.block(*stores))
    bufs = [(nm, a, False) for nm, a in inputs.items()]
    bufs += [(nm, results[nm], True) for nm in outputs]
    run(body, bufs, name=name)
    return results


def special_values(t: ir.Type):
    """Edge values of a scalar type plus a few ordinary ones."""
    if t.is_bool():
        return [False, True]
    if t.is_float():
        return [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.25, 1e30, -1e30, float("inf"),
                float("-inf"), float("nan"), 1.5e-40, 123456.789]
    lo, hi = t.min_value(), t.max_value()
    vals = {lo, lo + 1, hi, hi - 1, 0, 1, 2, 3, 7, 8, 100, hi // 2, hi // 3}
    if t.is_int():
        vals |= {-1, -2, -3, -7, -8, -100, lo // 3}
    return sorted(v for v in vals if lo <= v <= hi)


def pairs(t: ir.Type):
    """All pairs of special values as two arrays (of a length that is a
    multiple of 16)."""
    v = special_values(t)
    a = [x for x in v for _ in v]
    b = [y for _ in v for y in v]
    while len(a) % 16:
        a.append(v[0])
        b.append(v[-1])
    dt = t.to_numpy()
    return np.array(a, dtype=dt), np.array(b, dtype=dt)


def saxpy(extra=0.0):
    x = var("x")
    body = ir.Store("out", ir.Add(ir.Mul(ir.Load(F32, "a", x), ir.Variable(F32, "k", "param")),
                                  ir.Add(ir.Load(F32, "b", x), ir.Const(F32, extra))), x)
    stmt = ir.For("x", i32(0), geom("out", "extent"), "serial", body)
    bufs = [BufferArg("a", F32, 1, False), BufferArg("b", F32, 1, False),
            BufferArg("out", F32, 1, True)]
    return stmt, bufs, [ir.ScalarParam("k", F32)]


def check_saxpy(kernel, extra=0.0):
    a = np.arange(100, dtype=np.float32)
    b = np.ones(100, np.float32)
    out = np.zeros(100, np.float32)
    kernel([a, b, out], [2.0])
    np.testing.assert_array_equal(out, a * 2 + (b + np.float32(extra)))


def load_runtime_modules():
    """Run a parallel pipeline once, so that the runtime modules (parallel,
    interrupt), which the first kernel of a process loads and caches, are
    loaded: a test that counts its own cache entries starts after this."""
    import pyhalide as ph
    x = ph.Var("x")
    g = ph.Func("warm_runtimes")
    g[x] = x * 2
    g.parallel(x)
    assert np.array_equal(np.asarray(g.realize([8])), np.arange(8) * 2)


def allocates(stmt) -> list:
    """The Allocate nodes of stmt, outermost first."""
    found = []

    class V(ir.Visitor):
        def visit_Allocate(self, s):
            found.append(s)
            self.visit_children(s)

    V().visit(stmt)
    return found


def forget_compiled():
    """Empty every in-memory cache of compiled code (the disk cache stays)."""
    realize_mod._KERNELS.clear()
    realize_mod._GRAPHS.clear()
    jit.clear_memory_cache()


def realize_fresh(f):
    """f.realize([64]) with every in-memory cache of compiled code emptied first."""
    forget_compiled()
    return np.asarray(f.realize([64]))


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]


def heap_in_use():
    """Bytes malloc has handed out (small blocks plus mmapped ones), or None."""
    libc = ctypes.CDLL(None)
    fn = getattr(libc, "mallinfo2", None)
    if fn is None:
        return None
    fn.restype = _MallInfo2
    m = fn()
    return m.uordblks + m.hblkhd
