"""np.eye, np.identity, np.diag, np.triu, np.tril (frontend_ast/array_diag.py)
compared with NumPy: values, dtypes, offsets, rectangular shapes."""
import numpy as np
import pytest

import pyhalide as ph
from tests.frontend.frontend_check import check

RNG = np.random.default_rng(1622)


def made(a, v, n):
    return (np.eye(3), np.eye(n, 4, 1, dtype=np.int32), np.eye(2, k=-1), np.identity(n),
            np.identity(2, dtype=bool), np.diag(v), np.diag(v, 2), np.diag(v * 2, k=-1),
            np.diag(a), np.diag(a, 1), np.diag(a, k=-2), np.triu(a), np.tril(a, -1),
            np.triu(a[None], 2), np.tril(a.astype(np.int8), 1), np.eye(n) @ a[:n, :n] + a[:n, :n])


def test_equal_numpy():
    check(ph.pipeline(made), RNG.standard_normal((4, 5)), RNG.integers(-9, 9, 3), 3)


@pytest.mark.slow
def test_other_dtypes_equal_numpy():
    """The same pipeline for uint16 / float32 arguments (its own kernel, ~2 s CPU)."""
    rng = np.random.default_rng(18)
    check(ph.pipeline(made), rng.integers(-9, 9, (5, 3)).astype(np.uint16),
          rng.standard_normal(4).astype(np.float32), 2)
