"""The cold tasks of a module (functions all `optnone`: the copies for
regions smaller than a chunk, codegen_llvm._cold_function) are compiled as
a module of their own (split_module.split_cold), emitted by a target machine
at LLVM's level 0 (fast instruction selection and register allocation) with
no pass run (jit._emit_cold); the rest is optimized as before. Modules with
constant globals (vector math tables) are split too, each part with its own
copy. Results equal NumPy on both sides of the chunk, with one and two
threads; an error raised inside cold code reaches the caller."""
import re

import llvmlite.binding as llvm
import numpy as np
import pytest

import pyhalide as ph
import pyhalide.realize as realize_mod
from pyhalide.ir.config import override
from pyhalide.lowering import jit, split_module
from tests.codegen.test_cold_small_extent import _expected, _functions, _tiled


def _defined(text):
    return set(re.findall(r'^define [^@]*@"([^"]+)"\(', text, re.M))


def _parse(text):
    m = llvm.parse_assembly(text, context=llvm.create_context())
    m.verify()
    return m


def test_cold_tasks_go_to_a_module_of_their_own():
    f, _, _ = _tiled()
    text = ph.Pipeline([f]).lower("llvm")
    fns = _functions(text)
    cold = {n for n, attrs in fns.items() if "optnone" in attrs}
    assert cold
    hot_text, cold_text = split_module.split_cold(text, min_lines=0)
    assert _defined(cold_text) == cold
    assert _defined(hot_text) == set(fns) - cold
    for name in cold:
        if not name.endswith(".body"):        # a task: external in its part, declared in the other
            assert f'define i32 @"{name}"(' in cold_text
            assert f'declare i32 @"{name}"(' in hot_text
    _parse(hot_text)
    _parse(cold_text)
    # the hot part splits further across threads
    for part, _ in split_module.split_parts(hot_text, 4, min_lines=0):
        _parse(part)


def test_small_cold_code_is_not_split():
    f, _, _ = _tiled()
    text = ph.Pipeline([f]).lower("llvm")
    whole = text.count("\n")                 # more cold lines than it has: not split
    assert split_module.split_cold(text, min_lines=whole) == (text, None)
    g = ph.Func("plain")
    x = ph.Var("x")
    g[x] = x * 2
    plain = ph.Pipeline([g]).lower("llvm")
    assert split_module.split_cold(plain, min_lines=0) == (plain, None)


@pytest.fixture
def cold_split(monkeypatch):
    """Split every module's cold tasks; count the cold parts emitted."""
    seen = []
    real_split, real_emit = split_module.split_cold, jit._emit_cold

    def split(text):
        return real_split(text, min_lines=0)

    def emit(text, t, tm, name):
        seen.append(name)
        return real_emit(text, t, tm, name)
    monkeypatch.setattr(jit, "split_cold", split)
    monkeypatch.setattr(jit, "_emit_cold", emit)
    return seen


def _fresh():
    realize_mod._KERNELS.clear()
    realize_mod._GRAPHS.clear()
    jit.clear_memory_cache()


@pytest.mark.parametrize("threads", [1, 2])
def test_results_on_both_sides_of_the_chunk(cold_split, threads):
    f, a, _ = _tiled()
    with override(cache_dir="", num_threads=threads):
        _fresh()
        for w, h in ((16, 3), (37, 23), (1, 1), (15, 8)):
            A = np.random.default_rng(w * 100 + h).random((h + 1, w + 1), dtype=np.float32)
            a.set(ph.Buffer(A))
            got = np.asarray(f.realize([w, h]))
            np.testing.assert_array_equal(got, _expected(A))
    assert len(cold_split) == 1


def test_errors_inside_the_cold_part_reach_the_caller(cold_split):
    f, a, b = _tiled(check_index=True)
    h, w = 3, 20                              # fewer rows than a chunk: the cold copy runs
    A = np.random.default_rng(h).random((h + 1, w + 1), dtype=np.float32)
    B = np.zeros((h, w), np.int32)
    with override(cache_dir="", num_threads=2):
        _fresh()
        a.set(ph.Buffer(A))
        b.set(ph.Buffer(B))
        np.testing.assert_array_equal(np.asarray(f.realize([w, h])), _expected(A) + A[:h, :1])
        B[h - 1, 3] = 50
        b.set(ph.Buffer(B))
        with pytest.raises(IndexError, match="read at index 50"):
            f.realize([w, h])
    assert len(cold_split) == 1


_CONSTANT_MODULE = """
@"table" = internal constant [4 x float] [float 1.0, float 2.0, float 3.0, float 4.0], align 64
@"names" = private constant [2 x i8] c"a\\00"
{mutable}
define internal float @"look"(i64 %i) {{
entry:
  %p = getelementptr [4 x float], ptr @"table", i64 0, i64 %i
  %v = load float, ptr %p
  ret float %v
}}

define internal i32 @"k.par1"(i32 %a, i32 %b, ptr %c) {{
entry:
  %v = call float @"look"(i64 1)
  store float %v, ptr %c
  ret i32 0
}}

define internal i32 @"k.par2"(i32 %a, i32 %b, ptr %c) {{
entry:
  %v = call float @"look"(i64 2)
  store float %v, ptr %c
  ret i32 0
}}

define i32 @"k"(ptr %c) {{
entry:
  %r1 = call i32 @"k.par1"(i32 0, i32 0, ptr %c)
  %r2 = call i32 @"k.par2"(i32 0, i32 0, ptr %c)
  %r = add i32 %r1, %r2
  ret i32 %r
}}
"""


def test_modules_with_constant_globals_split_with_a_copy_each():
    text = _CONSTANT_MODULE.format(mutable="")
    parts = split_module.split_module(text, 2, min_lines=0)
    assert len(parts) == 2
    for part in parts:
        assert '@"table" = internal constant' in part
        _parse(part)
    assert set().union(*map(_defined, parts)) == _defined(text)
    # a global that is not a constant of its own: not split
    mutable = _CONSTANT_MODULE.format(mutable='@"count" = internal global i32 0')
    assert split_module.split_module(mutable, 2, min_lines=0) == [mutable]
