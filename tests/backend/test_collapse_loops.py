"""collapse_loops: dense loop nests of symbolic inner extent become one loop
under run-time conditions. Before/expected IR, the cases left alone, and
exactness (the same stores in the same order, by a small interpreter, for
dense and non-dense strides and empty extents), then end to end through
realize() on contiguous arrays and on strided views."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide import ir
from pyhalide.lowering.collapse_loops import collapse_loops
from tests.backend.ir_interp import run

I32 = ir.Int(32)
SERIAL, PAR = ir.ForKind.SERIAL, ir.ForKind.PARALLEL
W = ir.Variable(I32, "W", "param")        # inner extent
H = ir.Variable(I32, "H", "param")        # outer extent
S = ir.Variable(I32, "S", "param")        # row stride


def v(name):
    return ir.Variable(I32, name)


def c(k):
    return ir.Const(I32, k)


def loop(name, extent, body, kind=SERIAL):
    return ir.For(name, c(0), extent, kind, body)


def rows(stride=S, inner=W, kind=SERIAL):
    """for y: for x: out[0] = a[y*stride + x]: a reduction over a 2-D
    region of a buffer with row stride `stride`."""
    y, x = v("y"), v("x")
    load = ir.Load(I32, "a", ir.Add(ir.Mul(y, stride), x))
    return loop("y", H, loop("x", inner, ir.Store("out", load, c(0))), kind)


def same_stores(before, after, params):
    for p in params:
        mem = {"a": list(range(10_000))}
        want, got = [], []
        run(before, dict(p), mem, want)
        run(after, dict(p), mem, got)
        assert got == want, p


def test_dense_rows_become_one_loop_under_a_stride_check():
    after = collapse_loops(rows())
    assert ir.to_str(after) == """\
