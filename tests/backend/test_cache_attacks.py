"""The on-disk cache cannot be made to run foreign code or return another
pipeline's results (issue 12): entries are JSON and an object file, never
unpickled; each is checked against its own key, version, target and digest;
and a directory others can write is not used at all."""
import os
import pickle
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import func as func_mod
from pyhalide.ir.config import override
from pyhalide.lowering import jit, llvm_objects
from pyhalide.lowering.target import parse_target
from tests.backend.backend_util import (
    check_saxpy,
    load_runtime_modules,
    realize_fresh,
    saxpy,
)

A = np.arange(64, dtype=np.int32)
WANT = {"add": A + 3, "mul": A * 3}


@pytest.fixture
def pipelines(monkeypatch):
    """add and mul: alike in every name (Func names are made unique per
    process: that registry is emptied for each), so that one's code would
    load and run in place of the other's."""
    load_runtime_modules()
    fs = {}
    for op in ("add", "mul"):
        monkeypatch.setattr(func_mod, "_used_names", {})
        x = ph.Var("x")
        f = ph.Func("ca_f")
        inp = ph.Buffer(A, "ca_in")
        f[x] = inp[x] + 3 if op == "add" else inp[x] * 3
        fs[op] = f
    return fs


def _files(root):
    return {os.path.join(r, n) for r, _, fs in os.walk(root) for n in fs}


def _compile_both(root, pipelines):
    """Cache add's entries, then mul's; {op: {kind: path of its entry}}."""
    paths = {}
    for op in ("add", "mul"):
        before = _files(root)
        assert np.array_equal(realize_fresh(pipelines[op]), WANT[op])
        new = _files(root) - before
        paths[op] = {}
        for kind in ("o", "kernel"):
            (paths[op][kind],) = [p for p in new if p.endswith("." + kind)]
    return paths


@pytest.mark.parametrize("kind", ["kernel", "o"])
def test_an_entry_copied_from_another_key_is_a_miss(tmp_path, capsys, kind, pipelines):
    with override(cache_dir=str(tmp_path), debug=1):
        paths = _compile_both(tmp_path, pipelines)
        shutil.copyfile(paths["add"][kind], paths["mul"][kind])
        capsys.readouterr()
        assert np.array_equal(realize_fresh(pipelines["mul"]), WANT["mul"])
        err = capsys.readouterr().err
        assert "kernel cache hit" not in err and "its key differs" in err
        if kind == "o":           # (mul's own object serves the recompiled kernel otherwise)
            assert "object cache hit" not in err
        # the foreign entry was replaced by mul's own: the next process hits
        assert np.array_equal(realize_fresh(pipelines["mul"]), WANT["mul"])
        assert "kernel cache hit" in capsys.readouterr().err


class _Plant:
    """Unpickling this creates a directory: the trace of code having run."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def test_a_crafted_pickle_or_garbage_entry_never_runs(tmp_path, capsys, pipelines):
    marker = str(tmp_path / "pwned")
    payload = pickle.dumps(_Plant(marker))
    heads = [b"", b"PYHALIDE-KERNEL1\n", b"PYHALIDE-OBJ1\n" + b"0" * 64 + b"\n",
             b"PYHALIDE-CACHE2\n", b"PYHALIDE-CACHE2\n{}\n", b"PYHALIDE-CACHE2\n[[[[[\n"]
    cache = tmp_path / "c"
    with override(cache_dir=str(cache), debug=1):
        paths = _compile_both(cache, pipelines)["mul"]
        for head in heads:
            capsys.readouterr()
            for kind in ("kernel", "o"):
                with open(paths[kind], "wb") as fh:
                    fh.write(head + payload)
            assert np.array_equal(realize_fresh(pipelines["mul"]), WANT["mul"])
            assert not os.path.exists(marker), head
            assert "cache hit" not in capsys.readouterr().err


@pytest.mark.parametrize("attack", ["group-writable", "another owner"])
def test_a_valid_entry_in_a_dir_others_control_is_never_loaded(tmp_path, capsys, attack):
    root = tmp_path / "c"
    with override(cache_dir=str(root), debug=1):
        stmt, bufs, params = saxpy(0.0)
        key = jit.compile_pipeline(stmt, "saxpy", bufs, params).object_key
        other = jit.compile_pipeline(saxpy(1.0)[0], "saxpy", bufs, params).object_key
        host = parse_target("host")
        # a forged entry: another kernel's object under saxpy(0.0)'s key, with a
        # manifest that matches (key, version, target, digest)
        llvm_objects.store_object(key, host, jit.cached_object(other, host))
        jit.clear_memory_cache()
        check_saxpy(jit.compile_pipeline(stmt, "saxpy", bufs, params), 1.0)   # it is valid
        capsys.readouterr()
        if attack == "group-writable":
            root.chmod(0o775)
        else:
            os.chown(root, 54321, -1)
        for _ in range(2):
            jit.clear_memory_cache()
            check_saxpy(jit.compile_pipeline(stmt, "saxpy", bufs, params), 0.0)
        err = capsys.readouterr().err
        assert err.count("not using the cache directory") == 1
        assert "object cache hit" not in err


def test_a_relative_cache_dir_is_resolved_once_at_import(tmp_path):
    script = textwrap.dedent("""
        import os
        import numpy as np
        import pyhalide as ph
        from pyhalide.ir.config import config
        print("DIR", config.cache_dir)
        os.chdir("../elsewhere")
        x, f = ph.Var("x"), ph.Func("f")
        f[x] = x * 2
        assert np.array_equal(np.asarray(f.realize([8])), np.arange(8) * 2)
    """)
    (tmp_path / "start").mkdir()
    (tmp_path / "elsewhere").mkdir()
    env = dict(os.environ, PYHALIDE_CACHE_DIR="rel")
    r = subprocess.run([sys.executable, "-c", script], cwd=tmp_path / "start", env=env,
                       check=False, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"DIR {tmp_path / 'start' / 'rel'}" in r.stdout
    assert any(n.endswith(".kernel") for n in _files(tmp_path / "start" / "rel"))
    assert not (tmp_path / "elsewhere" / "rel").exists()
