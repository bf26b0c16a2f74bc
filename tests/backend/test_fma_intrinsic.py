"""The IR intrinsic fma(a, b, c): a * b + c rounded once, in the JIT (LLVM's
llvm.fma, also vectorized) and in the reference evaluator, compared with the
exact value (Fractions)."""
from fractions import Fraction

import numpy as np

import pyhalide as ph
from pyhalide import ir
from pyhalide.expr import Expr
from tests.core.jitcheck import check


def _fma_func(a, b, c, dtype, vectorize=False):
    t = ir.Float(np.dtype(dtype).itemsize * 8)
    x = ph.Var("x")
    f = ph.Func("fma_f")
    args = [img[x].node for img in (a, b, c)]
    f[x] = Expr.wrap(ir.Call(t, "fma", tuple(args), ir.INTRINSIC))
    if vectorize:
        f.vectorize(x, 4)
    return f


def test_fma_rounds_once_in_jit_and_reference():
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32):
        n = 64
        a = rng.standard_normal(n).astype(dtype)
        b = rng.standard_normal(n).astype(dtype)
        c = (-(a.astype(np.float64) * b)).astype(dtype)      # cancellation: exposes the rounding
        exact = np.array([float(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                          for x, y, z in zip(a, b, c)]).astype(dtype)
        unfused = a * b + c
        assert not np.array_equal(unfused, exact)          # the test can tell them apart
        for vectorize in (False, True):
            f = _fma_func(ph.Buffer(a), ph.Buffer(b), ph.Buffer(c), dtype, vectorize)
            got = check(f, [n])
            np.testing.assert_array_equal(got[0], exact)