if ((((S == W) && (W >= 0)) && ((int64(H) * int64(W)) <= (int64)2147483647))) {
  for (y*x, 0, (H * W)) {
    out[0] = a[(y*x * 1)]
  }
} else {
  for (y, 0, H) {
    for (x, 0, W) {
      out[0] = a[((y * S) + x)]
    }
  }
}
"""
    same_stores(rows(), after, [{"H": h, "W": w, "S": s} for h in range(0, 4)
                                for w in range(0, 5) for s in (w, w + 1, 0)])


def test_a_proven_stride_needs_no_check_but_the_trip_count():
    after = collapse_loops(rows(stride=W))
    assert isinstance(after, ir.IfThenElse)
    text = ir.to_str(after.condition)
    assert "S" not in text and "int64(H)" in text
    assert isinstance(after.then_case, ir.For) and after.then_case.name == "y*x"


def test_three_dense_loops_become_one():
    z, y, x = v("z"), v("y"), v("x")
    D = ir.Variable(I32, "D", "param")
    index = ir.Add(ir.Add(ir.Mul(z, ir.Mul(S, H)), ir.Mul(y, S)), x)
    nest = loop("z", D, loop("y", H, loop("x", W, ir.Store("out", ir.Load(I32, "a", index),
                                                           c(0)))))
    after = collapse_loops(nest)
    assert after.then_case.name == "z*y*x"
    same_stores(nest, after, [{"D": d, "H": h, "W": w, "S": s} for d in (0, 1, 3)
                              for h in (0, 2, 3) for w in (1, 4) for s in (w, w + 2)])


@pytest.mark.parametrize("nest, why", [
    (rows(inner=c(8)), "a constant inner extent is LLVM's to unroll"),
    (rows(kind=PAR), "a parallel loop keeps its iterations"),
    (loop("y", H, loop("x", W, ir.Store("out", v("x"), c(0)))), "x used alone"),
    (loop("y", H, loop("x", W, ir.Store("out", c(1), ir.Add(v("y"), v("x"))))),
     "y and x with equal coefficients: 1 == W * 1 only holds for W == 1, checked at run time"),
    (loop("y", H, loop("x", W, ir.LetStmt("k", ir.Load(I32, "a", c(0)), ir.Store(
        "out", c(1), ir.Add(ir.Mul(v("y"), v("k")), v("x")))))), "a coefficient read in the loop"),
    (loop("y", H, loop("x", ir.Add(W, v("y")), ir.Store("out", c(1), v("x")))),
     "a triangular nest"),
])
def test_nests_left_alone(nest, why):
    after = collapse_loops(nest)
    if why.startswith("y and x with equal"):
        assert isinstance(after, ir.IfThenElse) and "(1 == W)" in ir.to_str(after.condition)
        same_stores(nest, after, [{"H": h, "W": w} for h in range(3) for w in range(3)])
        return
    assert after is nest, why


def _stencil_rows(d, plane=None):
    """for y: for x: out[y*W + x] = a[y*S + x] + a[y*S + x + d]: a buffer
    loaded at two points of one row (or of two planes, with `plane`)."""
    y, x = v("y"), v("x")
    base = ir.Add(ir.Mul(y, S), x)
    other = ir.Add(base, d if plane is None else plane)
    value = ir.Add(ir.Load(I32, "a", base), ir.Load(I32, "a", other))
    return loop("y", H, loop("x", W, ir.Store("out", value, ir.Add(ir.Mul(y, W), x))))


def test_a_read_at_two_x_offsets_gets_no_collapsed_copy():
    # the rows of `a` are at least W + 2 wide: S == W never holds
    for d in (c(2), ir.Variable(I32, "K", "param")):
        nest = _stencil_rows(d)
        assert collapse_loops(nest) is nest
    # two planes of one buffer (offset by a stride) still collapse
    plane = _stencil_rows(None, plane=ir.Variable(I32, "a.stride.2", "param"))
    after = collapse_loops(plane)
    assert isinstance(after, ir.IfThenElse) and after.then_case.name == "y*x"
    same_stores(plane, after, [{"H": h, "W": w, "S": s, "a.stride.2": 40} for h in range(3)
                               for w in range(3) for s in (w, w + 1)])


def _argmin_rows(a):
    """The index of the first minimum of a 3-D input, rows innermost:
    symbolic extents (an ImageParam), one update over the whole input."""
    A = ph.ImageParam(ph.Int(16), 3, "A")
    r = ph.RDom([(0, A.width()), (0, A.height()), (0, A.channels())], "r")
    f = ph.Func("argmin_rows")
    f[()] = (ph.Int(16).max(), 0)
    better = A[r.x, r.y, r.z] < f[()][0]
    f[()] = (ph.select(better, A[r.x, r.y, r.z], f[()][0]),
             ph.select(better, r.x + r.y * 1000 + r.z * 1000000, f[()][1]))
    return A, f


@pytest.mark.parametrize("view", ["contiguous", "column slice", "row step", "odd width"])
def test_realize_matches_numpy_on_dense_and_strided_inputs(view):
    rng = np.random.default_rng(7)
    base = rng.integers(-3000, 3000, size=(5, 12, 48)).astype(np.int16)
    a = {"contiguous": base, "column slice": base[:, :, 3:35], "row step": base[:, ::2, :],
         "odd width": base[:, :, :13]}[view]
    A, f = _argmin_rows(a)
    rxo, rxi = ph.RVar("rxo"), ph.RVar("rxi")
    u = ph.Var("u")
    intm = f.update(0).split(ph.RVar("r$x"), rxo, rxi, 8).rfactor(rxi, u)
    intm.compute_root().update(0).vectorize(u)
    A.set(ph.Buffer(a))
    text = ph.Pipeline(f).lower("final")
    assert "r$y*" in text           # the row loop and the chunk loop collapse
    value, index = (np.asarray(b) for b in f.realize([]))
    k = int(np.argmin(a))
    z, y, x = np.unravel_index(k, a.shape)
    assert value == a.min() and index == x + y * 1000 + z * 1000000
