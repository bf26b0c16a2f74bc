"""Innermost loops of a small constant trip count storing vectors of 2048
bits or more (conv5x5 at Halide's 64 lanes) are left rolled for LLVM
(lowering/wide_store_loops.py); accumulations and narrower or longer loops
are not. Results bit-exact with NumPy's float32 rounding either way."""
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.bench import suite2
from pyhalide.lowering import codegen_llvm


@pytest.fixture
def marked(monkeypatch):
    """The answers of wide_store_loop during the compiles of a test."""
    answers = []
    real = codegen_llvm.wide_store_loop

    def spy(body, trip):
        answers.append(real(body, trip))
        return answers[-1]
    monkeypatch.setattr(codegen_llvm, "wide_store_loop", spy)
    return answers


@pytest.mark.parametrize("lanes, rolled", [(64, True), (16, False)])
def test_conv5x5_tiles_of_64_lanes_stay_rolled(marked, lanes, rolled):
    d = suite2._data_conv({"side_log2": 9})
    d["img"] = d["img"][:44, :300]               # 296 x 40: shifted last tiles
    d["shape"] = (40, 296)
    run = suite2.build("conv5x5", "ph", d, None, {"lanes": lanes, "tile_x": 256, "tile_y": 8})
    run.compile()
    got = run.result(run.run())
    assert np.array_equal(got, suite2.conv_numpy(d["img"]))
    assert any(marked) == rolled


def test_an_accumulation_of_64_lanes_is_not_marked(marked):
    a = np.random.default_rng(3).integers(-99, 99, (4, 512), dtype=np.int32)
    x, xo, xi = ph.Var("x"), ph.Var("xo"), ph.Var("xi")
    r = ph.RDom([ph.Range(0, 4)], "r")
    f = ph.Func("acc")
    f[x] = 0                                   # (scalar: never marked)
    f[x] = f[x] + ph.Buffer(a)[x, r.x]         # rows of 4 vectors of 64 lanes, reading acc
    f.update().split(x, xo, xi, 256).reorder(xi, r.x, xo).vectorize(xi, 64)
    got = np.asarray(f.realize([512]))
    assert np.array_equal(got, a.sum(axis=0))
    assert marked and not any(marked)
