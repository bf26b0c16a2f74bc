"""Element-wise code over several input arrays reads each one at the
result's index, unclamped, where its size is never 1 (the specialization
key has the axes of size 1): the broadcast check raises NumPy's ValueError
at call time before anything is read otherwise. A clamp there made the
vectorizer gather (suite 4's chain_transc: the parallel, vectorized
schedule was no faster than the serial default). Results equal NumPy's
bit for bit; sizes that do not broadcast raise NumPy's error."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite4_kernels as K

SHAPES = [((3, 4), (3, 4)), ((1, 4), (3, 4)), ((3, 1), (3, 4)), ((3, 4), (1, 4)),
          ((0, 4), (0, 4)), ((0, 4), (1, 4)), ((4,), (3, 4)), ((3, 4), (4,)),
          ((3, 4), (3, 1)), ((3, 4), (3, 5)), ((2, 4), (3, 4)), ((5,), (3, 4))]


@pytest.mark.parametrize("sa, sb", SHAPES)
def test_broadcasting_and_mismatches(sa, sb):
    f = ph.pipeline(K.chain_ops)
    rng = np.random.default_rng(0)
    a, b = rng.random(sa), rng.random(sb)
    try:
        want = K.chain_ops(a, b)
    except ValueError:
        with pytest.raises(ValueError, match="could not be broadcast"):
            f(a, b)
        return
    got = f(a, b)
    assert got.shape == want.shape and got.tobytes() == want.tobytes()


def test_vectorized_reads_of_two_inputs_are_dense():
    p = ph.pipeline(K.chain_transc, schedule=K.sched_elementwise)
    rng = np.random.default_rng(1)
    a, b = rng.random((6, 37)), rng.random((6, 37))
    got, want = p(a, b), K.chain_transc(a, b)
    # exp, log and tanh each within 2 ulp of NumPy's (FRONTEND.md): the sum's
    # difference is bounded by its terms' magnitudes, not its own (it cancels)
    terms = np.abs(np.tanh(b - 0.5) * np.exp(-a * a)) + np.abs(np.log(1.0 + b * b))
    assert np.all(np.abs(got - want) <= 8 * np.finfo(np.float64).eps * terms)
    text = p.lower("final")
    assert "a[ramp(" in text and "b[ramp(" in text, text
    assert "min(ramp" not in text, text
