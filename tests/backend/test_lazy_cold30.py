"""Cold copies compiled lazily (lowering/lazy_copies.py, lazy_kernel.py):
without the disk cache, a kernel is compiled without the ShiftInwards
small-extent copies the compiling call does not run; a later call that
needs one compiles the whole kernel and runs again through it. Results are
compared with NumPy, errors with those of the kernel compiled whole."""
import re

import numpy as np
import pytest

import pyhalide as hl
from pyhalide import realize
from pyhalide.ir.config import override
from pyhalide.ir.lru import LRU
from pyhalide.lowering import lazy_kernel, lazy_probe


@pytest.fixture
def completions(monkeypatch):
    """The whole kernels compiled by lazy kernels, counted."""
    count = [0]
    real = lazy_kernel.LazyState.complete

    def complete(self):
        if self.full is None:
            count[0] += 1
        return real(self)
    monkeypatch.setattr(lazy_kernel.LazyState, "complete", complete)
    return count


def _pipeline(inp, k=2, printed=False):
    """(ShiftInwards splits of the outermost loops: their small-extent
    copies are cold)"""
    x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
    f, g = hl.Func("f"), hl.Func("g")
    f[x, y] = inp[x, y] * k + 1
    if printed:
        f[x, y] = hl.print(f[x, y], "f")
    g[x, y] = f[x, y] + f[x, y + 1]
    g.split(y, yo, yi, 16, hl.TailStrategy.ShiftInwards)
    f.compute_root().split(y, yo, yi, 8, hl.TailStrategy.ShiftInwards)
    return g


def _run(inp, g, w, h, k=2):
    a = np.random.default_rng(w * 100 + h).random((h + 1, w), dtype=np.float32)
    inp.set(hl.Buffer(a))
    out = np.asarray(g.realize([w, h]))
    return out, (a[:h] * np.float32(k) + 1) + (a[1:h + 1] * np.float32(k) + 1)


def test_a_copy_is_compiled_when_a_call_needs_it(completions):
    with override(cache_dir=""):
        inp = hl.ImageParam(hl.Float(32), 2, "inp")
        g = _pipeline(inp)
        for w, h, whole in ((8, 64, 0), (8, 64, 0), (8, 64, 0), (3, 40, 0), (3, 5, 1),
                            (8, 64, 1), (8, 64, 1), (8, 64, 1), (2, 3, 1)):
            out, ref = _run(inp, g, w, h)
            assert np.array_equal(out, ref), (w, h)
            assert completions[0] == whole, (w, h)


def test_errors_of_the_whole_kernel_after_it_took_over(completions, monkeypatch):
    with override(cache_dir=""):
        inp = hl.ImageParam(hl.Float(32), 2, "inp")
        g = _pipeline(inp, 3)
        for w, h in ((8, 64), (3, 5)):          # (3 x 5: the whole kernel takes over)
            out, ref = _run(inp, g, w, h, 3)
            assert np.array_equal(out, ref), (w, h)
        assert completions[0] == 1
        inp.set(hl.Buffer(np.zeros((5, 3), np.float32)))     # one row short
        with pytest.raises(Exception) as lazy:
            g.realize([3, 5])
    monkeypatch.setattr(realize, "_KERNELS", LRU())       # compiled again, whole
    monkeypatch.setattr(lazy_probe, "WITH_DISK_CACHE", False)
    inp2 = hl.ImageParam(hl.Float(32), 2, "inp")
    g2 = _pipeline(inp2, 3)
    inp2.set(hl.Buffer(np.zeros((5, 3), np.float32)))
    with pytest.raises(Exception) as whole:     # (with the disk cache: compiled whole)
        g2.realize([3, 5])
    assert type(lazy.value) is type(whole.value)
    # (the same message up to the Funcs' unique names: f$1, f$2)
    assert re.sub(r"\$\d+", "", str(lazy.value)) == re.sub(r"\$\d+", "", str(whole.value))
    assert "PyhalideLazyCopy" not in str(lazy.value)


def test_a_kernel_that_prints_is_compiled_whole(completions, capfd):
    """(running it again would print twice)"""
    with override(cache_dir=""):
        inp = hl.ImageParam(hl.Float(32), 2, "inp")
        g = _pipeline(inp, 5, printed=True)
        for w, h in ((2, 32), (2, 3)):
            out, ref = _run(inp, g, w, h, 5)
            assert np.array_equal(out, ref), (w, h)
            printed = re.findall(r"^[-\d.]+ f$", capfd.readouterr().out, re.M)
            assert len(printed) == w * (h + 1), (w, h)
        assert completions[0] == 0


def test_a_copy_left_out_of_a_parallel_loop(completions):
    """(the copy of f's x split runs in a task of the parallel y loop: the
    failed task stops the call, which runs again through the whole kernel)"""
    with override(cache_dir=""):
        inp = hl.ImageParam(hl.Int(32), 2, "inp")
        x, y, xo, xi = hl.Var("x"), hl.Var("y"), hl.Var("xo"), hl.Var("xi")
        f, g = hl.Func("f"), hl.Func("g")
        f[x, y] = inp[x, y] * 7 - y
        g[x, y] = f[x, y] + f[x + 1, y]
        f.compute_root().parallel(y).split(x, xo, xi, 8, hl.TailStrategy.ShiftInwards)
        for w, h, whole in ((40, 6, 0), (3, 6, 1), (40, 6, 1)):
            a = np.arange((w + 1) * h, dtype=np.int32).reshape(h, w + 1) % 97
            inp.set(hl.Buffer(a))
            out = np.asarray(g.realize([w, h]))
            ff = a * 7 - np.arange(h, dtype=np.int32)[:, None]
            assert np.array_equal(out, ff[:, :w] + ff[:, 1:w + 1]), (w, h)
            assert completions[0] == whole, (w, h)
