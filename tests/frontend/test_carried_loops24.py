"""Session 24, issue 17: windows whose length is decided on the simplified
IR (frontend_ast/window_length.py), not on the source text. Every result
is compared with plain Python; each kernel compiles once per module."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.frontend_ast.errors import FrontendError


def reordered(x, k: int, out):
    for i in range(out.shape[0]):
        out[i] = x[2 * i + 1:k + 1 + i * 2].sum()
    return out


def cancelled(E, w, s: int, out):
    for i in range(out.shape[0]):
        X = E[:, i * s + 1 - i + i:s * i + w.shape[0] + 1]
        out[i] = np.sum(X * w)
    return out


def moving_length(x, out):
    for i in range(out.shape[0]):
        out[i] = x[i:2 * i + 1].sum()
    return out


def _outcome(fn, *args):
    args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    try:
        return fn(*args)
    except ValueError:
        return ValueError


@pytest.fixture(scope="module")
def reordered_c():
    return ph.pipeline(reordered)


@pytest.mark.parametrize("k", [0, 1, 3, 11, 12])
def test_reordered_stop(reordered_c, k):
    """`x[2*i + 1 : k + 1 + i*2]`: the same length k in every iteration,
    written in another order than `start + k` (refused before)."""
    x = np.arange(20.0) ** 2
    want = _outcome(reordered, x, k, np.zeros(4))
    got = _outcome(reordered_c, x, k, np.zeros(4))
    if want is ValueError or got is ValueError:
        # where the window is shorter than k, Python sums it and the compiled
        # code raises (array_windows.py): only past the end of x
        assert got is ValueError and 2 * 3 + 1 + k > 20
        return
    np.testing.assert_array_equal(got, want)


def test_cancelled_terms():
    """Terms of the loop variable that cancel (`- i + i`) and a stop
    written with the product in the other order."""
    rng = np.random.default_rng(3)
    E, w = rng.standard_normal((2, 30)), rng.standard_normal(4)
    p = ph.pipeline(cancelled)
    for s in (1, 2, 6):
        want = _outcome(cancelled, E, w, s, np.zeros(5))
        got = _outcome(p, E, w, s, np.zeros(5))
        if isinstance(want, np.ndarray):
            np.testing.assert_array_equal(got, want)
        else:
            assert got is want


def test_moving_length_refused():
    """A length that changes with the loop stays a located refusal."""
    with pytest.raises(FrontendError, match="slice bounds must be known when the function "
                                            "is called"):
        ph.pipeline(moving_length)(np.arange(10.0), np.zeros(3))
