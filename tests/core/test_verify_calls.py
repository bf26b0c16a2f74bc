"""Lowering verifies each Stmt once (lowering/pipeline.py): a pass that
returns its input unchanged, and the final check of the last pass's result,
verify nothing again; every distinct Stmt still is verified, as flattened
after storage flattening."""
import numpy as np

import pyhalide as ph
import pyhalide.lowering.pipeline as lowering_pipeline
from pyhalide.ir.config import override


def _blur():
    img = ph.Buffer(np.arange(48, dtype=np.int32).reshape(6, 8), "img")
    x, y = ph.Var("x"), ph.Var("y")
    f, g = ph.Func("f"), ph.Func("g")
    f[x, y] = img[x, y] + img[x + 1, y]
    g[x, y] = f[x, y] * 2 + f[x, y + 1]
    f.compute_root()
    return g


def test_each_stmt_is_verified_once(monkeypatch):
    calls = []
    real = lowering_pipeline.verify

    def spy(stmt, defined, buffers, flattened, memo=None):
        calls.append((stmt, flattened))
        real(stmt, defined, buffers, flattened, memo)
    monkeypatch.setattr(lowering_pipeline, "verify", spy)
    with override(verify=True):
        ph.Pipeline([_blur()]).lower("final")
    ids = [id(s) for s, _ in calls]
    assert len(ids) == len(set(ids)), "a Stmt was verified twice"
    assert len(calls) >= 5 and calls[-1][1] and not calls[0][1]


def test_without_verification_the_final_stmt_is_still_verified(monkeypatch):
    calls = []
    monkeypatch.setattr(lowering_pipeline, "verify", lambda s, d, b, f, memo=None: calls.append(f))
    with override(verify=False):
        ph.Pipeline([_blur()]).lower("final")
    assert calls == [True]
