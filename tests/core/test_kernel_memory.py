"""Bounded in-memory caches of compiled code (issue 12, item 8; see
pyhalide/ir/lru.py): past the kernel cache size the least recently used
kernels, graphs and loaded objects are dropped, a dropped kernel's engine
(its machine code) is freed once nothing holds it, a kernel still held is
never freed under its holder, and a pipeline whose kernel was dropped
compiles again and computes the same values."""
import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import pyhalide as ph
from pyhalide import realize
from pyhalide.ir.config import config
from pyhalide.lowering import jit


@pytest.fixture
def small_cache():
    old = config.kernel_cache_size
    ph.set_kernel_cache_size(2)
    yield
    ph.set_kernel_cache_size(old)


def _affine(k):
    x = ph.Var("x")
    f = ph.Func(f"affine{k}")
    f[x] = x * k + 1
    return f


def _want(k):
    return np.arange(16, dtype=np.int32) * k + 1


def test_old_kernels_are_dropped_and_compile_again(small_cache):
    funcs = {k: _affine(k) for k in (3, 5, 7, 11)}
    for k, f in funcs.items():
        assert np.array_equal(np.asarray(f.realize([16])), _want(k))
    assert len(realize._KERNELS) <= 2 and len(realize._GRAPHS) <= 2
    assert len(jit._loaded) <= 2
    first = funcs[3]
    _, key, _ = ph.Pipeline([first])._current()    # (rebuilds the dropped graph)
    assert not any(k.startswith(key) for k in realize._KERNELS._d)
    # dropped: realized again, it is compiled (or read from the disk cache) again
    assert np.array_equal(np.asarray(first.realize([16])), _want(3))
    assert any(k.startswith(key) for k in realize._KERNELS._d)


def test_a_dropped_kernel_frees_its_engine_unless_it_is_held(small_cache):
    held_f, dropped_f = _affine(13), _affine(17)
    held_f.realize([16])
    held = next(iter(ph.Pipeline([held_f])._current()[2].kernels.values()))
    held_engine = weakref.ref(held._keepalive.engine)
    dropped_f.realize([16])
    dropped = next(iter(ph.Pipeline([dropped_f])._current()[2].kernels.values()))
    dropped_engine = weakref.ref(dropped._keepalive.engine)
    del dropped, dropped_f
    for k in (19, 23, 29):                       # push both out of every cache
        _affine(k).realize([16])
    gc.collect()
    _affine(31).realize([16])                    # a compile disposes released engines
    gc.collect()
    assert dropped_engine() is None
    assert held_engine() is not None
    out = np.empty(16, np.int32)                 # the held kernel still runs
    held([out], [], True)
    assert np.array_equal(out, _want(13))


@ph.pipeline
def _doubled(a):
    out = np.zeros(a.shape[0], a.dtype)
    for i in range(a.shape[0]):
        out[i] = a[i] * 2
    return out


def test_pipeline_specializations_are_bounded_too(small_cache):
    arrays = [np.arange(6, dtype=dt) for dt in (np.int16, np.int32, np.int64, np.float64)]
    for _ in range(2):
        for a in arrays:
            got = _doubled(a)
            assert got.dtype == a.dtype and np.array_equal(got, a * 2)
            assert len(_doubled._specs) <= 2


def test_the_cache_size_must_be_a_positive_integer():
    for bad in (0, -3, 2.5, "many"):
        with pytest.raises(ValueError, match="positive integer"):
            ph.set_kernel_cache_size(bad)
    env = dict(os.environ, PYHALIDE_KERNEL_CACHE_SIZE="lots", PYHALIDE_CACHE_DIR="0")
    script = ("import pyhalide as ph\nx = ph.Var('x')\nf = ph.Func('f')\nf[x] = x\n"
              "f.realize([2])\n")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode != 0 and "PYHALIDE_KERNEL_CACHE_SIZE" in out.stderr


# The README's bound: after 500 distinct tiny kernels the process has grown by
# less than 64 MB (before the bound: about 90 MB, and without end).
RSS_SCRIPT = textwrap.dedent("""
    import gc
    import numpy as np
    import pyhalide as ph
    def rss_mb():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS"):
                    return int(line.split()[1]) / 1024
    x = ph.Var("x")
    def one(k):
        f = ph.Func(f"tiny{k}")
        f[x] = x * k + 1
        assert np.array_equal(np.asarray(f.realize([16])), np.arange(16) * k + 1)
    for k in range(20):
        one(10_000 + k)
    gc.collect()
    base = rss_mb()
    for k in range(500):
        one(k)
    gc.collect()
    print(rss_mb() - base)
""")


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_rss_after_500_distinct_kernels_is_bounded(tmp_path):
    env = dict(os.environ, PYHALIDE_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", RSS_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=1800, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    assert float(out.stdout.split()[-1]) < 64, out.stdout
