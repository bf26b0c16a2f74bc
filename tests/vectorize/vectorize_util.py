"""Helpers of the vectorization tests: build flat Stmts by hand, run them
vectorized and as serial loops, and compare the results bit for bit."""
from __future__ import annotations

import numpy as np

from pyhalide import ir
from pyhalide.lowering.jit import JitOptions, compile_pipeline, generate_text
from pyhalide.lowering.runtime import BufferArg
from pyhalide.lowering.simplify import simplify
from pyhalide.lowering.unroll import unroll_loops
from pyhalide.lowering.vectorize import vectorize_loops
from pyhalide.lowering.verify import verify

I32 = ir.Int(32)
NO_AUTO_VEC = JitOptions(loop_vectorization=False, slp_vectorization=False)


def i32(v) -> ir.Const:
    return ir.Const(I32, v)


def var(name: str, t=I32) -> ir.Variable:
    return ir.Variable(t, name)


def loop(name, extent, body, kind="serial", lo=0):
    lo = lo if isinstance(lo, ir.Expr) else i32(lo)
    extent = extent if isinstance(extent, ir.Expr) else i32(extent)
    return ir.For(name, lo, extent, kind, body)


def load(arr_or_type, name, index):
    t = arr_or_type if isinstance(arr_or_type, ir.Type) else ir.Type.from_numpy(arr_or_type.dtype)
    return ir.Load(t, name, index)


def split_vectorized(n_outer, width, body_of, outer="xo", inner="xi"):
    """for xo in [0, n_outer): vectorized for xi in [0, width): body_of(x)
    with x = xo*width + xi."""
    x = ir.Add(ir.Mul(var(outer), i32(width)), var(inner))
    return loop(outer, n_outer, loop(inner, width, body_of(x), "vectorized"))


class _Kinds(ir.Mutator):
    def __init__(self, kind):
        super().__init__()
        self.kind = kind

    def visit_For(self, s):
        body = self.mutate(s.body)
        kind = self.kind if s.kind in ("vectorized", "unrolled") else s.kind
        return ir.For(s.name, s.min, s.extent, kind, body)


def as_serial(stmt):
    """The same Stmt with every vectorized or unrolled loop serial."""
    return _Kinds("serial").mutate(stmt)


def lower_vectors(stmt):
    """The passes that follow storage flattening: vectorize, unroll, simplify."""
    return simplify(unroll_loops(vectorize_loops(stmt)))


def count_loops(stmt, kind=None) -> int:
    class V(ir.Visitor):
        n = 0

        def visit_For(self, s):
            if kind is None or s.kind == kind:
                self.n += 1
            self.visit_children(s)

    v = V()
    v.visit(stmt)
    return v.n


def max_lanes(stmt) -> int:
    class V(ir.Visitor):
        lanes = 1

        def visit(self, n):
            if isinstance(n, ir.Expr):
                self.lanes = max(self.lanes, n.type.lanes)
            super().visit(n)

    v = V()
    v.visit(stmt)
    return v.lanes


def _buffer_args(bufs):
    return [BufferArg(n, ir.Type.from_numpy(a.dtype), a.ndim, out) for n, a, out in bufs]


def run_stmt(stmt, bufs, params=(), name="vk", options=None):
    """Compile and run stmt; bufs: [(name, array, is_output)]; params:
    [(name, ir.Type, value)]. Returns the output arrays (fresh copies)."""
    arrays = [a.copy() for _, a, _ in bufs]
    verify(stmt, {p for p, _, _ in params} | _geometry_names(bufs), {n for n, _, _ in bufs}, True)
    k = compile_pipeline(stmt, name, _buffer_args(bufs),
                         [ir.ScalarParam(p, t) for p, t, _ in params], options=options)
    k(arrays, [v for _, _, v in params])
    return [a for a, (_, _, out) in zip(arrays, bufs) if out]


def _geometry_names(bufs):
    return {f"{n}.{w}.{d}" for n, a, _ in bufs for d in range(a.ndim)
            for w in ("min", "extent", "stride")}


def bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def check_vectorizes(stmt, bufs, params=(), lanes=None, expect_serial=0):
    """Lower stmt's vector loops, run it and its serial version, and assert
    the outputs are bit-identical. Unless `expect_serial` loops are
    expected to fall back, no vectorized loop may remain and vectors of
    `lanes` lanes must appear. Returns (lowered stmt, outputs)."""
    lowered = lower_vectors(stmt)
    serial = as_serial(stmt)
    want = run_stmt(serial, bufs, params, name="serial_ref")
    got = run_stmt(lowered, bufs, params, name="vectorized")
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert bits(g) == bits(w), f"vectorized result differs:\n{g}\nserial:\n{w}"
    assert count_loops(lowered, "vectorized") == 0
    if expect_serial == 0 and lanes is not None:
        assert max_lanes(lowered) == lanes, ir.to_str(lowered)
    return lowered, got


def llvm_text(stmt, bufs, params=()):
    """Unoptimized LLVM IR of stmt (LLVM's vectorizers could not have run)."""
    return generate_text(stmt, "vk", _buffer_args(bufs),
                         [ir.ScalarParam(p, t) for p, t, _ in params], stage="llvm",
                         options=NO_AUTO_VEC)


def llvm_opt_text(stmt, bufs, params=()):
    """Optimized LLVM IR with LLVM's loop and SLP vectorizers switched off."""
    return generate_text(stmt, "vk", _buffer_args(bufs),
                         [ir.ScalarParam(p, t) for p, t, _ in params], stage="llvm_opt",
                         options=NO_AUTO_VEC)


# ---- Func pipelines ----------------------------------------------------------
def lowered_pipeline(f):
    """The Lowered (final Stmt, buffers, params, stage texts) of the
    pipeline computing Func f, as Pipeline.realize compiles it for dense
    arrays."""
    import pyhalide as ph
    p = ph.Pipeline([f])
    graph = p._graph()
    return p._lowered(graph, p._default_dense(graph))


def run_lowered(f, lowered, sizes):
    """Compile `lowered` (the pipeline of f) and run it over `sizes` as
    Pipeline.realize would; returns the output arrays."""
    from pyhalide.graph import collect_graph
    from pyhalide.lowering.pipeline import compile_lowered
    graph = collect_graph([f.function()])
    outs = [np.empty(tuple(reversed(sizes)), t.to_numpy()) for t in f.function().output_types]
    kernel = compile_lowered(lowered)
    kernel([*[graph.input_array(n) for n in graph.image_names()], *outs],
           [graph.param_value(n) for n in graph.param_names()])
    return outs


def llvm_of(lowered, stage="llvm"):
    """LLVM IR of a Lowered pipeline with LLVM's loop and SLP vectorizers off."""
    return generate_text(lowered.stmt, lowered.name, lowered.buffers, lowered.params,
                         stage=stage, options=NO_AUTO_VEC)


def reference(f, sizes):
    """The schedule-free reference evaluator's result (a list of arrays)."""
    from pyhalide.graph import collect_graph
    from pyhalide.reference import evaluate
    graph = collect_graph([f.function()])
    inputs = {n: graph.input_array(n) for n in graph.image_names()}
    params = {n: graph.param_value(n) for n in graph.param_names()}
    return evaluate(graph.env, [f.name()], [(0, s) for s in sizes], inputs, params)


def check_schedule(make, schedule, sizes):
    """Realize make() unscheduled, and make() with schedule(...) applied;
    assert both equal the reference evaluator bit for bit. make() returns
    the output Func, or a tuple of Funcs whose first is the output (all
    handed to schedule). Returns the Lowered scheduled pipeline."""
    import pyhalide as ph

    def build():
        funcs = make()
        return funcs if isinstance(funcs, tuple) else (funcs,)

    plain = build()[0]
    r = ph.Pipeline([plain]).realize(list(sizes))
    want = [np.asarray(b) for b in (r if isinstance(r, (list, tuple)) else [r])]
    ref = reference(plain, sizes)
    funcs = build()
    schedule(*funcs)
    lowered = lowered_pipeline(funcs[0])
    got = run_lowered(funcs[0], lowered, sizes)
    for g, w, e in zip(got, want, ref):
        assert g.dtype == w.dtype == e.dtype
        assert bits(g) == bits(w) == bits(np.asarray(e, dtype=g.dtype))
    return lowered
