"""The update of a running minimum or maximum (`if a[i, j] < best: best = ...;
at = ...`) that sees many elements between resets is a branch marked rarely
taken (`!prof` branch weights: codegen_ops.running_extreme_update,
codegen_llvm._rare_update), so LLVM keeps the branch instead of a chain of
cmovs (a 2-D argmin over 2^22 int32: 1.43 -> 0.68 ms CPU); an accumulator
reset per short row keeps the cmovs. Results are compared with plain Python
on inputs where the branch is rare, always taken, and taken at random."""
import numpy as np
import pytest

import pyhalide as ph
from tests.backend.row_kernels import argmin2d, row_argmax

# one pipeline each for every input (compiled once per file)
_COMPILED = (ph.pipeline(argmin2d, schedule="serial"), ph.pipeline(row_argmax, schedule="serial"))


def _rare(text: str) -> bool:
    return 'i32 1, i32 2000 }' in text


def test_an_argmin_over_a_nest_is_a_rare_branch():
    p = ph.pipeline(argmin2d, schedule="serial")
    assert _rare(p.lower("llvm", [("a", np.dtype(np.int32), (64, 128))]))


def test_a_per_row_maximum_of_short_rows_is_not_marked():
    p = ph.pipeline(row_argmax, schedule="serial")
    assert not _rare(p.lower("llvm", [("a", np.dtype(np.int32), (64, 8)),
                                      ("out", np.dtype(np.int64), (64,))]))


@pytest.mark.parametrize("kind", ["random", "decreasing", "noisy", "ties", "increasing"])
def test_values_equal_plain_python(kind):
    n = 64 * 50
    rng = np.random.default_rng(7)
    flat = {"random": rng.integers(-1000, 1000, n), "decreasing": -np.arange(n),
            "noisy": -np.arange(n) + rng.integers(0, 3, n), "ties": rng.integers(0, 2, n),
            "increasing": np.arange(n)}[kind].astype(np.int32)
    p, q = _COMPILED
    for shape in [(64, 50), (50, 64), (2, 1600)]:
        a = flat.reshape(shape)
        assert [int(v) for v in p(a)] == [int(v) for v in argmin2d(a)]
        out = np.zeros(shape[0], np.int64)
        assert np.array_equal(q(a, out), row_argmax(a, np.zeros(shape[0], np.int64)))
