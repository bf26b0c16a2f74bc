"""A 2-D product inside a Python loop (the product's Func has the loop's
dimension too) compiles and equals NumPy within the product's stated
bound; it crashed unpacking the Func's arguments (lead probe, session 27)."""
import numpy as np

import pyhalide as ph


def batched(A, C):
    out = np.empty((A.shape[0], A.shape[1], C.shape[1]))
    for r in range(A.shape[0]):
        out[r] = A[r] @ C
    return out


def test_product_per_iteration_of_a_loop():
    rng = np.random.default_rng(27)
    A, C = rng.random((5, 4, 6)), rng.random((6, 3))
    got = ph.pipeline(batched)(A, C)
    want = batched(A, C)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
