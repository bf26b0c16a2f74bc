"""A serial scalar loop folding its reads into a float accumulator or into
several accumulators (complex_mul, dot, kitchen_sink without a schedule) is
not unrolled by LLVM but may still be vectorized by it
(codegen_ops.scalar_fold); a single integer accumulator, a short constant
loop and a loop storing at moving places are left to LLVM. Results are
compared with NumPy."""
import numpy as np
import pytest

import pyhalide as ph


def _fold(kind, n):
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, n, dtype=np.int32)
    b = rng.integers(-3, 4, n, dtype=np.int32)
    A, B = ph.Buffer(a, "fa"), ph.Buffer(b, "fb")
    r = ph.RDom([ph.Range(0, n)], "r")
    f = ph.Func("fold_" + kind)
    if kind == "complex_mul":
        f[()] = (1, 0)
        x0, x1 = f[()][0], f[()][1]
        f[()] = (x0 * A[r.x] - x1 * B[r.x], x0 * B[r.x] + x1 * A[r.x])
        re_, im_ = 1, 0
        for p, q in zip(a.tolist(), b.tolist()):
            re_, im_ = (re_ * p - im_ * q), (re_ * q + im_ * p)
            re_ = (re_ + 2**31) % 2**32 - 2**31
            im_ = (im_ + 2**31) % 2**32 - 2**31
        want = (re_, im_)
    elif kind == "dot":
        f[()] = ph.cast(ph.Float(64), 0)
        f[()] += ph.cast(ph.Float(64), A[r.x]) * B[r.x]
        want = float(np.dot(a.astype(np.float64), b.astype(np.float64)))
    else:                                   # one integer accumulator: max
        f[()] = ph.Int(32).min()
        f[()] = ph.max(f[()], A[r.x])
        want = int(a.max())
    return f, want


@pytest.mark.parametrize("kind,n,rolled", [
    ("complex_mul", 5000, True), ("dot", 5000, True), ("max", 5000, False),
    ("complex_mul", 100, False), ("dot", 200, False)])
def test_scalar_folds_stay_rolled(kind, n, rolled):
    f, want = _fold(kind, n)
    text = ph.Pipeline([f]).lower("llvm")
    assert ("llvm.loop.unroll.disable" in text) == rolled
    if rolled:      # vectorization is not forbidden
        assert "llvm.loop.vectorize.enable" not in text
    got = f.realize([])
    if kind == "complex_mul":
        assert (int(np.asarray(got[0])), int(np.asarray(got[1]))) == want
    elif kind == "dot":
        assert float(np.asarray(got)) == want      # small integers: exact in float64
    else:
        assert int(np.asarray(got)) == want
