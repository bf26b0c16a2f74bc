"""A large module is optimized and emitted in parts on two threads
(lowering/split_module.py, jit._compile_object): each outlined task goes
to one part, the parts' objects are linked in one engine, the object cache
stores them packed, and llvmlite's global lock is released around the long
LLVM calls so the threads really run at once. Results equal NumPy's and the
unsplit compile's."""
import re
import threading

import llvmlite.binding as llvm
import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override
from pyhalide.lowering import jit, llvm_objects, split_module
from pyhalide.lowering.target import parse_target
from tests.backend.backend_util import realize_fresh

N = 64


def _two_parallel_stages():
    """Two parallel stages of a 64-element output (each an outlined task)."""
    a = ph.Buffer(np.arange(N + 2, dtype=np.float32) * np.float32(0.5), "sc_a")
    x, xo, xi = ph.Var("x"), ph.Var("xo"), ph.Var("xi")
    g, f = ph.Func("sc_g"), ph.Func("sc_f")
    g[x] = a[x] * 3 + a[x + 1]
    f[x] = g[x] * g[x + 1] - a[x]
    g.compute_root().split(x, xo, xi, 8).parallel(xo).vectorize(xi, 8)
    f.split(x, xo, xi, 8).parallel(xo).vectorize(xi, 8)
    return f, np.asarray(a)


def _expected(A):
    g = A[:-1] * np.float32(3) + A[1:]
    return g[:-1] * g[1:] - A[:-2]


def _defined(text):
    return set(re.findall(r'^define [^@]*@"([^"]+)"\(', text, re.M))


def test_parts_define_each_function_once_and_parse():
    f, _ = _two_parallel_stages()
    text = ph.Pipeline([f]).lower("llvm")
    parts = split_module.split_module(text, 2, min_lines=0)
    assert len(parts) == 2
    whole = _defined(text)
    defs = [_defined(p) for p in parts]
    assert defs[0] | defs[1] == whole
    assert not (defs[0] & defs[1])                 # (no helper functions here)
    entry = [n for n in whole if "." not in n]
    assert entry and set(entry) <= defs[0]
    for p in parts:
        m = llvm.parse_assembly(p, context=llvm.create_context())
        m.verify()
    # a task the other part calls is external where it is defined, declared there
    for i, p in enumerate(parts):
        for name in re.findall(r'^define i32 @"([^"]+\.par\d+)"\(', p, re.M):
            assert f'declare i32 @"{name}"(' in parts[1 - i]


def test_small_module_is_not_split():
    f, _ = _two_parallel_stages()
    text = ph.Pipeline([f]).lower("llvm")
    assert split_module.split_module(text, 2) == [text]      # below MIN_SPLIT_LINES
    assert split_module.split_module(text, 1, min_lines=0) == [text]


@pytest.fixture
def always_split(monkeypatch):
    """Split every module; record the parts of each compile."""
    seen = []
    real = split_module.split_parts

    def split(text, parts=2, min_lines=None):
        out = real(text, parts, min_lines=0)
        seen.append(len(out))
        return out
    monkeypatch.setattr(jit, "split_parts", split)
    return seen


def test_split_kernel_equals_numpy_and_the_whole_compile(always_split):
    f, A = _two_parallel_stages()
    with override(cache_dir="", num_threads=2):
        got = realize_fresh(f)
    assert always_split == [2]
    np.testing.assert_array_equal(got, _expected(A))
    with override(cache_dir="", num_threads=1):       # one thread: one module
        whole = realize_fresh(f)
    assert always_split == [2]                         # (not asked to split)
    np.testing.assert_array_equal(got, whole)


def test_packed_objects_load_from_the_disk_cache(always_split, tmp_path, capsys):
    f, A = _two_parallel_stages()
    with override(cache_dir=str(tmp_path), num_threads=2, debug=1):
        first = realize_fresh(f)
        assert "object cache hit" not in capsys.readouterr().err
        again = realize_fresh(f)
    np.testing.assert_array_equal(first, _expected(A))
    np.testing.assert_array_equal(again, first)


def test_pack_and_unpack_objects():
    objs = [b"\x7fELF one", b"", b"\x7fELF three"]
    blob = llvm_objects.pack_objects(objs)
    assert llvm_objects.unpack_objects(blob) == objs
    assert llvm_objects.pack_objects([b"\x7fELF x"]) == b"\x7fELF x"
    assert llvm_objects.unpack_objects(b"\x7fELF x") == [b"\x7fELF x"]
    with pytest.raises(ValueError):
        llvm_objects.unpack_objects(blob + b"extra")


def _big_module(functions=60):
    """IR whose optimization takes a while (many functions of float loops)."""
    body = []
    for k in range(functions):
        body.append(f"""
define void @f{k}(ptr noalias %a, ptr noalias %b, i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  %pa = getelementptr float, ptr %a, i64 %i
  %pb = getelementptr float, ptr %b, i64 %i
  %x = load float, ptr %pa
  %y = fmul float %x, {k + 1}.0
  %z = fadd float %y, %x
  store float %z, ptr %pb
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
  ret void
}}""")
    return "\n".join(body)


def test_unlocked_run_leaves_llvmlite_usable_by_other_threads():
    """While one thread optimizes a module with unlocked_run, another
    thread's llvmlite calls go through (they wait for llvmlite's lock
    otherwise: the optimization would have finished before them)."""
    t = parse_target("host")
    tm = llvm_objects.new_machine(t)
    mod = llvm.parse_assembly(_big_module(), context=llvm.create_context())
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    mpm = pb.getModulePassManager()
    started, done = threading.Event(), threading.Event()

    def work():
        started.set()
        llvm_objects.unlocked_run(mpm, mod, pb)
        done.set()
    th = threading.Thread(target=work)
    th.start()
    started.wait()
    overlapped = 0
    while not done.is_set():
        llvm.parse_assembly("", context=llvm.create_context())   # takes llvmlite's lock
        overlapped += not done.is_set()
    th.join()
    assert overlapped > 0
    assert "fmul" in str(mod)               # the optimized module is whole
    obj = llvm_objects.unlocked_emit(tm, mod)
    assert obj.startswith(b"\x7fELF")
