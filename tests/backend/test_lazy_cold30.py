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


def test_an_output_sharing_an_input_is_refused_before_any_run(completions, monkeypatch):
    """Rerun safety: a lazy kernel never runs with an output that shares
    memory with an input (the full path's exact check, the given-Buffer
    fast path's bounds check): the call raises before the kernel runs, and
    the rerun of a call needing a left-out copy starts from the same inputs."""
    monkeypatch.setattr(realize, "_KERNELS", LRU())   # (not the kernel an earlier test completed)
    with override(cache_dir=""):
        inp = hl.ImageParam(hl.Float(32), 2, "inp")
        g = _pipeline(inp)
        big = np.random.default_rng(4).random((65, 8), dtype=np.float32)
        inp.set(hl.Buffer(big))
        o64 = hl.Buffer(np.zeros((64, 8), np.float32))
        g.realize(o64)                            # compiled lazily at 8 x 64
        assert np.array_equal(np.asarray(o64), (big[:64] * np.float32(2) + 1) +
                              (big[1:] * np.float32(2) + 1))
        a = np.random.default_rng(5).random((6, 3), dtype=np.float32)
        a0 = a.copy()
        ref = (a[:5] * np.float32(2) + 1) + (a[1:] * np.float32(2) + 1)
        inp.set(hl.Buffer(a))
        for view in (a[:5], a[1:]):               # 3 x 5 needs a left-out copy
            with pytest.raises(ValueError, match="shares memory"):
                g.realize(hl.Buffer(view))
        assert completions[0] == 0 and np.array_equal(a, a0)
        o = hl.Buffer(np.zeros((5, 3), np.float32))
        for _ in range(3):                        # (the given-Buffer fast path after one)
            g.realize(o)
            assert np.array_equal(np.asarray(o), ref)
        assert completions[0] == 1
        with pytest.raises(ValueError, match="shares memory"):
            g.realize(hl.Buffer(a[1:]))
        inp.set(o)                                # the output Buffer itself as the input
        with pytest.raises(ValueError, match="shares memory"):
            g.realize(o)
        assert np.array_equal(np.asarray(o), ref)


def test_in_place_kernels_are_never_lazy(monkeypatch):
    """The in-place variant (an argument is the output and an input) gets no
    probe, so none of its copies is left out."""
    from pyhalide.realize import Pipeline
    seen = []
    real = Pipeline._kernel

    def spy(self, dense=None, graph_and_key=None, in_place=None, probe=None):
        seen.append((bool(in_place), probe is not None))
        return real(self, dense, graph_and_key, in_place, probe)
    monkeypatch.setattr(Pipeline, "_kernel", spy)

    def scale(a):
        for i in range(a.shape[0]):
            for j in range(a.shape[1]):
                a[i, j] *= 2.0
    with override(cache_dir=""):
        f = hl.pipeline(scale)
        a = np.random.default_rng(6).random((128, 96))
        b = a.copy()
        f(b)
        assert np.array_equal(b, a * 2.0)
    assert (True, False) in seen and (True, True) not in seen, seen



def test_a_kernel_tracing_realizations_is_compiled_whole(completions, capfd):
    """trace_realizations' events (trace calls of another type than the
    values' traces) make a kernel rerun-unsafe too: each event once."""
    with override(cache_dir=""):
        inp = hl.ImageParam(hl.Float(32), 2, "inp")
        x, y, yo, yi = hl.Var("x"), hl.Var("y"), hl.Var("yo"), hl.Var("yi")
        f, g = hl.Func("f"), hl.Func("g")
        f[x, y] = inp[x, y] * 5 + 1
        g[x, y] = f[x, y] + f[x, y + 1]
        g.split(y, yo, yi, 16, hl.TailStrategy.ShiftInwards)
        f.compute_root().split(y, yo, yi, 8, hl.TailStrategy.ShiftInwards).trace_realizations()
        for w, h in ((8, 64), (3, 5)):
            out, ref = _run(inp, g, w, h, 5)
            assert np.array_equal(out, ref), (w, h)
            assert capfd.readouterr().out.count("Begin realization ") == 1, (w, h)
        assert completions[0] == 0


def test_an_atomic_histogram_runs_again_from_its_pure_definition(completions):
    """A parallel atomic() update into the output, stopped by a left-out
    copy of the output's pure definition: the rerun writes the zeros again
    before counting (counts equal NumPy's, not doubled)."""
    with override(cache_dir=""):
        inp = hl.ImageParam(hl.Int(32), 1, "inp")
        n, size = hl.Param(hl.Int(32), "n"), hl.Param(hl.Int(32), "size")
        x, xo, xi = hl.Var("x"), hl.Var("xo"), hl.Var("xi")
        r = hl.RDom([(0, n)])
        h = hl.Func("h")
        h[x] = 0
        h[hl.clamp(inp[r.x], 0, hl.Expr(size) - 1)] += 1
        h.split(x, xo, xi, 16, hl.TailStrategy.ShiftInwards)
        h.update().atomic().parallel(r.x)
        for s, m, whole in ((32, 1000, 0), (7, 50, 1), (7, 60, 1)):
            a = np.random.default_rng(s + m).integers(0, 40, m).astype(np.int32)
            inp.set(hl.Buffer(a))
            n.set(m)
            size.set(s)
            out = np.asarray(h.realize([s]))
            assert np.array_equal(out, np.bincount(np.clip(a, 0, s - 1), minlength=s)), (s, m)
            assert completions[0] == whole, (s, m)
