"""config.llvm_pipeline (PYHALIDE_LLVM_PIPELINE) chooses the LLVM options of
kernels compiled without explicit ones (llvm_objects.default_options):
"full" (the default: level 2, LLVM's loop and SLP vectorizers and unrolling),
"lean" (level 1, none of those) or "lean-vec" (level 1, the loop vectorizer
only). Each setting compiles with its own
options (seen by the JIT, in the object key and the whole-kernel disk key)
and gives NumPy's results: a tiled parallel Func, a vectorized float
reduction, @pipeline sums and a scan. Another value is refused."""
import numpy as np
import pytest

import pyhalide as ph
import pyhalide.realize as realize_mod
from pyhalide.ir.config import Config, override
from pyhalide.lowering import jit, kernel_cache
from pyhalide.lowering.llvm_objects import JitOptions, default_options
from tests.codegen.test_cold_small_extent import _expected, _tiled

LEAN = JitOptions(loop_vectorization=False, slp_vectorization=False, opt_level=1,
                  loop_unrolling=False)
OPTIONS = {"full": JitOptions(), "lean": LEAN,
           "lean-vec": JitOptions(slp_vectorization=False, opt_level=1, loop_unrolling=False)}


def test_the_settings_options():
    with override(llvm_pipeline="full"):
        assert default_options() == JitOptions()
        full_key = kernel_cache._disk_key("graph")[0]
    with override(llvm_pipeline="lean"):
        assert default_options() == LEAN
        lean_key = kernel_cache._disk_key("graph")[0]
    with override(llvm_pipeline="lean-vec"):
        assert default_options() == OPTIONS["lean-vec"]
    assert len({o.key() for o in OPTIONS.values()}) == 3
    assert JitOptions().key() == "lv=1,slp=1,ra=0,O2"       # the full pipeline's objects keep their key
    assert lean_key != full_key


def test_the_environment_variable(monkeypatch):
    monkeypatch.delenv("PYHALIDE_LLVM_PIPELINE", raising=False)
    assert Config.from_env().llvm_pipeline == "full"
    monkeypatch.setenv("PYHALIDE_LLVM_PIPELINE", " Lean ")
    assert Config.from_env().llvm_pipeline == "lean"
    monkeypatch.setenv("PYHALIDE_LLVM_PIPELINE", "")
    assert Config.from_env().llvm_pipeline == "full"


def test_another_value_is_refused():
    f, a, _ = _tiled()
    a.set(ph.Buffer(np.zeros((9, 17), np.float32)))
    with override(llvm_pipeline="fast", cache_dir=""):
        _fresh()
        with pytest.raises(ValueError, match="PYHALIDE_LLVM_PIPELINE='fast': expected one of full, lean, lean-vec"):
            f.realize([16, 8])


def _fresh():
    realize_mod._KERNELS.clear()
    realize_mod._GRAPHS.clear()
    jit.clear_memory_cache()


@pytest.fixture
def compiled_with(monkeypatch):
    """The options of every module part the JIT optimizes."""
    seen = []
    real = jit._optimize

    def optimize(text, tm, options, unlocked=False):
        seen.append(options)
        return real(text, tm, options, unlocked)
    monkeypatch.setattr(jit, "_optimize", optimize)
    return seen


def _expected_options(pipeline):
    return OPTIONS[pipeline]


@pytest.mark.parametrize("pipeline", ["full", "lean", "lean-vec"])
def test_tiled_parallel_func(compiled_with, pipeline):
    f, a, _ = _tiled()
    with override(llvm_pipeline=pipeline, cache_dir="", num_threads=2):
        _fresh()
        for w, h in ((37, 23), (16, 3), (1, 1)):
            A = np.random.default_rng(w * 100 + h).random((h + 1, w + 1), dtype=np.float32)
            a.set(ph.Buffer(A))
            np.testing.assert_array_equal(np.asarray(f.realize([w, h])), _expected(A))
    assert compiled_with
    for options in compiled_with:     # (full: the loop vectorizer may be off for a large module)
        assert options.opt_level == _expected_options(pipeline).opt_level
        assert options.loop_unrolling == _expected_options(pipeline).loop_unrolling
        assert options.slp_vectorization == _expected_options(pipeline).slp_vectorization
        assert options.loop_vectorization <= _expected_options(pipeline).loop_vectorization


@pytest.mark.parametrize("pipeline", ["full", "lean"])
def test_vectorized_row_max_and_integer_sum(compiled_with, pipeline):
    a = ph.ImageParam(ph.Float(32), 2, "a")
    b = ph.ImageParam(ph.Int(32), 2, "b")
    y = ph.Var("y")
    r = ph.RDom([(0, 50)])
    mx, sm = ph.Func("mx"), ph.Func("sm")
    mx[y] = ph.maximum(a[r.x, y])
    sm[y] = ph.sum(b[r.x, y] * 3)
    mx.vectorize(y, 8)
    sm.vectorize(y, 8)
    rng = np.random.default_rng(3)
    A = rng.standard_normal((37, 50), dtype=np.float32)
    B = rng.integers(-1000, 1000, (37, 50), dtype=np.int32)
    with override(llvm_pipeline=pipeline, cache_dir=""):
        _fresh()
        a.set(ph.Buffer(A))
        b.set(ph.Buffer(B))
        np.testing.assert_array_equal(np.asarray(mx.realize([37])), A.max(axis=1))
        np.testing.assert_array_equal(np.asarray(sm.realize([37])), (B * 3).sum(axis=1))
    assert compiled_with and all(o == _expected_options(pipeline) for o in compiled_with)


@pytest.mark.parametrize("pipeline", ["full", "lean", "lean-vec"])
def test_pipeline_sums_and_scan(compiled_with, pipeline):
    def sums(a):                      # a fresh kernel per setting
        return a.sum(axis=1), a.sum(), np.cumsum(a[0] * 2.0)
    sums.__qualname__ += "_" + pipeline.replace("-", "_")
    k = ph.pipeline(sums)
    rng = np.random.default_rng(5)
    with override(llvm_pipeline=pipeline, cache_dir=""):
        _fresh()
        for shape in ((7, 13), (3, 64), (1, 1)):
            A = rng.standard_normal(shape)
            got = k(A)
            exp = sums(A)
            for g, e in zip(got, exp):
                np.testing.assert_array_equal(np.asarray(g), e)
    assert compiled_with
    assert all(o.opt_level == _expected_options(pipeline).opt_level for o in compiled_with)
