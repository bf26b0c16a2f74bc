"""Whole-kernel disk cache (lowering/kernel_cache.py): a new process with a
warm cache runs neither lowering nor LLVM; any change of algorithm,
schedule, types, target or compiler source is a miss."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pyhalide as ph
from pyhalide.ir.config import override
from pyhalide.lowering import kernel_cache
from tests.backend.backend_util import realize_fresh

SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    import pyhalide as ph
    k = int(sys.argv[1])
    a = np.arange(1000, dtype=np.int32)
    inp = ph.ImageParam(ph.Int(32), 1, "inp")
    x, xo, xi = ph.Var("x"), ph.Var("xo"), ph.Var("xi")
    f, g = ph.Func("f"), ph.Func("g")
    f[x] = inp[x] * %s
    g[x] = f[x] + f[x + 1]
    g.split(x, xo, xi, 16).vectorize(xi, 8).parallel(xo)
    f.compute_at(g, xo)
    inp.set(ph.Buffer(a))
    t0 = time.perf_counter()
    out = np.asarray(g.realize([999]))
    t = time.perf_counter() - t0
    assert np.array_equal(out, a[:-1] * k + a[1:] * k), out[:8]
    print("ELAPSED", t)
""")


def _run(cache, k=3, expr="3"):
    env = dict(os.environ, PYHALIDE_CACHE_DIR=str(cache), PYHALIDE_DEBUG="1")
    r = subprocess.run([sys.executable, "-c", SCRIPT % expr, str(k)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


def test_new_process_with_warm_cache_skips_lowering_and_llvm(tmp_path):
    cold = _run(tmp_path)
    assert "kernel cache hit" not in cold.stderr
    assert "pass loop synthesis" in cold.stderr
    warm = _run(tmp_path)
    assert "kernel cache hit" in warm.stderr
    assert "pass " not in warm.stderr                  # no lowering pass ran
    assert "compiling" not in warm.stderr              # no codegen either


def test_a_changed_algorithm_is_a_miss(tmp_path):
    _run(tmp_path)
    other = _run(tmp_path, k=5, expr="5")
    assert "kernel cache hit" not in other.stderr


def _pipeline(scale):
    x = ph.Var("x")
    f = ph.Func("kc_f")
    inp = ph.Buffer(np.arange(64, dtype=np.int32), "kc_in")
    f[x] = inp[x] * scale
    return f


def test_in_process_reload_and_corrupt_entries(tmp_path, capsys):
    with override(cache_dir=str(tmp_path), debug=1):
        want = np.arange(64, dtype=np.int32) * 7
        f = _pipeline(7)
        assert np.array_equal(realize_fresh(f), want)
        assert "kernel cache hit" not in capsys.readouterr().err
        assert np.array_equal(realize_fresh(f), want)
        assert "kernel cache hit" in capsys.readouterr().err
        entries = [os.path.join(r, n) for r, _, fs in os.walk(tmp_path) for n in fs
                   if n.endswith(".kernel")]
        assert len(entries) == 1
        with open(entries[0], "wb") as fh:
            fh.write(b"PYHALIDE-KERNEL1\n" + b"\x00garbage")
        assert np.array_equal(realize_fresh(f), want)
        assert "kernel cache hit" not in capsys.readouterr().err


def test_a_changed_compiler_source_is_a_miss(tmp_path, capsys, monkeypatch):
    with override(cache_dir=str(tmp_path), debug=1):
        f = _pipeline(11)
        realize_fresh(f)
        capsys.readouterr()
        monkeypatch.setattr(kernel_cache, "_source_hash", "another compiler")
        assert np.array_equal(realize_fresh(f), np.arange(64, dtype=np.int32) * 11)
        assert "kernel cache hit" not in capsys.readouterr().err


def test_no_cache_dir_writes_no_kernel_entry(tmp_path):
    with override(cache_dir=""):
        realize_fresh(_pipeline(13))
    assert not any(n.endswith(".kernel") for _, _, fs in os.walk(tmp_path) for n in fs)


@pytest.mark.parametrize("target", ["x86-64-avx2"])
def test_the_target_is_part_of_the_key(tmp_path, capsys, target):
    with override(cache_dir=str(tmp_path), debug=1):
        f = _pipeline(17)
        realize_fresh(f)
        capsys.readouterr()
        with override(target=target):
            assert np.array_equal(realize_fresh(f), np.arange(64, dtype=np.int32) * 17)
        assert "kernel cache hit" not in capsys.readouterr().err
